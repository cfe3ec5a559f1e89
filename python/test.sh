#!/usr/bin/env bash
# Build the Python package into a virtualenv (target/venv) with maturin and run
# its pytest suite against real probes. Needs root and eBPF, like the other
# real-kernel tests: without root it is skipped, unless DTRACE_REQUIRE_BPF=1.
set -euo pipefail
cd "$(dirname "$0")"
if [ "$(id -u)" != 0 ]; then
    if [ "${DTRACE_REQUIRE_BPF:-}" = 1 ]; then
        echo "python: DTRACE_REQUIRE_BPF=1 but not root" >&2
        exit 1
    fi
    echo "note: skipping the Python tests: they need root"
    exit 0
fi
venv=../target/venv
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv
        python3 -m venv "$venv"
    fi
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check 'maturin>=1.5,<2' pytest
# The same target directory as the workspace, so the library builds once.
CARGO_TARGET_DIR=../target/python VIRTUAL_ENV="$(cd "$venv" && pwd)" \
    "$venv/bin/maturin" develop -q
"$venv/bin/python" -m pytest -q tests
