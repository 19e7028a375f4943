#!/usr/bin/env bash
# Every test: Rust (format, lints, unit tests) and Python (lint, pytest), after installing what they need.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
python3 -m pip install --quiet ".[test]"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
python3 -m ruff check python tests
python3 -m pytest -q tests
