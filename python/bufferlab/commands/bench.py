"""`bufferlab bench`: the engine's speed benchmarks (the scenarios of `docs/benchmarks.md`).

Three scenarios, each scaled by its number of long-lived flows:

* ``reference``: 1,000 flows, 1 Gb/s bottleneck, 100 ms RTT, 1,000-packet DropTail, 1,000-byte packets;
* ``parking-lot``: three 1 Gb/s hops in a chain (1,000-packet DropTail each), the long flows over all three
  and as many cross flows per hop again (a third of them per hop), 100 ms RTT for the long flows;
* ``short-flows``: the reference bottleneck with Pareto-sized web flows (mean 100 KB, shape 1.2) arriving
  as a Poisson process offering 40 % of the link, beside the long-lived flows.

The figure of merit is wall seconds per million packets served by the ports (a packet crossing three hops
counts three times), with the engine's events per second and the process's memory.
"""

from __future__ import annotations

import argparse
import copy
import platform
import resource
import sys
from typing import Any, Dict, List, Sequence

from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps
from bufferlab.simulate import apply_overrides, run
from bufferlab.units import format_value, parse_time

#: Shortest benchmark run: the flows start uniformly over the first second.
MIN_DURATION_S = 1.0

#: 1,000 flows, 1 Gb/s bottleneck, 100 ms RTT, 1,000-packet DropTail, 1,000-byte packets.
BENCH_SCENARIO: Dict[str, Any] = {
    "name": "bench-1000-flows-1Gbps",
    "duration": "10s",
    "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 1000}},
    "flows": {"count": 1000, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}},
    "tcp": {"packet_size": "1000B"},
}

#: The reference bottleneck chained over three hops, the long flows over all three and a third as many cross
#: flows per hop.
PARKING_LOT: Dict[str, Any] = {
    "name": "bench-parking-lot-3-hops-1Gbps",
    "duration": BENCH_SCENARIO["duration"],
    "parking_lot": {"hops": 3, **copy.deepcopy(BENCH_SCENARIO["bottleneck"]),
                    "cross": {"count": 333, "rtt": "60ms", "start": {"uniform": ["0s", "1s"]}}},
    "flows": copy.deepcopy(BENCH_SCENARIO["flows"]),
    "tcp": copy.deepcopy(BENCH_SCENARIO["tcp"]),
}

#: The reference scenario with Pareto-sized web flows beside its long-lived ones.
SHORT_FLOWS: Dict[str, Any] = {
    **copy.deepcopy(BENCH_SCENARIO),
    "name": "bench-short-flows-1Gbps",
    "flows": [
        {"name": "long", **copy.deepcopy(BENCH_SCENARIO["flows"])},
        {"name": "web", "rtt": {"uniform": ["20ms", "200ms"]}, "size": {"pareto": "100KB", "shape": 1.2},
         "arrival": {"load": 0.4}},
    ],
}

SCENARIOS: Dict[str, Dict[str, Any]] = {
    "reference": BENCH_SCENARIO, "parking-lot": PARKING_LOT, "short-flows": SHORT_FLOWS,
}


def scenario_for(name: str, flows: int, duration: str) -> Dict[str, Any]:
    """Benchmark scenario ``name`` with ``flows`` long-lived flows, run for ``duration``."""
    if name not in SCENARIOS:
        raise BufferLabError(f"--scenario: expected one of {', '.join(SCENARIOS)} (got {name!r})")
    if flows < 1:
        raise BufferLabError(f"--flows: must be >= 1 (got {flows})")
    s = copy.deepcopy(SCENARIOS[name])
    s["duration"] = duration
    if name == "parking-lot":
        s["flows"]["count"] = flows
        s["parking_lot"]["cross"]["count"] = max(1, flows // 3)
    elif name == "short-flows":
        s["flows"][0]["count"] = flows
    else:
        s["flows"]["count"] = flows
    return s


def measure(duration: str = "10s", flows: int = 1000, scenario: str = "reference",
            overrides: Sequence[str] = ()) -> Dict[str, Any]:
    """Run a benchmark scenario once (with ``--set``-style overrides); wall time, packets, events and peak
    memory of this process."""
    spec = apply_overrides(scenario_for(scenario, flows, duration), overrides)
    before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = run(spec, progress=False)
    s = r.summary
    packets = int(r.ports["departures"].sum())
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "scenario": spec["name"], "flows": flows, "duration": duration,
        "wall_s": r.wall_s, "bottleneck_packets": s["departures"], "port_packets": packets,
        "events": s["events"],
        "s_per_million_packets": r.wall_s / (packets / 1e6) if packets else None,
        "events_per_s": s["events"] / r.wall_s if r.wall_s > 0 else None,
        "peak_rss_mb": peak_kb / 1024, "engine_rss_growth_mb": (peak_kb - before_kb) / 1024,
        "utilization": s["utilization"], "loss_rate": s["loss_rate"],
        "flows_started": s["flows_started"], "peak_flow_slots": s["peak_flow_slots"],
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }


