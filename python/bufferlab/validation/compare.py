"""Run one scenario in BufferLab and in ns-3 and compare them against fixed tolerances.

Tolerances (issue "Agree with ns-3"), measured against the ns-3 value (its mean over replications):

* utilization: within 2 percentage points (absolute 0.02);
* loss rate: within 25 % relative, or 0.002 absolute when both rates are below 1 %;
* ECN mark rate: the loss-rate rule (it is the same signal, delivered by marking instead of dropping);
* mean queue length: within 15 % relative;
* Jain's index: within 0.03 absolute;
* a group's share of the total goodput (scenarios with several groups): within 0.03 absolute;
* the RTT-unfairness exponent k of goodput ∝ RTT^-k: within 0.1 absolute where the RTTs spread by 10:1 or
  more (shown without a verdict from 2:1).

Over replications a metric passes when the 95 % confidence interval of the difference of the two means lies
inside the tolerance band, fails when it lies entirely outside, and is inconclusive otherwise
(:func:`compare_replicated` then runs more seeds, up to a cap). The runs come in pairs: seed s gives both
simulators the same per-flow draws (start times, RTTs, access rates, through the engine's resolver), so the
interval is the paired one (Student's t on the per-seed differences), in which what the draws decide
cancels. Each row also keeps the unpaired reading (Welch's interval of two independent samples) and the
report names every row whose verdict it would change.

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
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from bufferlab import jsonout
from bufferlab.errors import BufferLabError
from bufferlab.plots import save_figure
from bufferlab.reproduce.verdicts import DIFFERS, HOLDS, region_result
from bufferlab.stats import CONFIDENCE, Interval, paired_interval, welch_interval  # noqa: F401 (re-exported)
from bufferlab.validation import ns3sim
from bufferlab.validation.translate import engine_held_to_send_buffer, send_buffer_windows


@dataclass
class Row:
    """One line of a comparison table.

    ``bufferlab`` and ``ns3`` are means over the replications, ``difference`` their difference and
    ``ci_low``/``ci_high`` its 95 % confidence interval (paired over seeds when both sides have the same
    seeds, else Welch's); ``band`` is the tolerance's half-width around zero. A single run (or a metric
    without spread) gives an interval of width zero. ``welch_low``/``welch_high``/``welch_verdict`` are the
    unpaired reading of the same values.
    """

    metric: str
    bufferlab: float
    ns3: float
    difference: float
    tolerance: str
    verdict: str  # "pass", "fail", "inconclusive" or "-" (informational)
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    band: float = float("nan")
    n_bufferlab: int = 1
    n_ns3: int = 1
    #: the metric's key in :data:`TOLERANCES` (``metric`` may carry a link or group prefix)
    key: str = ""
    welch_low: float = float("nan")
    welch_high: float = float("nan")
    welch_verdict: str = "-"

    @property
    def passed(self) -> bool:
        """Pass or informational; an inconclusive row does not pass."""
        return self.verdict in ("pass", "-")


#: A tolerance: (BufferLab mean, ns-3 mean) -> (half-width of the band around zero, its description).
Band = Callable[[float, float], Tuple[float, str]]


def _abs_band(tol: float) -> Band:
    def band(ours: float, ref: float) -> Tuple[float, str]:
        return tol, f"±{tol:g} abs"

    return band


def _rel_band(tol: float) -> Band:
    def band(ours: float, ref: float) -> Tuple[float, str]:
        return tol * abs(ref), f"±{tol:.0%} rel"

    return band


def _rate_band(ours: float, ref: float) -> Tuple[float, str]:
    """Loss (or mark) rate: 25 % of ns-3's, or 0.002 absolute when both are below 1 %."""
    if max(ours, ref) < 0.01:
        return 0.002, "±0.002 abs (<1%)"
    return 0.25 * abs(ref), "±25% rel"


#: Timeouts per flow per second: this absolute band when it is wider than 25 % of ns-3's mean (one timeout
#: per flow in 500 s; below it a run has a few timeouts and their seed-to-seed noise decides nothing).
TIMEOUT_RATE_FLOOR = 0.002


def _timeout_band(ours: float, ref: float) -> Tuple[float, str]:
    """Timeouts per flow per second: 25 % of ns-3's, or :data:`TIMEOUT_RATE_FLOOR` if that is larger."""
    if 0.25 * abs(ref) < TIMEOUT_RATE_FLOOR:
        return TIMEOUT_RATE_FLOOR, f"±{TIMEOUT_RATE_FLOOR:g} abs (floor)"
    return 0.25 * abs(ref), "±25% rel"


#: metric -> band; metrics with None are shown without a verdict. Relative bands are relative to the
#: ns-3 mean.
TOLERANCES: Dict[str, Band | None] = {
    "utilization": _abs_band(0.02),
    "loss_rate": _rate_band,
    "mark_rate": _rate_band,
    "queue_mean_pkts": _rel_band(0.15),
    "jain_index": _abs_band(0.03),
    "goodput_share": _abs_band(0.03),
    "timeouts_per_flow_s": _timeout_band,
    "rtt_exponent": _abs_band(0.1),
    "rtt_exponent_narrow": None,  # RTTs spread by less than RTT_SPREAD_VERDICT: shown, no verdict
    "queue_p99_pkts": None,
    "delay_mean_s": None,
    "goodput_bps": None,
}

#: Rounding slack of the comparisons of an interval's ends with the band.
_EPS = 1e-12


def interval_verdict(low: float, high: float, band: float) -> str:
    """``pass`` when [low, high] lies inside [-band, band], ``fail`` when entirely outside, else
    ``inconclusive``: the reproductions' rule (:func:`bufferlab.reproduce.verdicts.region_result`) with the
    band, widened by the rounding slack, as the region."""
    result = region_result(low, high, "between", (-band - _EPS, band + _EPS))
    return {HOLDS: "pass", DIFFERS: "fail"}.get(result, "inconclusive")


def _finite(values: Sequence[Any]) -> List[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def _pairs(ours: Sequence[Any], ref: Sequence[Any]) -> Tuple[List[float], List[float]] | None:
    """The matched pairs of ``ours`` and ``ref`` (replication i of each) where both are defined, if the two
    have one value per replication and two or more such pairs."""
    if len(ours) != len(ref):
        return None
    kept = [(float(x), float(y)) for x, y in zip(ours, ref) if len(_finite([x, y])) == 2]
    if len(kept) < 2:
        return None
    return [x for x, _ in kept], [y for _, y in kept]


def check_replicated(metric: str, ours: Sequence[Any], ref: Sequence[Any], label: str | None = None,
                     *, paired: bool = True) -> Row:
    """One table row from per-replication values: BufferLab's ``ours`` against ns-3's ``ref``, replication
    i of each from the same seed.

    Undefined values (None, NaN) are left out; a side with none fails a metric that has a tolerance. With
    ``paired`` and one value per replication on both sides the interval is the paired one over the
    replications where both are defined, else Welch's; the row keeps Welch's reading beside it. The band is
    the metric's tolerance at the two means (relative tolerances relative to ns-3's mean).
    """
    if metric not in TOLERANCES:
        raise BufferLabError(f"no tolerance defined for metric {metric!r}")
    rule = TOLERANCES[metric]
    label = label or metric
    a, b = _finite(ours), _finite(ref)
    if not a or not b:
        nan = float("nan")
        return Row(label, float(np.mean(a)) if a else nan, float(np.mean(b)) if b else nan, nan, "-",
                   "fail" if rule else "-", n_bufferlab=len(a), n_ns3=len(b), key=metric)
    welch = welch_interval(a, b)
    pairs = _pairs(ours, ref) if paired else None
    iv = paired_interval(*pairs) if pairs is not None else welch
    row = Row(label, iv.mean_a, iv.mean_b, iv.difference, "-", "-", iv.low, iv.high,
              n_bufferlab=iv.n_a, n_ns3=iv.n_b, key=metric, welch_low=welch.low, welch_high=welch.high)
    if rule is not None:
        row.band, row.tolerance = rule(iv.mean_a, iv.mean_b)
        row.verdict = interval_verdict(iv.low, iv.high, row.band)
        welch_band, _ = rule(welch.mean_a, welch.mean_b)
        row.welch_verdict = interval_verdict(welch.low, welch.high, welch_band)
    return row


def check(metric: str, ours: float | None, ref: float | None, label: str | None = None) -> Row:
    """One table row from one run of each: ``ours`` (BufferLab) against ``ref`` (ns-3) under the metric's
    tolerance (a point comparison: the interval has width zero).

    ``label`` names the row (``"hop2: utilization"``); the metric picks the rule.
    """
    return check_replicated(metric, [ours], [ref], label)


def rtt_exponent(rtt_s: Sequence[float], goodput_bps: Sequence[float]) -> float | None:
    """k of goodput ∝ RTT^-k, by least squares on log goodput against log RTT over the flows with
    positive goodput; None with fewer than 3 such flows or RTTs spanning less than a factor of 2 (the slope
    would be noise). A flow with no goodput has no logarithm: callers count those separately."""
    pts = [(math.log(r), math.log(g)) for r, g in zip(rtt_s, goodput_bps)
           if r is not None and g is not None and r > 0 and g > 0]
    if len(pts) < 3:
        return None
    x = np.array([p[0] for p in pts])
    if x.max() - x.min() < math.log(2.0):
        return None
    y = np.array([p[1] for p in pts])
    slope = float(np.polyfit(x, y, 1)[0])
    return -slope


def compare_summaries(ours: Dict[str, Any], ref: Dict[str, Any], *, ecn: bool = False) -> List[Row]:
    """Rows for every compared summary metric; the mark rate only when the scenario marks (``ecn``)."""
    rows = []
    for metric in TOLERANCES:
        if metric in ("goodput_share", "rtt_exponent", "rtt_exponent_narrow", "timeouts_per_flow_s") or (
                metric == "mark_rate"
                                                                                  and not ecn):
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
    engine_rtt: Any = None  # per-flow RTTs (s), in the order of the goodputs
    ns3_rtt: Any = None
    notes: List[str] = field(default_factory=list)
    skipped: str | None = None
    #: the ns-3 configuration (``ns3sim.translate``): links, groups, flow count, warm-up
    config: Dict[str, Any] | None = None
    #: replications run in each simulator (seeds ``seed .. seed + replications - 1``)
    replications: int = 1

    @property
    def verdict(self) -> str:
        """``fail`` if any row fails, else ``inconclusive`` if any is, else ``pass``."""
        if self.skipped:
            return "skipped"
        if not self.rows:
            return "ns-3 only"
        verdicts = {r.verdict for r in self.rows}
        return "fail" if "fail" in verdicts else "inconclusive" if "inconclusive" in verdicts else "pass"

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
    """The engine's run of ``scenario`` held to the send buffer ns-3 gets (see
    :func:`bufferlab.validation.translate.engine_held_to_send_buffer`)."""
    scenario = engine_held_to_send_buffer(scenario, ns3sim.translate(scenario))
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


#: RTTs must span at least this factor for the RTT-unfairness exponent to be shown, and this one for it
#: to have a verdict: a per-run slope over a narrower spread is too noisy for its ±0.1 (with RTTs drawn from
#: 50-150 ms, 10 flows, its standard deviation from seed to seed is about 0.5).
RTT_SPREAD_MIN, RTT_SPREAD_VERDICT = 2.0, 10.0


def rtt_spread(cfg: Dict[str, Any] | None) -> float:
    """Largest over smallest RTT among a scenario's flows (1 without a configuration)."""
    rtts = [r for g in (cfg or {}).get("groups", []) for r in g["flows"]["rtt_s"]]
    return max(rtts) / min(rtts) if rtts and min(rtts) > 0 else 1.0


def timeouts_per_flow_s(summary: Dict[str, Any] | None, cfg: Dict[str, Any] | None) -> float | None:
    """Retransmission timeouts inside the measurement window per flow per second (``window_timeouts`` of
    either simulator's summary, over the configuration's flows and window); None when unknown."""
    if not summary or not cfg or summary.get("window_timeouts") is None:
        return None
    flow_seconds = int(cfg["flows_total"]) * (float(cfg["duration_s"]) - float(cfg["warmup_s"]))
    return float(summary["window_timeouts"]) / flow_seconds if flow_seconds > 0 else None


def run_rows(comp: Comparison) -> List[Row]:
    """The rows of one run of each simulator: :func:`compare_network`, the timeouts per flow per second,
    then the RTT-unfairness exponent when the scenario's RTTs spread by :data:`RTT_SPREAD_MIN` or more."""
    rows = compare_network(comp.engine or {}, comp.ns3 or {}, marking=marking_links(comp.config or {}))
    timeouts = (timeouts_per_flow_s(comp.engine, comp.config), timeouts_per_flow_s(comp.ns3, comp.config))
    if timeouts != (None, None):  # one side alone fails the row
        rows.append(check("timeouts_per_flow_s", *timeouts))
    spread = rtt_spread(comp.config)
    if spread >= RTT_SPREAD_MIN:
        key = "rtt_exponent" if spread >= RTT_SPREAD_VERDICT * (1 - 1e-9) else "rtt_exponent_narrow"
        rows.append(check(key, rtt_exponent(comp.engine_rtt or [], comp.engine_goodput or []),
                          rtt_exponent(comp.ns3_rtt or [], comp.ns3_goodput or []), "rtt_exponent"))
    return rows


def replicated_rows(comps: Sequence[Comparison]) -> List[Row]:
    """Rows over replications: each run's value of every row (by label, in the first run's order) into
    :func:`check_replicated`."""
    keys: Dict[str, str] = {}
    values: Dict[str, tuple[List[float], List[float]]] = {}
    for c in comps:
        for r in c.rows:
            keys.setdefault(r.metric, r.key)
            ours, ref = values.setdefault(r.metric, ([], []))
            ours.append(r.bufferlab)
            ref.append(r.ns3)
    return [check_replicated(keys[label], ours, ref, label) for label, (ours, ref) in values.items()]


#: Replications added per batch while a verdict is inconclusive, as a fraction of the initial count.
BATCH_FRACTION = 0.5
#: Default cap on replications: this many times the initial count.
CAP_FACTOR = 3


def replication_cap(initial: int, requested: int | None = None) -> int:
    """The most replications a scenario may run: ``requested`` if given, else :data:`CAP_FACTOR` × the
    initial count; never below the initial count."""
    if requested is not None and requested < 1:
        raise BufferLabError(f"--max-replications must be >= 1 (got {requested})")
    return max(initial, requested if requested is not None else CAP_FACTOR * initial)


def compare_replicated(
    scenario: Dict[str, Any],
    replications: int,
    *,
    max_replications: int | None = None,
    time_budget_s: float | None = None,
    log: Callable[[str], None] | None = None,
    pool: Any = None,
    cache: Any = None,
    progress: Callable[[int, int], None] | None = None,
    **kwargs: Any,
) -> Comparison:
    """:func:`compare_scenario` over seeds ``seed, seed+1, ...``, with statistical verdicts.

    Every metric's verdict compares the 95 % confidence interval of the difference of the two simulators'
    means (paired over the seeds) with its tolerance band (:func:`check_replicated`). While a verdict is
    inconclusive and none has failed, batches of ``ceil(replications / 2)`` more seeds (continuing the
    sequence) run in both simulators, up to :func:`replication_cap` replications and, once ``time_budget_s``
    seconds have passed since the scenario started, no further batch. The seeds and so the verdicts depend
    only on the scenario and these limits, not on timing, unless the time budget ends the extension.

    With a ``pool`` (:class:`bufferlab.validation.pool.Ns3Pool`) a batch's ns-3 runs all start in its
    workers while the engine runs the same seeds here; the results are the same as without one. With a
    ``cache`` (:class:`bufferlab.validation.cache.Ns3RunCache`) ns-3 runs stored earlier are read back
    instead of run, and every new one is stored as soon as it finishes. ``progress(done, planned)`` is
    called after each seed's comparison.
    """
    if replications < 1:
        raise BufferLabError(f"--replications must be >= 1 (got {replications})")
    cap = replication_cap(replications, max_replications)
    step = max(1, math.ceil(replications * BATCH_FRACTION))
    seed = int(scenario.get("seed", 1))
    started = time.perf_counter()
    comps: List[Comparison] = []

    def run_more(count: int) -> None:
        batch = [{**scenario, "seed": seed + len(comps) + k} for k in range(count)]
        # Where ns-3 cannot take the scenario, compare_scenario reports it as skipped without running either.
        translatable = [_translates(sc) for sc in batch]
        engine_runs = [None] * count
        if pool is not None and not kwargs.get("ns3_only"):
            # The engine's runs first, while the pool's workers are idle, so that its timings are its own.
            engine = kwargs.get("engine_runner") or _engine_run
            engine_runs = [engine_ready(engine, sc) if ok else None for sc, ok in zip(batch, translatable)]
        runners = [ns3_source(sc) if ok else base_runner for sc, ok in zip(batch, translatable)]
        planned = len(comps) + count
        for sc, run, ready in zip(batch, runners, engine_runs):
            kw = kwargs if ready is None else {**kwargs, "engine_runner": lambda _sc, r=ready: r}
            comps.append(compare_scenario(sc, ns3_runner=run, **kw))
            if progress:
                progress(len(comps), planned)

    def engine_ready(engine: Callable[[Dict[str, Any]], Any], sc: Dict[str, Any]) -> Any:
        """The engine's result with its own timing (``wall_s``)."""
        started_at = time.perf_counter()
        res = engine(sc)
        if not getattr(res, "wall_s", None):
            try:
                res.wall_s = time.perf_counter() - started_at
            except AttributeError:
                pass
        return res

    base_runner = kwargs.pop("ns3_runner", None) or (
        ns3sim.run_ns3_isolated if kwargs.get("isolate") else ns3sim.run_ns3)

    def ns3_source(sc: Dict[str, Any]) -> Callable[[Dict[str, Any]], Dict[str, Any]]:
        """Where one seed's ns-3 result comes from: the cache, the pool (started at once) or a run here."""
        stored = cache.get(sc) if cache is not None else None
        if stored is not None:
            return lambda _sc: stored
        if pool is None:
            if cache is None:
                return base_runner
            return lambda s: cache.put(s, base_runner(s))
        fut = pool.submit(sc)
        if cache is None:
            return lambda _sc: fut.result()
        fut.add_done_callback(
            lambda f: f.cancelled() or f.exception() is not None or cache.put(sc, f.result()))
        return lambda _sc: jsonout.json_ready(fut.result())

    run_more(replications)
    first = comps[0]
    if first.skipped or replications == 1:
        return first  # one run: point verdicts (an interval of width zero), nothing to extend
    budget_note = ""
    while first.engine is not None:
        rows = replicated_rows(comps)
        verdicts = {r.verdict for r in rows}
        if "fail" in verdicts or "inconclusive" not in verdicts or len(comps) >= cap:
            break
        if time_budget_s is not None and time.perf_counter() - started >= time_budget_s:
            budget_note = f"; the time budget of {time_budget_s:g} s ended the extension"
            break
        count = min(step, cap - len(comps))
        if log:
            undecided = ", ".join(r.metric for r in rows if r.verdict == "inconclusive")
            log(f"inconclusive after {len(comps)} replications ({undecided}): {count} more")
        run_more(count)
    n = len(comps)
    merged = Comparison(name=first.name, scenario=scenario, engine_queue=first.engine_queue,
                        ns3_queue=first.ns3_queue, notes=list(first.notes), config=first.config,
                        replications=n)
    merged.ns3 = _mean_summary([c.ns3 for c in comps])
    merged.ns3_wall_s = float(sum(c.ns3_wall_s or 0.0 for c in comps))
    merged.ns3_goodput = [g for c in comps for g in (c.ns3_goodput or [])]
    merged.ns3_rtt = [r for c in comps for r in (c.ns3_rtt or [])]
    if first.engine is not None:
        merged.engine = _mean_summary([c.engine for c in comps])
        merged.engine_wall_s = float(sum(c.engine_wall_s or 0.0 for c in comps))
        merged.engine_goodput = [g for c in comps for g in (c.engine_goodput or [])]
        merged.engine_rtt = [r for c in comps for r in (c.engine_rtt or [])]
        merged.rows = replicated_rows(comps)
    if n > replications or budget_note:
        merged.notes.append(f"inconclusive after {replications} replications: extended to {n} (cap {cap})"
                            + budget_note)
    spread = {
        m: (float(np.std([c.engine[m] for c in comps])) if first.engine is not None else float("nan"),
            float(np.std([c.ns3[m] for c in comps])))
        for m in ("utilization", "loss_rate", "jain_index")
    }
    merged.notes.append(
        f"means of {n} replications (seeds {seed}..{seed + n - 1}); standard deviation "
        "across them, BufferLab / ns-3: "
        + ", ".join(f"{m} {a:.3g} / {b:.3g}" for m, (a, b) in spread.items())
        + (" (first link)" if len((first.config or {}).get("links", [])) > 1 else "")
    )
    if rtt_spread(first.config) >= RTT_SPREAD_MIN:
        idle = [sum(1 for g in (gp or []) if not g or g <= 0) for c in comps
                for gp in (c.engine_goodput, c.ns3_goodput)]
        if any(idle):
            merged.notes.append(
                "rtt_exponent: flows without goodput left out of the fit (BufferLab / ns-3, over all runs): "
                f"{sum(idle[0::2])} / {sum(idle[1::2])}")
    return merged


def _translates(scenario: Dict[str, Any]) -> bool:
    """Whether ns-3 can run ``scenario`` (:func:`ns3sim.translate` accepts it)."""
    try:
        ns3sim.translate(scenario)
    except ns3sim.Ns3Unavailable:
        raise
    except BufferLabError:
        return False
    return True


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
        held = [f"{field}: {n} segments" for field, n in send_buffer_windows(comp.config).items()]
        if held:
            comp.notes.append("the engine's flows are held to the send buffer ns-3 needs (at most this "
                              "many segments outstanding; translate.engine_held_to_send_buffer): "
                              + ", ".join(held))
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
        comp.engine_rtt = _column(getattr(res, "flows", None), "rtt_s")
        qs = getattr(res, "queue_series", None)
        if qs is not None and len(qs):
            comp.engine_queue = (np.asarray(qs["time_s"], float), np.asarray(qs["queue_pkts"], float))
    nrun = ns3_runner or (ns3sim.run_ns3_isolated if isolate else ns3sim.run_ns3)
    ref = nrun(scenario)
    comp.ns3 = ref
    comp.ns3_wall_s = float(ref["wall_s"])
    comp.ns3_goodput = [f["goodput_bps"] for f in ref.get("flows", [])]
    comp.ns3_rtt = [f.get("rtt_s") for f in ref.get("flows", [])]
    if ref.get("queue_series"):
        comp.ns3_queue = (np.asarray(ref["queue_series"]["time_s"], float),
                          np.asarray(ref["queue_series"]["queue_pkts"], float))
    comp.notes.extend(ref.get("ns3_config", {}).get("notes", []))
    if comp.engine is not None:
        comp.rows = run_rows(comp)
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


def _interval(r: Row) -> str:
    if math.isnan(r.ci_low) or math.isnan(r.ci_high):
        return "n/a"
    return f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]"


def _band(r: Row) -> str:
    if "rel" not in r.tolerance or math.isnan(r.band):
        return r.tolerance
    return f"{r.tolerance} (±{_fmt(r.band)})"


def table_markdown(comp: Comparison) -> str:
    """The comparison table as Markdown: each metric's means, their difference with its 95 % interval,
    the tolerance (with its half-width when relative), the replications behind each mean and the
    verdict."""
    lines = ["| metric | bufferlab | ns-3 | difference | 95% interval | tolerance | runs | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    if comp.rows:
        for r in comp.rows:
            runs = f"{r.n_bufferlab}" if r.n_bufferlab == r.n_ns3 else f"{r.n_bufferlab} / {r.n_ns3}"
            lines.append(f"| {r.metric} | {_fmt(r.bufferlab)} | {_fmt(r.ns3)} | {_fmt(r.difference)} | "
                         f"{_interval(r)} | {_band(r)} | {runs} | {r.verdict} |")
        flips = [r for r in comp.rows if r.welch_verdict != r.verdict and r.welch_verdict != "-"]
        if flips:
            other = "; ".join(f"{r.metric} {r.welch_verdict} ([{_fmt(r.welch_low)}, {_fmt(r.welch_high)}])"
                              for r in flips)
            lines += ["", "Read as two independent samples (Welch's interval) instead of pairs of runs with "
                      f"the same seed, the verdict would differ: {other}."]
    elif comp.ns3:
        for metric in TOLERANCES:
            if metric in comp.ns3:
                lines.append(f"| {metric} | - | {_fmt(comp.ns3[metric])} | - | - | - | - | - |")
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
    return save_figure(fig, path.parent, path.stem, dpi=110, field="--out", formats=(path.suffix[1:],),
                       tight=True)[0]


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
    return save_figure(fig, path.parent, path.stem, dpi=110, field="--out", formats=(path.suffix[1:],),
                       tight=True)[0]


def goodput_quantiles(values: Sequence[float] | None) -> str:
    if not values:
        return "n/a"
    q = np.percentile(np.asarray(values, float) / 1e6, [0, 10, 50, 90, 100])
    return " / ".join(f"{v:.3g}" for v in q)
