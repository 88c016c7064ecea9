#!/bin/sh
# `npm test`: everything the test suite needs, then the whole suite.
# Every tools/setup-<component>.sh below installs (from Debian's packages) and
# starts one real component the tests use, idempotently, and prints
# `export NAME=value` lines for the tests as its last lines of output:
#   python    the Jupyter kernel stack (kernel tests)
#   sandbox   bubblewrap, the local runtime's sandbox (kernel tests)
#   engine    Podman's Docker-compatible engine and the offline base image (container tests)
#   redis     redis-server on loopback (queue tests)
#   registry  the Distribution registry on loopback (release publish tests)
#   browser   Debian's chromium (report tests)
# Then vitest over every package, the CLI end-to-end tests, the module-boundary
# lint and the type check: without arguments in two lanes at once
# (tools/run-test-lanes.mjs, vitest.config.ts); extra arguments go to one vitest
# run (e.g. `npm test -- packages/pool`).
set -eu
cd "$(dirname "$0")/.."

for component in python sandbox engine redis registry browser; do
  script="tools/setup-$component.sh"
  [ -f "$script" ] || continue
  out=$(sh "$script") || { echo "test: $script failed; the tests that need $component cannot run" >&2; exit 1; }
  printf '%s\n' "$out" | grep -v '^export ' >&2 || true
  eval "$(printf '%s\n' "$out" | grep '^export ' || true)"
done

REPORT=${JUNOBENCH_TEST_REPORT:-.junobench-test-report.json}
if [ $# -eq 0 ]; then
  exec node tools/run-test-lanes.mjs --report "$REPORT"
fi
exec npx vitest run --reporter=default --reporter=json --outputFile.json="$REPORT" "$@"
