#!/usr/bin/env python3
"""Where a callgrind profile's instructions go, by engine source line, with the standard library's inlined
code charged to the engine line that inlined it.

`callgrind_annotate` charges inlined code to the file it comes from, so slice indexing, `Vec::push` or
`VecDeque::pop_front` appear under the standard library, apart from the engine line that asked for them
(on the reference benchmark, 40 % of all instructions). This script reads the per-instruction counts of a
profile made with `--dump-instr=yes`, asks `llvm-addr2line` for each address's chain of inlined frames,
and charges the address to the innermost frame in `crates/engine`.

    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release -p bufferlab-engine \\
        --bin bufferlab-bench
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        target/release/bufferlab-bench scenario.json
    python3 scripts/callgrind_lines.py cg.out target/release/bufferlab-bench [--top 40]
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
from typing import Counter, Dict, List, Tuple


def self_costs(profile: str, binary_suffix: str) -> Counter[int]:
    """Instructions executed at each address of the binary (self cost: calls' inclusive lines skipped)."""
    costs: Counter[int] = collections.Counter()
    names: Dict[str, str] = {}
    in_binary = False
    addr = 0
    after_calls = False
    for line in open(profile):
        line = line.rstrip("\n")
        named = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
        if named:
            if named.group(2):
                names[named.group(1)] = named.group(2)
            if line.startswith("ob="):
                in_binary = names.get(named.group(1), "").endswith(binary_suffix)
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        parts = line.split()
        token = parts[0]
        if token.startswith(("+", "-")):
            addr += int(token, 0)
        elif token != "*":
            addr = int(token, 0)
        if after_calls:
            after_calls = False
        elif in_binary and len(parts) >= 3:
            costs[addr] += int(parts[2])
    return costs


def engine_lines(costs: Counter[int], binary: str) -> Counter[Tuple[str, str]]:
    """The costs by (engine file:line, function), each address charged to its innermost engine frame."""
    addrs = sorted(costs)
    out = subprocess.run(
        ["llvm-addr2line", "-i", "-f", "-C", "--output-style=JSON", "-e", binary] + [hex(a) for a in addrs],
        capture_output=True, text=True, check=True,
    ).stdout
    symbols = [entry for line in out.splitlines() if line.strip() for entry in json.loads(line)]
    by_line: Counter[Tuple[str, str]] = collections.Counter()
    for addr, entry in zip(addrs, symbols):
        frames: List[Tuple[str, str]] = [
            (f["FunctionName"], f"{f['FileName']}:{f['Line']}") for f in entry["Symbol"]
        ]
        engine = [f for f in frames if "crates/engine" in f[1]]
        function, location = (engine or frames or [("?", "?")])[0]
        by_line[(re.sub(r".*crates/engine/src/", "", location), function)] += costs[addr]
    return by_line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile", help="callgrind output made with --dump-instr=yes")
    ap.add_argument("binary", help="the profiled binary, built with line tables")
    ap.add_argument("--top", type=int, default=40, help="lines to list (default 40)")
    args = ap.parse_args()
    costs = self_costs(args.profile, args.binary.rsplit("/", 1)[-1])
    by_line = engine_lines(costs, args.binary)
    total = sum(costs.values())
    print(f"{total / 1e6:.1f} M instructions in {args.binary}")
    for (location, function), c in by_line.most_common(args.top):
        print(f"{c / 1e6:8.2f} M {100 * c / total:5.2f} %  {location:34s} {function[:60]}")
    by_file: Counter[str] = collections.Counter()
    for (location, _), c in by_line.items():
        by_file[location.split(":")[0]] += c
    print("by file:")
    for name, c in by_file.most_common(15):
        print(f"{c / 1e6:8.2f} M {100 * c / total:5.2f} %  {name}")


if __name__ == "__main__":
    main()
