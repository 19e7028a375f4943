"""The report of `bufferlab validate`: ``<out>/report.md`` (a summary table, what ns-3 cannot check, one
section per scenario with its verdicts, network, goodput spread, timeouts, speed and figures) and
``<out>/results/<name>.json`` for each comparison."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import Any, Dict, List

from bufferlab import jsonout
from bufferlab.validation import compare, ns3sim


def _count(value: Any) -> str:
    """A count (possibly a mean over seeds) as a whole number with thousands separators."""
    return "-" if value is None else f"{float(value):,.0f}"


#: How the report names each cause a timeout is counted under (``ns3sim.TIMEOUT_CAUSES``, in order;
#: ``window_timeouts_<cause>`` in both simulators' summaries).
CAUSE_NAMES = dict(zip(ns3sim.TIMEOUT_CAUSES,
                       ("lost retransmission", "in fast recovery", "too few duplicate ACKs", "other")))


def timeout_causes(comp: compare.Comparison) -> str:
    """One line: the window's timeouts per run by cause in both simulators (means over the replications),
    or an empty string when either side does not count them."""
    sides = (comp.engine or {}, comp.ns3 or {})
    if any(side.get("window_timeouts") is None for side in sides):
        return ""
    parts = [f"{label} {float(sides[0].get('window_timeouts_' + k) or 0):.1f} / "
             f"{float(sides[1].get('window_timeouts_' + k) or 0):.1f}" for k, label in CAUSE_NAMES.items()]
    return (f"Timeouts in the window per run, BufferLab / ns-3: {float(sides[0]['window_timeouts']):.1f} / "
            f"{float(sides[1]['window_timeouts']):.1f}; by cause: " + ", ".join(parts) + ".")


def write_result(path: Path, comp: compare.Comparison) -> None:
    """``<out>/results/<name>.json``: a comparison's verdict, rows, both sides' means and notes (the
    ns-3 queue series left out)."""
    data = {
        "name": comp.name, "verdict": comp.verdict, "skipped": comp.skipped, "notes": comp.notes,
        "replications": comp.replications,
        "rows": [r.__dict__ for r in comp.rows], "engine_wall_s": comp.engine_wall_s,
        "ns3_wall_s": comp.ns3_wall_s, "engine": comp.engine,
        "ns3": {k: v for k, v in (comp.ns3 or {}).items() if k not in ("queue_series",)},
    }
    path.write_text(jsonout.dumps(data, indent=1, default=float))


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:g} Mb/s"


def describe_network(cfg: Dict[str, Any] | None) -> str:
    """One paragraph on the links, routers and groups of a scenario with several links or groups."""
    if not cfg or (len(cfg["links"]) <= 1 and len(cfg["groups"]) <= 1):
        return ""
    links = []
    for lk in cfg["links"]:
        q = lk["queue"]
        size = f"{q['limit']} packets" if "limit" in q else f"{q['limit_bytes']} B"
        links.append(f"{lk['name']} (R{lk['from_router']}→R{lk['to_router']}, {_rate(lk['rate_bps'])}, "
                     f"{lk['delay_s'] * 1e3:g} ms, {q['discipline']} {size})")
    groups = []
    for g in cfg["groups"]:
        tcp = g["tcp"]
        rtts = g["flows"]["rtt_s"]
        rtt = (f"{min(rtts) * 1e3:.0f}–{max(rtts) * 1e3:.0f} ms" if max(rtts) > min(rtts)
               else f"{rtts[0] * 1e3:.0f} ms")
        extra = ", delayed ACK" if tcp["del_ack_count"] > 1 else ""
        extra += ", ECN" if tcp["ecn"] else ""
        acks = f", ACKs over {' → '.join(g['ack_route'])}" if g["ack_route"] else ""
        groups.append(f"{g['name']} ({g['flows']['count']} flows over {' → '.join(g['route'])}{acks}, "
                      f"RTT {rtt}{extra})")
    return "Links: " + "; ".join(links) + ". Groups: " + "; ".join(groups) + "."


def cannot_check_markdown() -> List[str]:
    """The report's list of what ns-3 cannot check: every engine mechanism the translator does not map."""
    from bufferlab import _engine  # noqa: PLC0415

    disciplines, controllers = _engine.names()
    mapped = set(ns3sim.NS3_QUEUE_DISCS) | set(ns3sim.NS3_CONGESTION_CONTROL)
    lines = ["## What ns-3 cannot check", "",
             "Checked against ns-3: disciplines " + ", ".join(f"`{d}`" for d in disciplines if d in mapped)
             + "; controllers " + ", ".join(f"`{c}`" for c in controllers if c in mapped)
             + "; `tcp.pacing`. The rest ns-3 3.44 lacks, so no scenario here compares them; they are "
             "checked against their papers instead:", "",
             "| mechanism | why ns-3 cannot run it | checked instead by |", "|---|---|---|"]
    for kind, names in (("discipline", disciplines), ("controller", controllers)):
        for name in names:
            if name in mapped:
                continue
            why, instead = ns3sim.NS3_CANNOT_CHECK.get(name, ("not translated", "nothing listed"))
            lines.append(f"| {kind} `{name}` | {why} | {instead} |")
    for feature, why in ns3sim.NS3_CANNOT_CHECK_FEATURES.items():
        lines.append(f"| {feature} | {why} | the engine's own tests |")
    return lines + [""]


