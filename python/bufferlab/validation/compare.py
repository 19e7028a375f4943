"""Run one scenario in BufferLab and in ns-3 and compare them against fixed tolerances.

Tolerances (issue "Agree with ns-3"), measured against the ns-3 value:

* utilization: within 2 percentage points (absolute 0.02);
* loss rate: within 25 % relative, or 0.002 absolute when both rates are below 1 %;
* ECN mark rate: the loss-rate rule (it is the same signal, delivered by marking instead of dropping);
* mean queue length: within 15 % relative;
* Jain's index: within 0.03 absolute;
* a group's share of the total goodput (scenarios with several groups): within 0.03 absolute.

With one link the port metrics are the summary's (the bottleneck). With several, every link has its own
utilization, loss rate (mark rate if it marks) and mean queue rows under the same rules, and the summary
keeps Jain's index over all flows; with several groups every group has its goodput share and its own Jain's
index. The 99th-percentile queue, mean queueing delay and goodput are shown without a verdict.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

import numpy as np

from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3sim


@dataclass
class Row:
    """One line of a comparison table."""

    metric: str
    bufferlab: float
    ns3: float
    difference: float
    tolerance: str
    verdict: str  # "pass", "fail" or "-" (informational)

    @property
    def passed(self) -> bool:
        return self.verdict != "fail"


def _abs_rule(tol: float) -> Callable[[float, float], tuple[float, str, bool]]:
    def rule(ours: float, ref: float) -> tuple[float, str, bool]:
        d = ours - ref
        return d, f"±{tol:g} abs", abs(d) <= tol + 1e-12

    return rule


def _rel_rule(tol: float) -> Callable[[float, float], tuple[float, str, bool]]:
    def rule(ours: float, ref: float) -> tuple[float, str, bool]:
        d = ours - ref
        if ref == 0:
            return d, f"±{tol:.0%} rel", ours == 0
        return d, f"±{tol:.0%} rel", abs(d) <= tol * abs(ref) + 1e-12

    return rule


def _rate_rule(ours: float, ref: float) -> tuple[float, str, bool]:
    """Loss (or mark) rate: 25 % relative, or 0.002 absolute when both are below 1 %."""
    d = ours - ref
    if max(ours, ref) < 0.01:
        return d, "±0.002 abs (<1%)", abs(d) <= 0.002 + 1e-12
    return d, "±25% rel", abs(d) <= 0.25 * abs(ref) + 1e-12


#: metric -> rule; metrics with rule None are shown without a verdict.
TOLERANCES: Dict[str, Any] = {
    "utilization": _abs_rule(0.02),
    "loss_rate": _rate_rule,
    "mark_rate": _rate_rule,
    "queue_mean_pkts": _rel_rule(0.15),
    "jain_index": _abs_rule(0.03),
    "goodput_share": _abs_rule(0.03),
    "queue_p99_pkts": None,
    "delay_mean_s": None,
    "goodput_bps": None,
}


def check(metric: str, ours: float, ref: float, label: str | None = None) -> Row:
    """One table row: ``ours`` (BufferLab) against ``ref`` (ns-3) under the metric's tolerance.

    ``label`` names the row (``"hop2: utilization"``); the metric picks the rule.
    """
    if metric not in TOLERANCES:
        raise BufferLabError(f"no tolerance defined for metric {metric!r}")
    rule = TOLERANCES[metric]
    label = label or metric
    ours_f = float("nan") if ours is None else float(ours)
    ref_f = float("nan") if ref is None else float(ref)
    if rule is None:
        return Row(label, ours_f, ref_f, ours_f - ref_f, "-", "-")
    if math.isnan(ours_f) or math.isnan(ref_f):
        return Row(label, ours_f, ref_f, float("nan"), "-", "fail")
    d, tol, ok = rule(ours_f, ref_f)
    return Row(label, ours_f, ref_f, d, tol, "pass" if ok else "fail")


def compare_summaries(ours: Dict[str, Any], ref: Dict[str, Any], *, ecn: bool = False) -> List[Row]:
    """Rows for every compared summary metric; the mark rate only when the scenario marks (``ecn``)."""
    rows = []
    for metric in TOLERANCES:
        if metric == "goodput_share" or (metric == "mark_rate" and not ecn):
            continue
        if metric not in ours or metric not in ref:
            nan = float("nan")
            a, r = float(ours.get(metric, nan)), float(ref.get(metric, nan))
            rows.append(Row(metric, a, r, nan, "-", "fail" if TOLERANCES[metric] else "-"))
            continue
        rows.append(check(metric, ours[metric], ref[metric]))
    return rows


#: The rows of each link when a scenario has several.
PORT_METRICS = ("utilization", "loss_rate", "mark_rate", "queue_mean_pkts", "queue_p99_pkts", "delay_mean_s")


def _by_name(rows: Sequence[Dict[str, Any]] | None) -> Dict[str, Dict[str, Any]]:
    return {str(r["name"]): r for r in rows or ()}


def compare_network(ours: Dict[str, Any], ref: Dict[str, Any], *, marking: Sequence[str] = ()) -> List[Row]:
    """Rows of a scenario with several links or groups.

    ``ours``/``ref`` are summaries with ``ports`` and ``groups`` lists (one dict per link and per group, as
    the engine's ``Results.ports``/``Results.groups``); ``marking`` names the links whose RED marks. One
    link: the summary rows. Several: each link's rows, then Jain's index over all flows and the total
    goodput. Several groups: each group's goodput share, Jain's index and goodput.
    """
    ports_o, ports_r = _by_name(ours.get("ports")), _by_name(ref.get("ports"))
    names = list(ports_r) or list(ports_o)
    if len(names) <= 1:
        rows = compare_summaries(ours, ref, ecn=bool(marking))
    else:
        rows = []
        for name in names:
            o, r = ports_o.get(name, {}), ports_r.get(name, {})
            for metric in PORT_METRICS:
                if metric == "mark_rate" and name not in marking:
                    continue
                rows.append(check(metric, o.get(metric), r.get(metric), f"{name}: {metric}"))
        for metric in ("jain_index", "goodput_bps"):
            rows.append(check(metric, ours.get(metric), ref.get(metric)))
    groups_o, groups_r = _by_name(ours.get("groups")), _by_name(ref.get("groups"))
    if len(groups_r) > 1:
        total_o = sum(float(g.get("goodput_bps") or 0.0) for g in groups_o.values())
        total_r = sum(float(g.get("goodput_bps") or 0.0) for g in groups_r.values())
        for name, r in groups_r.items():
            o = groups_o.get(name, {})
            share_o = float(o.get("goodput_bps") or 0.0) / total_o if total_o > 0 else float("nan")
            share_r = float(r.get("goodput_bps") or 0.0) / total_r if total_r > 0 else float("nan")
            rows.append(check("goodput_share", share_o, share_r, f"{name}: goodput share"))
            rows.append(check("jain_index", o.get("jain_index"), r.get("jain_index"), f"{name}: jain_index"))
            rows.append(check("goodput_bps", o.get("goodput_bps"), r.get("goodput_bps"),
                              f"{name}: goodput_bps"))
    return rows


@dataclass
class Comparison:
    """Everything about one scenario's comparison (the report is written from it)."""

    name: str
    scenario: Dict[str, Any]
    rows: List[Row] = field(default_factory=list)
    engine: Dict[str, Any] | None = None
    ns3: Dict[str, Any] | None = None
    engine_wall_s: float | None = None
    ns3_wall_s: float | None = None
    engine_queue: Any = None  # (time_s, queue_pkts) arrays
    ns3_queue: Any = None
    engine_goodput: Any = None  # per-flow goodput arrays (bits/s)
    ns3_goodput: Any = None
    notes: List[str] = field(default_factory=list)
    skipped: str | None = None
    #: the ns-3 configuration (``ns3sim.translate``): links, groups, flow count, warm-up
    config: Dict[str, Any] | None = None

    @property
    def verdict(self) -> str:
        if self.skipped:
            return "skipped"
        if not self.rows:
            return "ns-3 only"
        return "pass" if all(r.passed for r in self.rows) else "fail"

    @property
    def speed_ratio(self) -> float | None:
        if self.engine_wall_s and self.ns3_wall_s:
            return self.ns3_wall_s / self.engine_wall_s
        return None

    @property
    def flow_count(self) -> int | None:
        return None if self.config is None else int(self.config["flows_total"])


def marking_links(cfg: Dict[str, Any]) -> List[str]:
    """Links whose discipline marks ECN-capable packets (their mark rate is compared)."""
    return [lk["name"] for lk in cfg["links"] if lk["queue"].get("ecn")]


def _engine_run(scenario: Dict[str, Any]) -> Any:
    try:
        import bufferlab  # noqa: PLC0415

        run = bufferlab.run
    except (ImportError, AttributeError) as exc:
        raise BufferLabError(
            "the BufferLab engine is not available (build it with `pip install .`); "
            "use --ns3-only to run ns-3 alone"
        ) from exc
    try:
        return run(scenario, progress=False)
    except TypeError:
        return run(scenario)


def _column(df: Any, name: str) -> List[float] | None:
    if df is None or name not in getattr(df, "columns", ()):
        return None
    return [float(x) for x in df[name].to_numpy()]


def _records(df: Any) -> List[Dict[str, Any]]:
    if df is None or not len(getattr(df, "columns", ())):
        return []
    keep = [c for c in df.columns if c not in ("drop_reasons", "mark_reasons", "route", "ack_route")]
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in df[keep].to_dict(orient="records")]


