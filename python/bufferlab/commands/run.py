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
        "drops": f"{s['drops']:,} ({s['drops_overflow']:,}/{s['drops_early']:,}/{s['drops_forced']:,}"
                 f"{_other_drop_reasons(results)})",
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
    lines.extend(_tables(results))
    return "\n".join(lines)


def _other_drop_reasons(results: Results) -> str:
    """The first port's drops under reasons other than overflow, early and forced (``"; index 763"``)."""
    if not len(results.ports) or "drop_reasons" not in results.ports:
        return ""
    reasons = results.ports.iloc[0]["drop_reasons"] or {}
    other = [f"{k} {v:,}" for k, v in sorted(reasons.items()) if k not in ("overflow", "early", "forced")]
    return "; " + ", ".join(other) if other else ""


def _maybe(value: Any, fmt: str, missing: str = "-") -> str:
    """``fmt`` applied to a value that may be missing (None or NaN)."""
    return missing if value is None or value != value else fmt.format(value)


def _tables(results: Results) -> List[str]:
    """Per-port, per-group and FCT tables, when the scenario has more than one of a kind or finite flows."""
    out: List[str] = []
    ports, groups, fct = results.ports, results.groups, results.fct
    if len(ports) > 1:
        out.append("ports (the summary above is the first):")
        out.append(f"  {'link':<16} {'util':>7} {'loss':>8} {'marks':>8} {'queue mean':>10} "
                   f"{'delay mean':>11}")
        for p in ports.itertuples():
            out.append(f"  {p.name:<16} {p.utilization:>7.2%} {p.loss_rate:>8.3%} {p.mark_rate:>8.3%} "
                       f"{p.queue_mean_pkts:>10.1f} {p.delay_mean_s * 1e3:>8.2f} ms")
    if len(groups) > 1 or len(fct):
        out.append("groups:")
        out.append(f"  {'group':<16} {'cc':<8} {'flows':>7} {'done':>7} {'goodput':>11} {'Jain':>6} "
                   f"{'timeouts':>8} {'FCT mean':>10}")
        for g in groups.itertuples():
            jain = _maybe(g.jain_index, "{:.3f}")
            fct_mean = _maybe(g.fct_mean_s, "{:.3f} s")
            out.append(f"  {g.name:<16} {g.congestion_control:<8} {g.flows_started:>7,} "
                       f"{g.flows_completed:>7,} {g.goodput_bps:>11.4g} {jain:>6} {g.timeouts:>8,} "
                       f"{fct_mean:>10}")
    if len(fct):
        names = dict(zip(groups["group"], groups["name"]))
        out.append("flow completion times by size (flows started after the warm-up):")
        out.append(f"  {'group':<12} {'size (B)':<22} {'flows':>7} {'mean':>9} {'p50':>9} {'p99':>9} "
                   f"{'slowdown':>8}")
        for b in fct.itertuples():
            hi = _maybe(b.size_hi, "{:,.0f}", "inf")
            size = f"({int(b.size_lo):,}, {hi}]"
            out.append(f"  {names.get(b.group, b.group):<12} {size:<22} {b.count:>7,} {b.mean_s:>8.3f}s "
                       f"{b.p50_s:>8.3f}s {b.p99_s:>8.3f}s {b.slowdown_mean:>8.2f}")
    return out


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