def best_of(repeat: int, duration: str, flows: int, scenario: str,
            overrides: Sequence[str] = ()) -> Dict[str, Any]:
    runs = [measure(duration, flows, scenario, overrides) for _ in range(repeat)]
    best = min(runs, key=lambda m: m["wall_s"])
    # Peak RSS only grows, so the first run shows what the engine adds to the process.
    best["engine_rss_growth_mb"] = max(m["engine_rss_growth_mb"] for m in runs)
    return best


def scaling_figure(rows: List[Dict[str, Any]], out: str) -> List[str]:
    """Seconds per million port packets and events per second against the number of long-lived flows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bufferlab.plots import save_figure

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    for name in dict.fromkeys(r["scenario"] for r in rows):
        pts = [r for r in rows if r["scenario"] == name]
        xs = [r["flows"] for r in pts]
        ax1.plot(xs, [r["s_per_million_packets"] for r in pts], "o-", label=name)
        ax2.plot(xs, [r["events_per_s"] / 1e6 for r in pts], "o-", label=name)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("long-lived flows")
        ax.grid(alpha=0.3)
    ax1.set_ylabel("wall s per million port packets")
    ax1.set_ylim(bottom=0)
    ax2.set_ylabel("million events per s")
    ax2.set_ylim(bottom=0)
    ax1.legend(fontsize=7)
    fig.tight_layout()
    from pathlib import Path

    path = Path(out)
    return [str(p) for p in save_figure(fig, path.parent, path.stem, field="--figure")]


def _scale(text: str) -> List[int]:
    """``--scale 10,100,1000`` as flow counts, each >= 1."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise BufferLabError(f"--scale: expected comma-separated flow counts >= 1, such as 10,100,1000 "
                             f"(got {text!r})")
    return counts


def handle(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise BufferLabError(f"--repeat: must be >= 1 (got {args.repeat})")
    if parse_time(args.duration, "--duration") < MIN_DURATION_S:
        raise BufferLabError(f"--duration: must be at least {MIN_DURATION_S:g} s, the benchmark's flows "
                             f"start over the first second (got {args.duration!r})")
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    counts = [args.flows] if not args.scale else _scale(args.scale)
    rows = [best_of(args.repeat, args.duration, n, name, args.set) for name in names for n in counts]
    if args.json:
        print(dumps(rows[0] if len(rows) == 1 else rows, indent=2))
    for best in ([] if args.json else rows):
        print(f"{best['scenario']} ({best['flows']} flows, {best['duration']} simulated), "
              f"best of {args.repeat}:")
        print(f"  wall {best['wall_s']:.3f} s for {best['port_packets']:,} port packets: "
              f"{format_value(best['s_per_million_packets'], '{:.3f}')} s per million packets")
        print(f"  {best['events']:,} events, {format_value(best['events_per_s'], '{:.2f}', scale=1e-6)} M "
              f"events/s, utilization {format_value(best['utilization'], '{:.3f}')}, "
              f"{best['flows_started']:,} flows started")
        print(f"  peak RSS {best['peak_rss_mb']:.0f} MB for the whole Python process, of which the run added "
              f"{best['engine_rss_growth_mb']:.1f} MB")
    if args.figure:
        written = scaling_figure(rows, args.figure)
        if not args.json:
            print("wrote " + ", ".join(written))
    sys.stdout.flush()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure the engine's speed on the benchmark scenarios")
    p.add_argument("--scenario", default="reference", choices=[*SCENARIOS, "all"],
                   help="benchmark scenario (default reference)")
    p.add_argument("--duration", default="10s", help="simulated time (default 10s)")
    p.add_argument("--flows", type=int, default=1000, help="number of long-lived flows (default 1000)")
    p.add_argument("--scale", metavar="N1,N2,...", help="run each scenario at these flow counts")
    p.add_argument("--figure", metavar="FILE.png", help="write the scaling figure (PNG and SVG)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a field of the scenario, e.g. --set bottleneck.queue.discipline=red")
    p.add_argument("--repeat", type=int, default=3, help="runs; the fastest is reported (default 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=handle)
