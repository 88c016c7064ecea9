#!/bin/sh
# Container engine for JunoBench's image builds and container runtime
# (docs/verify.md, "Container engine"), set up as root on Debian. Idempotent: every step checks first
# and is skipped when already done, so CI (.ci/run) and developers can run it
# before every test run; a second run takes about a second.
#
#   1. installs podman, runc, debootstrap (and fuse-overlayfs, slirp4netns,
#      curl) when missing;
#   2. uses the project-owned tools/engine/containers.conf through
#      CONTAINERS_CONF (runc, nofile/nproc ulimits, cgroupfs, file events):
#      /etc/containers is never written;
#   3. starts Podman's Docker-compatible API service on a unix socket unless
#      something already answers there;
#   4. builds the offline base image junobench/base:bookworm with
#      `debootstrap --variant=minbase` + `podman import` (no registry is
#      reachable here), only when it is missing;
#   5. checks that memory limits are enforced (the container runtime relies
#      on them), and prints the DOCKER_HOST line to use.
#
# Elsewhere — a machine with a running Docker engine — skip this script: point
# DOCKER_HOST at that engine (`export DOCKER_HOST=unix:///var/run/docker.sock`)
# and, if the engine cannot pull from a registry, import the same base image:
#   debootstrap --variant=minbase bookworm /tmp/rootfs && \
#     tar -C /tmp/rootfs -c . | docker import - junobench/base:bookworm
#
# Settings (environment):
#   JUNOBENCH_ENGINE_SOCKET  socket path (default /run/podman/podman.sock)
#   JUNOBENCH_DEBIAN_MIRROR  mirror for debootstrap (default http://deb.debian.org/debian)
#   JUNOBENCH_BASE_IMAGE     base image name (default junobench/base:bookworm)
#   JUNOBENCH_REBUILD_BASE=1 rebuild the base image even if it exists
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOCKET=${JUNOBENCH_ENGINE_SOCKET:-/run/podman/podman.sock}
MIRROR=${JUNOBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE_IMAGE=${JUNOBENCH_BASE_IMAGE:-junobench/base:bookworm}
CONTAINERS_CONF="$ROOT/tools/engine/containers.conf"
export CONTAINERS_CONF
SERVICE_LOG=$(dirname "$SOCKET")/junobench-podman-service.log

say() { printf 'setup-engine: %s\n' "$*" >&2; }
die() {
  printf 'setup-engine: error: %s\n' "$1" >&2
  [ $# -gt 1 ] && printf '  hint: %s\n' "$2" >&2
  exit 1
}
now() { date +%s; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and starts a root podman service)" \
  "run \`sudo sh tools/setup-engine.sh\`, or point DOCKER_HOST at an existing Docker engine instead"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script is for Debian" \
  "on other systems install podman and runc yourself, or point DOCKER_HOST at a Docker engine"
[ -f "$CONTAINERS_CONF" ] || die "missing $CONTAINERS_CONF" "restore it from the repository"

# --- 1. packages ------------------------------------------------------------
missing=""
for pkg in podman runc debootstrap fuse-overlayfs slirp4netns curl ca-certificates; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $pkg"
  fi
done
if [ -n "$missing" ]; then
  say "installing:$missing"
  t0=$(now)
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  say "installed in $(( $(now) - t0 )) s"
else
  say "podman $(podman --version | awk '{print $3}'), runc, debootstrap: already installed"
fi

# --- 2. cgroups: memory limits must be enforceable ----------------------------
# cgroup v2 needs the memory controller delegated to the parent of podman's
# cgroups; v1 needs the memory hierarchy mounted. Checked here, proven below.
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  CGROUP=v2
  grep -qw memory /sys/fs/cgroup/cgroup.controllers ||
    die "cgroup v2 without the memory controller: container memory limits cannot work" \
      "boot with the memory controller enabled (e.g. kernel cmdline cgroup_enable=memory)"
elif [ -d /sys/fs/cgroup/memory ]; then
  CGROUP=v1
else
  die "no memory cgroup (neither cgroup v2 nor a v1 memory hierarchy under /sys/fs/cgroup)" \
    "mount the cgroup filesystems; container memory limits need them"
fi
say "cgroup $CGROUP with the memory controller"

# --- 3. the Docker-compatible API service -------------------------------------
ping_engine() { curl -fsS --max-time 3 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }
if ping_engine; then
  say "engine already answering at unix://$SOCKET"
else
  mkdir -p "$(dirname "$SOCKET")"
  rm -f "$SOCKET"
  say "starting podman system service at unix://$SOCKET (log: $SERVICE_LOG)"
  # setsid + nohup: the service outlives this script and the shell that ran it;
  # --time=0 keeps it up while idle. CONTAINERS_CONF is in its environment.
  # Started from the socket's folder, not the caller's: conmon leaves an empty
  # `oom` file in the service's working directory when a container is killed
  # for memory, which would otherwise land in the checkout that ran this script.
  (cd "$(dirname "$SOCKET")" && setsid nohup podman system service --time=0 "unix://$SOCKET" >"$SERVICE_LOG" 2>&1 </dev/null &)
  i=0
  until ping_engine; do
    i=$((i + 1))
    [ $i -le 100 ] || die "podman service did not answer at $SOCKET within 20 s" "see $SERVICE_LOG"
    sleep 0.2
  done
  say "engine answering"
fi

# --- 4. offline base image ------------------------------------------------------
if [ "${JUNOBENCH_REBUILD_BASE:-0}" != 1 ] && podman image exists "$BASE_IMAGE"; then
  say "base image $BASE_IMAGE exists (cached; JUNOBENCH_REBUILD_BASE=1 rebuilds it)"
else
  work=$(mktemp -d /var/tmp/junobench-base.XXXXXX)
  trap 'rm -rf "$work"' EXIT INT TERM
  say "building $BASE_IMAGE with debootstrap --variant=minbase bookworm from $MIRROR"
  t0=$(now)
  debootstrap --variant=minbase bookworm "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)" "check that $MIRROR is reachable (apt must work)"; }
  # Downloaded .debs and package lists would only bloat the layer: the image
  # build runs apt-get update itself.
  rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/log/*.log
  t1=$(now)
  tar -C "$work/rootfs" --numeric-owner -c . |
    podman import --quiet --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$BASE_IMAGE" >/dev/null
  rm -rf "$work"
  trap - EXIT INT TERM
  say "base image built in $(( $(now) - t0 )) s (debootstrap $(( t1 - t0 )) s, import $(( $(now) - t1 )) s)"
fi

# --- 5. proof that memory limits hold --------------------------------------------
limit=$(podman run --rm --network none --memory 64m --memory-swap 64m "$BASE_IMAGE" \
  sh -c 'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes' 2>&1) ||
  die "a container with --memory 64m did not start: $limit" "see podman's error above; limits need cgroup support"
[ "$limit" = 67108864 ] ||
  die "--memory 64m was not applied inside the container (cgroup $CGROUP, it reads: $limit)" \
    "container memory limits would not be enforced; check podman's cgroup manager in $CONTAINERS_CONF"
say "memory limits enforced (cgroup $CGROUP, --memory 64m reads $limit inside a container)"

echo "export DOCKER_HOST=unix://$SOCKET"
