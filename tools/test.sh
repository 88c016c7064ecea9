#!/bin/sh
# `npm test`: everything the test suite needs, then the whole suite.
# 1. the Python kernel stack (kernel tests), 2. the container engine and its
# offline base image (container tests), 3. vitest over every package, the CLI
# end-to-end tests, the module-boundary lint and the type check.
# Extra arguments go to vitest (e.g. `npm test -- packages/pool`).
set -eu
cd "$(dirname "$0")/.."

sh tools/setup-python.sh
if [ -f tools/setup-engine.sh ]; then
  # The engine script prints `export DOCKER_HOST=...` as its last line.
  eval "$(sh tools/setup-engine.sh | tail -n 1 | grep '^export ' || true)"
fi

REPORT=${JUNOBENCH_TEST_REPORT:-.junobench-test-report.json}
exec npx vitest run --reporter=default --reporter=json --outputFile.json="$REPORT" "$@"
