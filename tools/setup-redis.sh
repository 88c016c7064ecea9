#!/bin/sh
# Redis (Debian's `redis-server` package) on loopback, for the queue tests
# (docs/design.md, "Components the tests start"). Run as root on Debian; idempotent: a second run only checks
# that the server answers (well under a second).
#
#   1. installs redis-server when missing (the package's own service, if the
#      package starts one, is left alone: this script never uses it);
#   2. starts `redis-server tools/redis/redis.conf` on 127.0.0.1:$PORT (as the
#      package's `redis` user when it exists), nothing persisted, unless a
#      Redis already answers there;
#   3. prints `export JUNOBENCH_TEST_REDIS=redis://127.0.0.1:$PORT` (the only
#      line on stdout; diagnostics go to stderr).
#
# Tests that restart Redis mid-run start their own redis-server (the binary
# from the package) on a port of their own, so they never disturb this one.
#
# Settings (environment):
#   JUNOBENCH_REDIS_PORT   port on 127.0.0.1 (default 6417)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=${JUNOBENCH_REDIS_PORT:-6417}
CONFIG="$ROOT/tools/redis/redis.conf"
RUN_DIR=/run/junobench-redis
LOG="$RUN_DIR/redis-$PORT.log"
PIDFILE="$RUN_DIR/redis-$PORT.pid"
URL="redis://127.0.0.1:$PORT"

say() { printf 'setup-redis: %s\n' "$*" >&2; }
die() {
  printf 'setup-redis: error: %s\n' "$1" >&2
  [ $# -gt 1 ] && printf '  hint: %s\n' "$2" >&2
  exit 1
}

[ -f "$CONFIG" ] || die "missing $CONFIG" "restore it from the repository"

answers() {
  command -v redis-cli >/dev/null 2>&1 && [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = PONG ]
}

if answers; then
  say "redis already answering at $URL"
  echo "export JUNOBENCH_TEST_REDIS=$URL"
  exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (it installs a Debian package and starts a server)" \
  "run \`sudo sh tools/setup-redis.sh\`, or start any Redis 6.2+ on loopback and export JUNOBENCH_TEST_REDIS=redis://127.0.0.1:<port>"

# --- 1. the package ---------------------------------------------------------
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script is for Debian" \
    "install Redis 6.2+ and export JUNOBENCH_TEST_REDIS=redis://127.0.0.1:<port>"
  say "installing redis-server"
  t0=$(date +%s)
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends redis-server >/dev/null 2>&1 || {
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends redis-server >/dev/null ||
      die "apt-get could not install redis-server" "check that apt works: apt-get install redis-server"
  }
  say "installed in $(( $(date +%s) - t0 )) s"
fi
BINARY=$(command -v redis-server)

# --- 2. the server ----------------------------------------------------------
# An earlier server of ours on this port that died: forget its pid file.
if [ -f "$PIDFILE" ] && ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then rm -f "$PIDFILE"; fi

mkdir -p "$RUN_DIR"
USER_OPT=""
if getent passwd redis >/dev/null 2>&1; then
  USER_OPT="redis"
  chown redis: "$RUN_DIR"
fi
# The config is read by the redis user: hand it a readable copy.
cp "$CONFIG" "$RUN_DIR/redis.conf"
chmod 0644 "$RUN_DIR/redis.conf"

say "starting redis-server at $URL (log $LOG)"
# setsid + nohup: it outlives this script and the shell that ran it.
if [ -n "$USER_OPT" ]; then
  setsid nohup start-stop-daemon --start --chuid "$USER_OPT" --exec "$BINARY" -- "$RUN_DIR/redis.conf" \
    --port "$PORT" --dir "$RUN_DIR" --logfile "$LOG" --pidfile "$PIDFILE" >/dev/null 2>&1 </dev/null &
else
  setsid nohup "$BINARY" "$RUN_DIR/redis.conf" --port "$PORT" --dir "$RUN_DIR" --logfile "$LOG" --pidfile "$PIDFILE" \
    >/dev/null 2>&1 </dev/null &
fi
i=0
until answers; do
  i=$((i + 1))
  if [ $i -gt 100 ]; then
    tail -20 "$LOG" >&2 || true
    die "redis-server did not answer at $URL within 20 s (log above; a port in use shows there)" \
      "see $LOG; another port: JUNOBENCH_REDIS_PORT=<port> sh tools/setup-redis.sh"
  fi
  sleep 0.2
done
say "redis answering at $URL"
echo "export JUNOBENCH_TEST_REDIS=$URL"
