#!/usr/bin/env bash
# Build htsim's core library and the twin driver.
#   usage: benchmarks/htsim/build.sh HTSIM_SRC [OUT_BINARY]
# HTSIM_SRC is a checkout of github.com/Broadcom/csg-htsim (or its sim/ directory).
# OUT_BINARY defaults to HTSIM_SRC/sim/htsim_twin.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="${1:?usage: build.sh HTSIM_SRC [OUT_BINARY]}"
if [ -f "$src/sim/Makefile" ]; then sim="$(cd "$src/sim" && pwd)"; else sim="$(cd "$src" && pwd)"; fi
[ -f "$sim/tcp.h" ] || { echo "build.sh: $sim does not look like htsim's sim/ directory" >&2; exit 2; }
out="${2:-$sim/htsim_twin}"
jobs="$(nproc 2>/dev/null || echo 2)"

# htsim's own Makefile and flags (-Wall -std=c++11 -g -Wsign-compare -Wuninitialized -fPIE -O3).
make -C "$sim" -j"$jobs" libhtsim.a
g++ -Wall -std=c++11 -g -Wsign-compare -Wuninitialized -fPIE -O3 -I"$sim" \
    "$here/twin_main.cpp" "$sim/libhtsim.a" -o "$out"
echo "built $out"
