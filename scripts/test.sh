#!/usr/bin/env bash
# Every test: Rust (format, lints, unit and integration tests), Python (lint, pytest), and the quick
# cross-validation against ns-3 when the ns3 package can be installed. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
# tests/test_readme.py runs the README's commands, this script among them: not again from inside it.
export BUFFERLAB_IN_TEST_SH=1
python3 -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
python3 -m pip install --quiet ".[test]"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
python3 -m ruff check python tests
if python3 -m pip install --quiet "ns3==3.44.post0"; then
    ns3_ok=1
else
    ns3_ok=0
    echo "ns3 could not be installed: the ns-3 cross-validation tests and the quick subset are skipped"
fi
# tshark (pcap checks) and Chromium (the HTML report in a browser) from Debian's packages for
# tests/test_traces.py, which skips those tests, saying why, where they cannot be installed.
if ! command -v tshark >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark chromium) \
            >/dev/null 2>&1; then
            echo "tshark/chromium could not be installed from Debian's packages: the pcap and browser tests are skipped"
        fi
    else
        echo "tshark/chromium are missing and cannot be installed here (needs root and apt-get): the pcap and browser tests are skipped"
    fi
fi
python3 -m pytest -q tests
# Every paper's reproduction in its quick form: a claim that holds in the committed full run must still hold.
bufferlab reproduce all --quick --out "${TMPDIR:-/tmp}/bufferlab-reproduce-quick" --check docs/reproductions
if [ "$ns3_ok" = 1 ]; then
    bufferlab validate --quick --out "${TMPDIR:-/tmp}/bufferlab-validate-quick"
fi
