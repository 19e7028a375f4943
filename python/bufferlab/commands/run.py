"""`bufferlab run FILE [--set key=value ...] [--out DIR]`: simulate one scenario and report."""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Tuple

from bufferlab.simulate import Results, examples, run

#: The summary table: (label, key, format).
ROWS: List[Tuple[str, str, str]] = [
    ("utilization", "utilization", "{:.2%}"),
    ("throughput", "throughput_bps", "{:.4g} b/s"),
    ("goodput", "goodput_bps", "{:.4g} b/s"),
    ("arrivals", "arrivals", "{:,}"),
    ("drops (overflow/early/forced)", "drops", "{:,}"),
    ("ECN marks", "marks", "{:,}"),
    ("loss rate", "loss_rate", "{:.4%}"),
    ("mark rate", "mark_rate", "{:.4%}"),
    ("queue mean / p99 / max (pkts)", "queue_mean_pkts", "{:.2f}"),
    ("queueing delay mean ± std", "delay_mean_s", "{:.3f} ms"),
    ("queueing delay p50 / p99", "delay_p50_s", "{:.3f} ms"),
    ("Jain's fairness index", "jain_index", "{:.4f}"),
    ("timeouts / fast retransmits", "timeouts", "{:,}"),
]


def format_summary(results: Results) -> str:
    """A readable table of the main metrics."""
    s: Dict[str, Any] = results.summary
    cells = {
        "drops": f"{s['drops']:,} ({s['drops_overflow']:,}/{s['drops_early']:,}/{s['drops_forced']:,})",
        "queue_mean_pkts": f"{s['queue_mean_pkts']:.2f} / {s['queue_p99_pkts']:.0f} / "
                           f"{s['queue_max_pkts']:.0f}",
        "delay_mean_s": f"{s['delay_mean_s'] * 1e3:.3f} ± {s['delay_std_s'] * 1e3:.3f} ms",
        "delay_p50_s": f"{s['delay_p50_s'] * 1e3:.3f} / {s['delay_p99_s'] * 1e3:.3f} ms",
        "timeouts": f"{s['timeouts']:,} / {s['fast_retransmits']:,}",
    }
    title = s.get("name") or "scenario"
    lines = [f"{title}: {s['flows']} flows, {s['duration_s']:g} s simulated "
             f"(statistics from {s['warmup_s']:g} s), seed {s['seed']}"]
    width = max(len(label) for label, _, _ in ROWS)
    for label, key, fmt in ROWS:
        lines.append(f"  {label:<{width}}  {cells.get(key) or fmt.format(s[key])}")
    lines.append(f"  {'conservation':<{width}}  sent {s['sent']:,} = delivered {s['delivered']:,} + dropped "
                 f"{s['dropped']:,} + in flight {s['in_flight']:,}")
    lines.append(f"  {'engine':<{width}}  {s['events']:,} events in {results.wall_s:.3f} s wall")
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    results = run(args.scenario, overrides=args.set, progress=False if args.quiet else None)
    if args.json:
        print(json.dumps(results.to_dict()["summary"], indent=2))
    else:
        print(format_summary(results))
    if args.out:
        written = results.save(args.out)
        if not args.json:
            print("wrote " + ", ".join(str(p) for p in written))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="simulate a scenario file and print its metrics",
                       description="Simulate a scenario (a TOML file or a built-in example: "
                       + ", ".join(examples()) + ").")
    p.add_argument("scenario", help="scenario TOML file or built-in example name")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a field, e.g. --set bottleneck.queue.limit=50 (repeatable)")
    p.add_argument("--out", metavar="DIR", help="write results.json and Parquet time series here")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=handle)
