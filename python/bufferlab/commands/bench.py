"""`bufferlab bench`: the engine's speed benchmark (the scenario of `docs/benchmarks.md`)."""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
from typing import Any, Dict

from bufferlab.simulate import run

#: 1,000 flows, 1 Gb/s bottleneck, 100 ms RTT, 1,000-packet DropTail, 1,000-byte packets.
BENCH_SCENARIO: Dict[str, Any] = {
    "name": "bench-1000-flows-1Gbps",
    "duration": "10s",
    "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 1000}},
    "flows": {"count": 1000, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}},
    "tcp": {"packet_size": "1000B"},
}


def measure(duration: str = "10s", flows: int = 1000) -> Dict[str, Any]:
    """Run the benchmark scenario once; wall time, packets, events and peak memory of this process."""
    scenario = json.loads(json.dumps(BENCH_SCENARIO))
    scenario["duration"] = duration
    scenario["flows"]["count"] = flows
    before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = run(scenario, progress=False)
    s = r.summary
    packets = s["departures"]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "scenario": scenario["name"], "flows": flows, "duration": duration,
        "wall_s": r.wall_s, "bottleneck_packets": packets, "events": s["events"],
        "s_per_million_packets": r.wall_s / (packets / 1e6), "events_per_s": s["events"] / r.wall_s,
        "peak_rss_mb": peak_kb / 1024, "engine_rss_growth_mb": (peak_kb - before_kb) / 1024,
        "utilization": s["utilization"], "loss_rate": s["loss_rate"],
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }


def handle(args: argparse.Namespace) -> int:
    runs = [measure(args.duration, args.flows) for _ in range(args.repeat)]
    best = min(runs, key=lambda m: m["wall_s"])
    # Peak RSS only grows, so the first run shows what the engine adds to the process.
    best["engine_rss_growth_mb"] = max(m["engine_rss_growth_mb"] for m in runs)
    if args.json:
        print(json.dumps(best, indent=2))
    else:
        print(f"{best['scenario']} ({best['flows']} flows, {best['duration']} simulated), "
              f"best of {args.repeat}:")
        print(f"  wall {best['wall_s']:.3f} s for {best['bottleneck_packets']:,} bottleneck packets: "
              f"{best['s_per_million_packets']:.3f} s per million packets")
        print(f"  {best['events']:,} events, {best['events_per_s'] / 1e6:.2f} M events/s, "
              f"utilization {best['utilization']:.3f}")
        print(f"  peak RSS {best['peak_rss_mb']:.0f} MB for the whole Python process, of which the run added "
              f"{best['engine_rss_growth_mb']:.1f} MB")
    sys.stdout.flush()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure the engine's speed on the benchmark scenario")
    p.add_argument("--duration", default="10s", help="simulated time (default 10s)")
    p.add_argument("--flows", type=int, default=1000, help="number of flows (default 1000)")
    p.add_argument("--repeat", type=int, default=3, help="runs; the fastest is reported (default 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=handle)
