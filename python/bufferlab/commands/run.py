"""`bufferlab run FILE [--set key=value ...] [--out DIR]`: simulate one scenario and report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bufferlab.cli import EXIT_BROKEN_PIPE, silence_stdout
from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps
from bufferlab.output import OutputDir
from bufferlab.simulate import Interrupted, Results, apply_overrides, examples, load_scenario, run
from bufferlab.units import format_value

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
    """A readable table of the main metrics; an undefined metric (an empty measurement window) shows
    ``-``."""
    s: Dict[str, Any] = results.summary
    f = format_value
    cells = {
        "drops": f"{f(s['drops'], '{:,}')} ({f(s['drops_overflow'], '{:,}')}/{f(s['drops_early'], '{:,}')}/"
                 f"{f(s['drops_forced'], '{:,}')}{_other_drop_reasons(results)})",
        "queue_mean_pkts": f"{f(s['queue_mean_pkts'], '{:.2f}')} / {f(s['queue_p99_pkts'], '{:.0f}')} / "
                           f"{f(s['queue_max_pkts'], '{:.0f}')}",
        "delay_mean_s": f"{f(s['delay_mean_s'], '{:.3f}', scale=1e3)} ± "
                        f"{f(s['delay_std_s'], '{:.3f}', scale=1e3)} ms",
        "delay_p50_s": f"{f(s['delay_p50_s'], '{:.3f}', scale=1e3)} / "
                       f"{f(s['delay_p99_s'], '{:.3f}', scale=1e3)} ms",
        "timeouts": f"{f(s['timeouts'], '{:,}')} / {f(s['fast_retransmits'], '{:,}')}",
    }
    title = s.get("name") or "scenario"
    lines = [f"{title}: {s['flows']} flows, {f(s['duration_s'], '{:g}')} s simulated "
             f"(statistics from {f(s['warmup_s'], '{:g}')} s), seed {s['seed']}"]
    width = max(len(label) for label, _, _ in ROWS)
    for label, key, fmt in ROWS:
        lines.append(f"  {label:<{width}}  {cells.get(key) or f(s[key], fmt)}")
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


def _tables(results: Results) -> List[str]:
    """Per-port, per-group and FCT tables, when the scenario has more than one of a kind or finite flows."""
    out: List[str] = []
    ports, groups, fct = results.ports, results.groups, results.fct
    if len(ports) > 1:
        out.append("ports (the summary above is the first):")
        out.append(f"  {'link':<16} {'util':>7} {'loss':>8} {'marks':>8} {'queue mean':>10} "
                   f"{'delay mean':>11}")
        for p in ports.itertuples():
            out.append(f"  {p.name:<16} {format_value(p.utilization, '{:.2%}'):>7} "
                       f"{format_value(p.loss_rate, '{:.3%}'):>8} {format_value(p.mark_rate, '{:.3%}'):>8} "
                       f"{format_value(p.queue_mean_pkts, '{:.1f}'):>10} "
                       f"{format_value(p.delay_mean_s, '{:.2f}', scale=1e3):>8} ms")
    if len(groups) > 1 or len(fct):
        out.append("groups:")
        out.append(f"  {'group':<16} {'cc':<8} {'flows':>7} {'done':>7} {'goodput':>11} {'Jain':>6} "
                   f"{'timeouts':>8} {'FCT mean':>10}")
        for g in groups.itertuples():
            jain = format_value(g.jain_index, "{:.3f}")
            fct_mean = format_value(g.fct_mean_s, "{:.3f} s")
            out.append(f"  {g.name:<16} {g.congestion_control:<8} {g.flows_started:>7,} "
                       f"{g.flows_completed:>7,} {format_value(g.goodput_bps, '{:.4g}'):>11} {jain:>6} "
                       f"{g.timeouts:>8,} "
                       f"{fct_mean:>10}")
    incast = groups[groups["incast_rounds"].notna()] if "incast_rounds" in groups else groups.iloc[:0]
    if len(incast):
        out.append("incast request completion times (rounds requested and answered after the warm-up):")
        out.append(f"  {'group':<16} {'rounds':>7} {'mean':>9} {'p50':>9} {'p99':>9} {'max':>9} "
                   f"{'goodput':>11}")
        for g in incast.itertuples():
            times = " ".join(f"{format_value(t, '{:.4f}s'):>9}"
                             for t in (g.rct_mean_s, g.rct_p50_s, g.rct_p99_s, g.rct_max_s))
            out.append(f"  {g.name:<16} {int(g.incast_rounds):>7,} {times} "
                       f"{format_value(g.incast_goodput_bps, '{:.4g}'):>11}")
    if len(fct):
        names = dict(zip(groups["group"], groups["name"]))
        out.append("flow completion times by size (flows started after the warm-up):")
        out.append(f"  {'group':<12} {'size (B)':<22} {'flows':>7} {'mean':>9} {'p50':>9} {'p99':>9} "
                   f"{'slowdown':>8}")
        for b in fct.itertuples():
            hi = format_value(b.size_hi, "{:,.0f}", "inf")
            size = f"({int(b.size_lo):,}, {hi}]"
            times = " ".join(f"{format_value(t, '{:.3f}s'):>9}" for t in (b.mean_s, b.p50_s, b.p99_s))
            out.append(f"  {names.get(b.group, b.group):<12} {size:<22} {b.count:>7,} {times} "
                       f"{format_value(b.slowdown_mean, '{:.2f}'):>8}")
    return out


def _flow_count(spec: Dict[str, Any]) -> Optional[int]:
    """The flows with rows the scenario starts, when its groups give plain counts (else ``None``)."""
    flows = spec.get("flows")
    groups = flows if isinstance(flows, list) else [flows] if isinstance(flows, dict) else []
    counts = [g.get("count") for g in groups if isinstance(g, dict)]
    if not counts or not all(isinstance(c, int) for c in counts) or "parking_lot" in spec:
        return None
    return sum(counts)


def _scenario_for(args: argparse.Namespace) -> Any:
    """The scenario to run: the file with ``--set``, and with what ``--report``/``--plot`` draw from and
    ``--pcap`` switched on."""
    if not (args.report or args.plot or args.pcap is not None):
        return args.scenario
    from bufferlab import _engine
    from bufferlab.report import prepare_scenario

    spec = apply_overrides(load_scenario(args.scenario), args.set)
    if args.pcap is not None:
        if not str(args.pcap).strip():
            raise BufferLabError("--pcap: empty path; give the file to write the packet trace into")
        try:
            Path(args.pcap).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BufferLabError(f"--pcap: cannot create the directory of {args.pcap}: "
                                 f"{exc.strerror or exc}") from None
        table = spec.get("trace")
        spec["trace"] = {**(table if isinstance(table, dict) else {}), "pcap": str(args.pcap)}
    if args.report or args.plot:
        duration = spec.get("duration")
        seconds = _engine.parse_time(duration) if isinstance(duration, str) else duration
        if isinstance(seconds, (int, float)) and seconds > 0:
            spec = prepare_scenario(spec, float(seconds), _flow_count(spec))
    return spec


def handle(args: argparse.Namespace) -> int:
    target: Optional[OutputDir] = None
    if args.force and args.out is None:
        raise BufferLabError("--force: only with --out DIR (it replaces an earlier run there)")
    if args.report and args.out is None:
        raise BufferLabError("--report: only with --out DIR (the page is written beside the run's data; "
                             "--plot DIR writes the figures alone)")
    if args.out is not None:
        target = OutputDir(args.out, force=args.force, field="--out")
        target.prepare()
    if args.plot is not None:
        from bufferlab.plots import ensure_directory

        ensure_directory(args.plot, "--plot")
    try:
        scenario = _scenario_for(args)
        results = run(scenario, overrides=args.set if scenario is args.scenario else (),
                      progress=False if args.quiet else None)
    except Interrupted as exc:
        if target is not None:
            target.discard()
            raise Interrupted(exc.simulated_s, exc.duration_s, f"nothing was written to {args.out}") from None
        raise
    except BufferLabError as exc:  # a pcap refused before the run, or lost during it: nothing is written
        if target is not None:
            target.discard()
        if args.pcap is not None and str(exc).startswith("trace.pcap: "):
            raise type(exc)("--pcap: " + str(exc)[len("trace.pcap: "):]) from None
        raise
    except BaseException:
        if target is not None:
            target.discard()
        raise
    stdout_closed = False
    try:
        print(dumps(results.to_dict()["summary"], indent=2) if args.json else format_summary(results))
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        stdout_closed = True
    written_any: List[str] = []
    if target is not None:
        if args.report:
            from bufferlab import report

            def write_with_report(directory: Any) -> List[str]:
                names = results.write_files(directory)
                paths = report.write(report.RunData.from_results(results), directory, "--report")
                return names + [p.name for p in paths]

            written = target.write(write_with_report)
        else:
            written = target.write(results.write_files)
        written_any += [str(p) for p in written]
    if args.plot is not None:
        from bufferlab import report

        figures = report.draw(report.RunData.from_results(results), args.plot, "--plot")
        written_any += [str(f) for fig in figures for f in fig.files]
    if results.trace.get("pcap"):
        written_any.append(str(results.trace["pcap"]))
    if written_any and not args.json and not stdout_closed:
        print("wrote " + ", ".join(written_any))
    return EXIT_BROKEN_PIPE if stdout_closed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="simulate a scenario file and print its metrics",
                       description="Simulate a scenario (a TOML file or a built-in example: "
                       + ", ".join(examples()) + ").")
    p.add_argument("scenario", help="scenario TOML file or built-in example name")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a field, e.g. --set bottleneck.queue.limit=50 (repeatable)")
    p.add_argument("--out", metavar="DIR",
                   help="write results.json and the Parquet tables into this new or empty directory")
    p.add_argument("--force", action="store_true",
                   help="with --out: replace a directory that holds an earlier run (all of its files)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--pcap", metavar="FILE",
                   help="write a packet trace of the first link (or [trace] port) that Wireshark reads "
                        "(docs/traces.md)")
    p.add_argument("--report", action="store_true",
                   help="with --out: also write report.html (figures inline) and the figures as PNG/SVG")
    p.add_argument("--plot", metavar="DIR", help="write the report's figures as PNG and SVG into DIR")
    p.set_defaults(func=handle)
