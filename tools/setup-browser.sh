#!/bin/sh
# Installs the browser the report tests drive (docs/design.md, "Components the tests start"): Debian's
# `chromium`, launched by playwright-core with its executable path (no
# browser download; the network may be closed). Idempotent and quick when
# it is already there. Diagnostics go to stderr; stdout carries only the
# `export JUNOBENCH_CHROMIUM=…` line the tests read.
set -eu

BIN=${JUNOBENCH_CHROMIUM:-/usr/bin/chromium}

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "setup-browser: $("$BIN" --version 2>/dev/null) present ($BIN)" >&2
  echo "export JUNOBENCH_CHROMIUM=$BIN"
  exit 0
fi

if [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-browser: run as root (or with sudo) to install Debian's chromium: apt-get install chromium" >&2
    exit 3
  fi
  echo "setup-browser: installing Debian's chromium (about a minute)" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Wait for other installs holding the dpkg lock rather than failing.
  apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends chromium >/dev/null
  BIN=/usr/bin/chromium
  "$BIN" --version >&2
  echo "export JUNOBENCH_CHROMIUM=$BIN"
  exit 0
fi

cat >&2 <<MSG
setup-browser: not a Debian system with apt; install Chromium (or Chrome) yourself and
  export JUNOBENCH_CHROMIUM=/path/to/chromium
MSG
exit 3
