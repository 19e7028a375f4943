#!/usr/bin/env python3
"""Wall time per simulated second and peak memory at scale: 10 Gb/s with 10^4 and 10^5 long flows and
100 Gb/s with 10^6 (short runs), each in a fresh process, through `bufferlab.run` (engine and DataFrames).

Each scenario: NewReno/SACK flows of 1,500-byte packets with RTTs spread over [80, 120] ms, starting
uniformly over the first second, through a DropTail port of C·RTT/√N packets (Appenzeller et al.'s rule).
Peak memory is the process's VmHWM (what Linux counts as its resident peak) beside the memory estimate
`bufferlab.resolve` gives, taken in this process (the resolved scenario, every flow's draws included, is
not part of a run).

    python3 scripts/scale_bench.py [--only 10000,100000,1000000] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

import bufferlab

#: (flows, rate in b/s, simulated seconds)
CASES = ((10_000, 10e9, 3.0), (100_000, 10e9, 3.0), (1_000_000, 100e9, 1.5))

CHILD = r"""
import json, sys, time
import bufferlab
sc = json.loads(sys.argv[1])
t0 = time.perf_counter()
res = bufferlab.run(sc, progress=False)
wall = time.perf_counter() - t0
frames = len(res.flows) + len(res.groups) + len(res.ports)
hwm = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps({"wall_s": wall, "engine_s": res.wall_s, "events": res.summary["events"],
                  "departures": res.summary["departures"], "utilization": res.summary["utilization"],
                  "loss_rate": res.summary["loss_rate"], "peak_rss_bytes": hwm, "rows": frames,
                  "heap_peak_bytes": res.heap_peak_bytes}))
"""


def scenario(flows: int, rate: float, seconds: float) -> dict:
    bdp = rate * 0.1 / 12000
    return {"name": f"scale-{flows}", "seed": 1, "duration": f"{seconds:g}s", "warmup": "0s",
            "bottleneck": {"rate": f"{rate:.6g}bps", "delay": "1ms",
                           "queue": {"discipline": "droptail",
                                     "limit": max(10, round(bdp / math.sqrt(flows)))}},
            "flows": {"count": flows, "rtt": {"uniform": ["80ms", "120ms"]},
                      "access_rate": f"{10 * rate:.6g}bps", "start": {"uniform": ["0s", "1s"]}},
            "tcp": {"packet_size": "1500B", "sack": True}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="flow counts to run (default: all)")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    only = {int(x) for x in args.only.split(",") if x}
    rows = []
    for flows, rate, seconds in CASES:
        if only and flows not in only:
            continue
        sc = scenario(flows, rate, seconds)
        out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sc)], capture_output=True, text=True,
                             check=True)
        r = {"flows": flows, "rate_bps": rate, "simulated_s": seconds, **json.loads(out.stdout),
             "estimate_bytes": bufferlab.resolve(sc, per_flow=False)["estimate"]["memory_bytes"]}
        rows.append(r)
        print(f"{flows:>9,} flows, {rate / 1e9:g} Gb/s, {seconds:g} s simulated: wall {r['wall_s']:.1f} s "
              f"({r['wall_s'] / seconds:.1f} s per simulated s; engine {r['engine_s']:.1f} s), "
              f"{r['departures'] / 1e6:.1f} M packets, "
              f"{r['wall_s'] / r['departures'] * 1e6:.3f} s per million, "
              f"peak RSS {r['peak_rss_bytes'] / 1e9:.2f} GB (estimate {r['estimate_bytes'] / 1e9:.2f} GB, "
              f"engine heap {r['heap_peak_bytes'] / 1e9:.2f} GB), utilization {r['utilization']:.3f}",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
