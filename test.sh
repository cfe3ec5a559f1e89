#!/usr/bin/env bash
# The whole test suite. As root with eBPF, the real-kernel tests run; set
# DTRACE_REQUIRE_BPF=1 to make them fail instead of skip when eBPF is unavailable.
set -euo pipefail
cd "$(dirname "$0")"
cargo test --workspace
# Features off by default: the OTLP exporter.
cargo test -p dtrace-export --features otlp
cargo test -p dtrace-cli --features otlp --test export
# The flame-graph SVG (inferno, CDDL-1.0, behind the flamegraph feature).
cargo test -p dtrace-cli --features flamegraph --test flamegraph
# The Python package (PyO3): built with maturin, tested with pytest.
python/test.sh
