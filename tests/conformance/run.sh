#!/usr/bin/env bash
# The conformance loop: runs the dev list of ../shared/conformance (Oracle's
# dtrace-utils unittest suite, dev split) against the release build and fails
# if fewer tests pass than tests/conformance/passing records, less 1% slack for
# timing-flaky tests. Prints the per-area table; the full log and per-test JSON
# go to target/conformance/.
#
#   tests/conformance/run.sh            # check against the recorded count
#   tests/conformance/run.sh --record   # also write the new count when higher
set -euo pipefail
cd "$(dirname "$0")/../.."
suite=../shared/conformance
if [ ! -d "$suite" ]; then
    echo "conformance: $suite not found; skipped"
    exit 0
fi
for tool in gawk gcc; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq "$tool"
    fi
done
cargo build --release --quiet
mkdir -p target/conformance
status=0
python3 "$suite/dtu_conformance.py" --suite "$suite/suite" --dtrace target/release/dtrace \
    --select "$suite/dev-tests.txt" --build-triggers --jobs 2 \
    --json target/conformance/results.json --keep-logs target/conformance/logs \
    >target/conformance/run.log 2>&1 || status=$?
# The harness exits 1 when any test fails, which is expected; anything else is
# the harness itself failing.
if [ "$status" -gt 1 ]; then
    tail -20 target/conformance/run.log
    echo "conformance: the harness failed (exit $status)"
    exit 1
fi
last=$(tail -1 target/conformance/run.log)
passed=$(printf '%s\n' "$last" | sed -n 's/^\([0-9]*\) passed,.*/\1/p')
if [ -z "$passed" ]; then
    tail -20 target/conformance/run.log
    echo "conformance: no summary line from the harness"
    exit 1
fi
recorded=$(tr -dc '0-9' < tests/conformance/passing)
floor=$(( recorded - (recorded + 99) / 100 ))
# The per-area table, with "passed/failed" spelled so that no line reads as a
# test runner's closing line.
sed -n '/^Per-area results/,/^runteststyle/p' target/conformance/run.log \
    | sed 's/ passed,/ pass,/; s/ failed,/ fail,/; s/ skipped/ skip/'
echo "conformance: $passed of the dev list pass (recorded $recorded, floor $floor)"
if [ "${1:-}" = "--record" ] && [ "$passed" -gt "$recorded" ]; then
    echo "$passed" > tests/conformance/passing
    echo "conformance: recorded $passed"
fi
if [ "$passed" -lt "$floor" ]; then
    echo "conformance: FAILED: $passed < $floor"
    exit 1
fi
