#!/bin/sh
# Installs bubblewrap, the local runtime's sandbox (packages/runtime/src/local-sandbox.ts).
# Idempotent: does nothing when it is there and makes a sandbox.
#
# On Debian/Ubuntu as root: installs Debian's `bubblewrap`. Then checks that it
# can make the sandbox here (unprivileged user namespaces allowed). Where it
# cannot, the local runtime refuses to run notebooks unless --unsandboxed.
set -eu

check() {
  bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --cap-drop ALL \
    --ro-bind / / --proc /proc --dev /dev -- true 2>&1
}

if command -v bwrap >/dev/null 2>&1 && check >/dev/null; then
  echo "setup-sandbox: bubblewrap present and working ($(bwrap --version))"
  exit 0
fi

if ! command -v bwrap >/dev/null 2>&1; then
  if [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "setup-sandbox: installing Debian's bubblewrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }
  else
    echo "setup-sandbox: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)" >&2
    exit 3
  fi
fi

if ! why=$(check); then
  echo "setup-sandbox: bubblewrap cannot make a sandbox here: $why" >&2
  echo "setup-sandbox: allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap on Ubuntu 24.04)" >&2
  exit 3
fi
echo "setup-sandbox: done ($(bwrap --version))"
