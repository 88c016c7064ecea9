#!/bin/sh
# The Distribution registry (Debian's `docker-registry` package) on loopback,
# for the release tests that push the benchmark image and read back its digest
# (docs/design.md, "Components the tests start"). Run as root on Debian; idempotent: a second run only checks
# that the registry answers (about 0.1 s).
#
#   1. installs docker-registry when missing (its service is not started by
#      the package here, and never used: it would listen on :5000 on every
#      interface with the package's own config);
#   2. starts `docker-registry serve tools/registry/config.yml` as the
#      package's unprivileged docker-registry user, on 127.0.0.1:$PORT, with its
#      storage in $STORAGE, unless a registry already answers there;
#   3. prints `export JUNOBENCH_TEST_REGISTRY=127.0.0.1:$PORT` (the only line on
#      stdout; diagnostics go to stderr).
#
# Engines must push to it over plain HTTP: Docker treats 127.0.0.0/8 as an
# insecure registry by default; Podman's Docker-compatible API is told per push
# (`tlsVerify=false`, which the release code sends for loopback registries).
#
# Settings (environment):
#   JUNOBENCH_REGISTRY_PORT     port on 127.0.0.1 (default 5117)
#   JUNOBENCH_REGISTRY_STORAGE  storage folder (default /var/lib/junobench-registry)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=${JUNOBENCH_REGISTRY_PORT:-5117}
STORAGE=${JUNOBENCH_REGISTRY_STORAGE:-/var/lib/junobench-registry}
CONFIG="$ROOT/tools/registry/config.yml"
RUN_DIR=/run/junobench-registry
LOG="$RUN_DIR/registry-$PORT.log"
PIDFILE="$RUN_DIR/registry-$PORT.pid"
ADDR="127.0.0.1:$PORT"

say() { printf 'setup-registry: %s\n' "$*" >&2; }
die() {
  printf 'setup-registry: error: %s\n' "$1" >&2
  [ $# -gt 1 ] && printf '  hint: %s\n' "$2" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (it installs a Debian package and starts a service)" \
  "run \`sudo sh tools/setup-registry.sh\`, or start any Distribution registry on loopback and export JUNOBENCH_TEST_REGISTRY=host:port"
[ -f "$CONFIG" ] || die "missing $CONFIG" "restore it from the repository"
command -v curl >/dev/null 2>&1 || die "curl not found" "apt-get install curl"

# A Distribution registry answers GET /v2/ with this header (200, or 401 with auth).
answers() {
  curl -sS --max-time 3 -o /dev/null -D - "http://$ADDR/v2/" 2>/dev/null | grep -qi '^docker-distribution-api-version: registry/2'
}

if answers; then
  say "registry already answering at http://$ADDR"
  echo "export JUNOBENCH_TEST_REGISTRY=$ADDR"
  exit 0
fi

# --- 1. the package ---------------------------------------------------------
if ! dpkg-query -W -f='${Status}' docker-registry 2>/dev/null | grep -q 'install ok installed'; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script is for Debian" \
    "install a Distribution registry (github.com/distribution/distribution) and export JUNOBENCH_TEST_REGISTRY=host:port"
  say "installing docker-registry"
  t0=$(date +%s)
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends docker-registry >/dev/null 2>&1 || {
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends docker-registry >/dev/null ||
      die "apt-get could not install docker-registry" "check that apt works: apt-get install docker-registry"
  }
  say "installed in $(( $(date +%s) - t0 )) s"
fi
BINARY=$(command -v docker-registry || echo /usr/bin/docker-registry)
[ -x "$BINARY" ] || die "docker-registry is installed but $BINARY is missing" "apt-get install --reinstall docker-registry"

# --- 2. the service ---------------------------------------------------------
if curl -sS --max-time 3 -o /dev/null "http://$ADDR/" 2>/dev/null; then
  die "something that is not a Distribution registry answers at $ADDR" \
    "free the port, or pick another: JUNOBENCH_REGISTRY_PORT=<port> sh tools/setup-registry.sh"
fi
# An earlier registry of ours on this port that died: forget its pid file.
if [ -f "$PIDFILE" ] && ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then rm -f "$PIDFILE"; fi

USER_OPT=""
if getent passwd docker-registry >/dev/null 2>&1; then USER_OPT="docker-registry"; fi
mkdir -p "$STORAGE" "$RUN_DIR"
[ -n "$USER_OPT" ] && chown "$USER_OPT:" "$STORAGE"

say "starting the registry at http://$ADDR (storage $STORAGE, log $LOG)"
# setsid + nohup: it outlives this script and the shell that ran it. The
# project config is read by the registry user, so it must be readable to it.
if [ -n "$USER_OPT" ]; then
  cp "$CONFIG" "$RUN_DIR/config.yml"
  chmod 0644 "$RUN_DIR/config.yml"
  REGISTRY_HTTP_ADDR="$ADDR" REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY="$STORAGE" \
    setsid nohup start-stop-daemon --start --chuid "$USER_OPT" --exec "$BINARY" -- serve "$RUN_DIR/config.yml" \
    >"$LOG" 2>&1 </dev/null &
else
  REGISTRY_HTTP_ADDR="$ADDR" REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY="$STORAGE" \
    setsid nohup "$BINARY" serve "$CONFIG" >"$LOG" 2>&1 </dev/null &
fi
echo $! >"$PIDFILE"
i=0
until answers; do
  i=$((i + 1))
  if [ $i -gt 100 ]; then
    tail -20 "$LOG" >&2 || true
    die "the registry did not answer at http://$ADDR within 20 s (log above)" "see $LOG"
  fi
  sleep 0.2
done
say "registry answering at http://$ADDR"
echo "export JUNOBENCH_TEST_REGISTRY=$ADDR"