def _mean_rows(rows: Sequence[Sequence[Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """Per-name rows (links, groups) averaged over replications, numeric fields only."""
    out = []
    for i in range(len(rows[0])):
        same = [r[i] for r in rows if i < len(r)]
        out.append(_mean_summary(same))
    return out


def _mean_summary(runs: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Every numeric field averaged over replications (``ports``/``groups`` row by row); others from the
    first."""
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            vals = [float(r[key]) for r in runs if r.get(key) is not None]
            out[key] = float(np.mean(vals)) if vals else None
        elif key in ("ports", "groups") and isinstance(value, list):
            out[key] = _mean_rows([r.get(key) or [] for r in runs])
    return out


def compare_replicated(scenario: Dict[str, Any], replications: int, **kwargs: Any) -> Comparison:
    """:func:`compare_scenario` over seeds ``seed, seed+1, ...``; verdicts on the means of both simulators.

    Fairness and loss among a few flows under DropTail depend on phase effects that change with every
    seed; the mean of several independent runs is the statistic both simulators should agree on.
    """
    if replications <= 1:
        return compare_scenario(scenario, **kwargs)
    seed = int(scenario.get("seed", 1))
    comps = [compare_scenario({**scenario, "seed": seed + k}, **kwargs) for k in range(replications)]
    first = comps[0]
    if first.skipped:
        return first
    merged = Comparison(name=first.name, scenario=scenario, engine_queue=first.engine_queue,
                        ns3_queue=first.ns3_queue, notes=list(first.notes), config=first.config)
    merged.ns3 = _mean_summary([c.ns3 for c in comps])
    merged.ns3_wall_s = float(sum(c.ns3_wall_s or 0.0 for c in comps))
    merged.ns3_goodput = [g for c in comps for g in (c.ns3_goodput or [])]
    if first.engine is not None:
        merged.engine = _mean_summary([c.engine for c in comps])
        merged.engine_wall_s = float(sum(c.engine_wall_s or 0.0 for c in comps))
        merged.engine_goodput = [g for c in comps for g in (c.engine_goodput or [])]
        merged.rows = compare_network(merged.engine, merged.ns3, marking=marking_links(first.config or {}))
    spread = {
        m: (float(np.std([c.engine[m] for c in comps])) if first.engine is not None else float("nan"),
            float(np.std([c.ns3[m] for c in comps])))
        for m in ("utilization", "loss_rate", "jain_index")
    }
    merged.notes.append(
        f"means of {replications} replications (seeds {seed}..{seed + replications - 1}); standard deviation "
        "across them, BufferLab / ns-3: "
        + ", ".join(f"{m} {a:.3g} / {b:.3g}" for m, (a, b) in spread.items())
        + (" (first link)" if len((first.config or {}).get("links", [])) > 1 else "")
    )
    return merged


def compare_scenario(
    scenario: Dict[str, Any],
    *,
    ns3_only: bool = False,
    isolate: bool = False,
    engine_runner: Callable[[Dict[str, Any]], Any] | None = None,
    ns3_runner: Callable[..., Dict[str, Any]] | None = None,
) -> Comparison:
    """Run ``scenario`` in both simulators. Both read it through the engine's resolver, so ns-3 runs the
    engine's own per-flow RTTs, start times and access rates.

    ``engine_runner``/``ns3_runner`` replace :func:`bufferlab.run` / :func:`ns3sim.run_ns3` (tests).
    """
    name = str(scenario.get("name", "scenario"))
    comp = Comparison(name=name, scenario=scenario)
    try:
        comp.config = ns3sim.translate(scenario)
    except ns3sim.Ns3Unavailable:
        raise
    except BufferLabError as exc:
        # e.g. an AQM ns-3 does not have: say so, never pass silently.
        comp.skipped = str(exc)
        return comp
    if not ns3_only:
        runner = engine_runner or _engine_run
        t = time.perf_counter()
        res = runner(scenario)
        comp.engine_wall_s = time.perf_counter() - t
        summary = dict(getattr(res, "summary", {}) or {})
        summary["ports"] = _records(getattr(res, "ports", None))
        summary["groups"] = _records(getattr(res, "groups", None))
        comp.engine = summary
        if getattr(res, "wall_s", None):
            comp.engine_wall_s = float(res.wall_s)  # the engine's own timing of its run
        elif "wall_s" in summary:
            comp.engine_wall_s = float(summary["wall_s"])
        comp.engine_goodput = _column(getattr(res, "flows", None), "goodput_bps")
        qs = getattr(res, "queue_series", None)
        if qs is not None and len(qs):
            comp.engine_queue = (np.asarray(qs["time_s"], float), np.asarray(qs["queue_pkts"], float))
    nrun = ns3_runner or (ns3sim.run_ns3_isolated if isolate else ns3sim.run_ns3)
    ref = nrun(scenario)
    comp.ns3 = ref
    comp.ns3_wall_s = float(ref["wall_s"])
    comp.ns3_goodput = [f["goodput_bps"] for f in ref.get("flows", [])]
    if ref.get("queue_series"):
        comp.ns3_queue = (np.asarray(ref["queue_series"]["time_s"], float),
                          np.asarray(ref["queue_series"]["queue_pkts"], float))
    comp.notes.extend(ref.get("ns3_config", {}).get("notes", []))
    if comp.engine is not None:
        comp.rows = compare_network(comp.engine, ref, marking=marking_links(comp.config))
    return comp


# --------------------------------------------------------------------------------------------------
# figures and tables
# --------------------------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 1e5 or ax < 1e-3:
        return f"{x:.3e}"
    return f"{x:.4g}"


def table_markdown(comp: Comparison) -> str:
    """The comparison table (metric, bufferlab, ns-3, difference, tolerance, verdict) as Markdown."""
    lines = ["| metric | bufferlab | ns-3 | difference | tolerance | verdict |", "|---|---|---|---|---|---|"]
    if comp.rows:
        for r in comp.rows:
            lines.append(f"| {r.metric} | {_fmt(r.bufferlab)} | {_fmt(r.ns3)} | {_fmt(r.difference)} | "
                         f"{r.tolerance} | {r.verdict} |")
    elif comp.ns3:
        for metric in TOLERANCES:
            if metric in comp.ns3:
                lines.append(f"| {metric} | - | {_fmt(comp.ns3[metric])} | - | - | - |")
    return "\n".join(lines)


def plot_queue(comp: Comparison, path: Path) -> Path | None:
    """Queue length over time from both simulators."""
    if comp.engine_queue is None and comp.ns3_queue is None:
        return None
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(8, 3.2))
    if comp.ns3_queue is not None:
        ax.plot(comp.ns3_queue[0], comp.ns3_queue[1], lw=0.7, label="ns-3", color="tab:orange")
    if comp.engine_queue is not None:
        ax.plot(comp.engine_queue[0], comp.engine_queue[1], lw=0.7, label="BufferLab", color="tab:blue")
    if comp.config is not None:
        ax.axvline(comp.config["warmup_s"], color="grey", ls=":", lw=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets waiting)")
    links = (comp.config or {}).get("links", [])
    ax.set_title(comp.name + (f" (link {links[0]['name']})" if len(links) > 1 else ""), fontsize=9)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_goodput(comp: Comparison, path: Path) -> Path | None:
    """Per-flow goodput distribution (empirical CDF) from both simulators."""
    if not comp.ns3_goodput and not comp.engine_goodput:
        return None
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for data, label, color in ((comp.ns3_goodput, "ns-3", "tab:orange"),
                               (comp.engine_goodput, "BufferLab", "tab:blue")):
        if data:
            x = np.sort(np.asarray(data, float)) / 1e6
            y = np.arange(1, len(x) + 1) / len(x)
            ax.step(x, y, where="post", label=label, color=color)
    ax.set_xlabel("per-flow goodput (Mb/s)")
    ax.set_ylabel("fraction of flows")
    ax.set_title(comp.name, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def goodput_quantiles(values: Sequence[float] | None) -> str:
    if not values:
        return "n/a"
    q = np.percentile(np.asarray(values, float) / 1e6, [0, 10, 50, 90, 100])
    return " / ".join(f"{v:.3g}" for v in q)