def _mapping_link(out: Path) -> str:
    """The link from ``out`` to docs/validation/ns3-mapping.md (run from the repository), else its name."""
    mapping = Path("docs/validation/ns3-mapping.md").resolve()
    if not mapping.exists():
        return "ns3-mapping.md"
    return Path(os.path.relpath(mapping, out.resolve())).as_posix()


def write_report(comps: List[compare.Comparison], out: Path, *, ns3_only: bool = False) -> Path:
    """``<out>/report.md``: a summary, then one section per scenario."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# BufferLab against ns-3",
        "",
        f"Generated {now} on {platform.machine()} / Python {platform.python_version()} / ns-3 3.44 (PyPI "
        "`ns3`), by `bufferlab validate" + (" --ns3-only" if ns3_only else "") + "`.",
        "",
        "Tolerances: utilization ±2 percentage points; loss rate (and ECN mark rate) ±25 % relative, or "
        "±0.002 absolute when both are below 1 %; mean queue ±15 %; Jain's index ±0.03; with several "
        "groups, each group's share of the total goodput ±0.03 absolute. With several links every link has "
        "its own rows (`link: metric`) under the same rules; with RTTs spread by 10:1 or more, the "
        "RTT-unfairness exponent k (goodput ∝ RTT^-k, fitted per run) ±0.1 absolute (from 2:1 it is shown "
        "without a verdict). ns-3's mean is the "
        "reference for relative tolerances. How each scenario field maps onto ns-3, and the semantic "
        f"differences, are in [ns3-mapping.md]({_mapping_link(out)}).",
        "",
        "Verdicts: each metric's means over the replications (seeds `seed`, `seed`+1, ... in both "
        "simulators), the difference BufferLab − ns-3 and its 95 % confidence interval, paired over the "
        "seeds (seed s gives both simulators the same per-flow draws; Student's t on the per-seed "
        "differences; a scenario's section names any row whose verdict Welch's unpaired interval would "
        "change). **pass**: the interval lies inside the tolerance band; "
        "**fail**: entirely outside; **inconclusive**: it straddles an edge, and `validate` ran more seeds "
        f"(batches of half the initial count, up to {compare.CAP_FACTOR}× it unless `--max-replications` "
        "says otherwise); inconclusive at the cap does not pass. `runs` is the number of replications "
        "behind each mean.",
        "",
        "## Summary",
        "",
        "| scenario | flows | verdict | replications | BufferLab wall, all seeds (s) "
        "| ns-3 wall, all seeds (s) | ns-3 events per run | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in comps:
        n = c.flow_count if c.flow_count is not None else "?"
        ev = c.ns3.get("events") if c.ns3 else None
        ratio = c.speed_ratio
        ew = f"{c.engine_wall_s:.3f}" if c.engine_wall_s else "-"
        nw = f"{c.ns3_wall_s:.1f}" if c.ns3_wall_s else "-"
        rt = f"{ratio:.0f}x" if ratio else "-"
        lines.append(
            f"| [{c.name}](#{c.name}) | {n} | {c.verdict} | {c.replications} | {ew} | {nw} | "
            f"{_count(ev)} | {rt} |"
        )
    lines.append("")
    lines += cannot_check_markdown()
    for c in comps:
        lines += [f"## {c.name}", ""]
        desc = c.scenario.get("description")
        if desc:
            lines += [str(desc), ""]
        if c.skipped:
            lines += [f"**Skipped**: {c.skipped}", ""]
            continue
        network = describe_network(c.config)
        if network:
            lines += [network, ""]
        lines += [f"Verdict: **{c.verdict}**", "", compare.table_markdown(c), ""]
        lines.append(
            "Per-flow goodput, Mb/s (min / p10 / median / p90 / max): "
            f"BufferLab {compare.goodput_quantiles(c.engine_goodput)}; "
            f"ns-3 {compare.goodput_quantiles(c.ns3_goodput)}."
        )
        lines.append("")
        causes = timeout_causes(c)
        if causes:
            lines += [causes, ""]
        if c.ns3:
            lines.append(
                f"Speed: ns-3 {c.ns3_wall_s:.2f} s of `Simulator::Run()` over all seeds; per run "
                f"{c.ns3.get('cpu_s', float('nan')):.2f} s CPU ({c.ns3.get('setup_s', 0):.1f} s setup), "
                f"{_count(c.ns3.get('events'))} events, {_count(c.ns3.get('bottleneck_packets'))} bottleneck "
                "packets"
                + (f"; BufferLab {c.engine_wall_s:.3f} s over all seeds; ratio {c.speed_ratio:.0f}x."
                   if c.speed_ratio else ".")
            )
            lines.append("")
        for fig in ("queue", "goodput"):
            p = out / "figures" / f"{c.name}-{fig}.png"
            if p.exists():
                lines.append(f"![{c.name} {fig}](figures/{p.name})")
        lines.append("")
        if c.notes:
            lines += ["Notes:", ""] + [f"- {n}" for n in c.notes] + [""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
