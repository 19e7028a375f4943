"""``bufferlab advise ... --verify``: each sizing rule's buffer simulated, against what the models predict.

The advised link is simulated as a dumbbell: N long-lived NewReno/SACK flows with RTTs uniform in
[0.9, 1.1] × RTT (a spread, so that the flows do not synchronise as identical RTTs would), starting in the
first tenth of the run, the window capped at W_max (the advisor's assumption), packets of the advised size,
access links ten times the bottleneck's rate, through a DropTail buffer of each rule's size (DropTail limit =
packets − 1, the packet in service being the other). A sweep runs each rule's buffer and ``MULTIPLIERS``
times it, over seeds, and the rows are compared with the advisor's predictions at the rule's buffer.

**Scaling down.** A link faster than ``max_rate`` (100 Mb/s by default) is simulated scaled by
``s = C / max_rate``: N' = max(1, round(N / s)) flows on C' = C · N' / N, the same RTT and packet size, so the
per-flow bandwidth-delay product C·RTT/N (the window each flow needs, which sets TCP's dynamics) is kept
exactly; the rules are then applied to the scaled link (BDP/√N shrinks as √s, not as s) and their predictions
recomputed for it, so simulated and predicted figures describe the same link. With fewer flows than ``s``
the scaled link keeps one flow and stays faster than ``max_rate``.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from bufferlab.errors import BufferLabError
from bufferlab.units import format_rate, format_time, format_value, parse_time

__all__ = ["scale_down", "verify_advice", "format_verification", "MULTIPLIERS", "MAX_RATE_BPS"]

#: Buffers simulated around each rule's: these multiples of its size (1 is the rule itself).
MULTIPLIERS = (0.5, 1.0, 2.0)

#: Fastest link simulated as it is; faster ones are scaled down (see the module's text).
MAX_RATE_BPS = 100e6

_METRICS = ("utilization", "loss_rate", "delay_mean_s", "delay_p99_s")


def scale_down(capacity_bps: float, flows: int, max_rate_bps: float = MAX_RATE_BPS) -> Dict[str, Any]:
    """The simulated link: ``factor`` s, ``flows`` N' and ``capacity_bps`` C' keeping C·RTT/N."""
    s = max(1.0, capacity_bps / max_rate_bps)
    n = max(1, int(round(flows / s)))
    return {"factor": flows / n, "flows": n, "capacity_bps": capacity_bps * n / flows}


def _scenario(capacity_bps: float, flows: int, rtt_s: float, packet_size: int, w_max: float,
              duration_s: float) -> Dict[str, Any]:
    warmup = duration_s / 5
    tcp: Dict[str, Any] = {"packet_size": packet_size, "sack": True}
    if math.isfinite(w_max):
        tcp["max_window"] = max(1, int(w_max))
    return {
        "name": "advise-verify", "seed": 1, "duration": duration_s, "warmup": warmup,
        "bottleneck": {"rate": capacity_bps, "delay": rtt_s / 4,
                       "queue": {"discipline": "droptail", "limit": 1}},
        "flows": {"count": flows, "rtt": {"uniform": [0.9 * rtt_s, 1.1 * rtt_s]},
                  "access_rate": 10 * capacity_bps, "start": {"uniform": [0.0, duration_s / 10]}},
        "tcp": tcp,
    }


#: The end of the engine's message for a run above its ``[limits]``: the override ``advise`` cannot pass.
_OVERRIDE = re.compile(r";\s*set limits\.(?P<limit>\w+) = \S+ to run anyway\s*$")


def _check_limits(base: Dict[str, Any], largest: int, duration_s: float, scaled: Dict[str, Any],
                  inputs: Dict[str, Any], max_rate_bps: float) -> None:
    """Refuse, before the sweep, runs the engine's ``[limits]`` refuse (``advise`` has no way to raise them),
    naming the option that makes them smaller: a shorter ``--verify-duration`` for the events (with the
    longest that fits), a lower ``--verify-max-rate`` (fewer flows and packets) for either."""
    from bufferlab.simulate import resolve  # noqa: PLC0415

    spec = {**base, "bottleneck": {**base["bottleneck"], "queue": {**base["bottleneck"]["queue"],
                                                                  "limit": largest}}}
    try:
        resolve(spec, per_flow=False)
        return
    except BufferLabError as exc:
        text = str(exc)
    found = _OVERRIDE.search(text)
    if found is None:  # another refusal: every run of the sweep fails with the engine's own message
        return
    what = text[:found.start()].partition(": ")[2] or text[:found.start()]
    rate = "a lower --verify-max-rate (fewer flows and packets per second are simulated)"
    if found.group("limit") != "events":
        raise BufferLabError(f"--verify-max-rate {format_rate(max_rate_bps)}: each simulated run is beyond "
                             f"the engine's limits ({what}); advise --verify cannot set [limits]: "
                             f"give {rate}")
    longest = ""
    try:  # events grow with the duration: the longest run within the limit
        events = resolve({**spec, "limits": {"events": 1e18}}, per_flow=False)["estimate"]["events"]
        short = _scenario(scaled["capacity_bps"], scaled["flows"], inputs["rtt_s"],
                          inputs["packet_size_bytes"], inputs["w_max_pkts"], min(duration_s, 1.0))
        allowed = resolve(short, per_flow=False)["limits"]["events"]
        if events > 0:  # two significant digits, rounded down: the estimate is not quite linear
            fits = 0.99 * duration_s * allowed / events
            digits = 10.0 ** (math.floor(math.log10(fits)) - 1)
            longest = f" (at most about {format_time(math.floor(fits / digits) * digits)})"
    except (BufferLabError, KeyError, TypeError):
        pass
    raise BufferLabError(f"--verify-duration {format_time(duration_s)}: each simulated run is beyond the "
                         f"engine's limits ({what}); advise --verify cannot set [limits]: give a shorter "
                         f"--verify-duration{longest} or {rate}")


def verify_advice(adv: Dict[str, Any], *, seeds: int = 3, duration: Union[str, float] = "30s",
                  max_rate_bps: float = MAX_RATE_BPS, multipliers: Sequence[float] = MULTIPLIERS,
                  out: Optional[Union[str, Path]] = None, workers: Optional[int] = None,
                  dask: Optional[str] = None, progress: Optional[bool] = None) -> Dict[str, Any]:
    """Simulate each rule of ``adv`` (:func:`bufferlab.models.advisor.advise`'s result) at its buffer and
    around it; returns the scaled link, per rule the simulated means with 95 % intervals beside the
    predictions, and the rule to pick for the target. ``out`` keeps the sweep (else a temporary directory)."""
    from bufferlab.models.advisor import advise  # noqa: PLC0415
    from bufferlab.sweeps import sweep  # noqa: PLC0415
    from bufferlab.sweeps.plot import mean_ci  # noqa: PLC0415

    i = adv["inputs"]
    dur = parse_time(duration, "--verify-duration")
    if not math.isfinite(max_rate_bps) or max_rate_bps <= 0:
        raise BufferLabError(f"--verify-max-rate: must be > 0, got {max_rate_bps!r}")
    scaled = scale_down(i["capacity_bps"], i["flows"], max_rate_bps)
    small = advise(scaled["capacity_bps"], scaled["flows"], i["rtt_s"], i["target_utilization"],
                   i["packet_size_bytes"], w_max=i["w_max_pkts"], alpha=i["alpha"], epsilon=i["epsilon"])
    rules = [r for r in small["rules"] if r.get("packets") is not None]
    limits: Dict[int, List[Any]] = {}
    for r in rules:
        for m in multipliers:
            limit = max(1, int(round(m * r["packets"])) - 1)
            limits.setdefault(limit, []).append((r["rule"], m))
    base = _scenario(scaled["capacity_bps"], scaled["flows"], i["rtt_s"], i["packet_size_bytes"],
                     i["w_max_pkts"], dur)
    _check_limits(base, max(limits), dur, scaled, i, max_rate_bps)
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="bufferlab-verify-")
        out = Path(tmp.name) / "sweep"
    try:
        df = sweep(base, {"bottleneck.queue.limit": sorted(limits)}, out=out, seeds=seeds, workers=workers,
                   dask=dask, progress=progress, out_field="--verify-out")
    finally:
        if tmp is not None:
            tmp.cleanup()
    ok = df[df["status"] == "ok"]
    failed = df[df["status"] != "ok"]
    if len(failed):
        raise BufferLabError(f"--verify: {len(failed)} simulation(s) failed: {failed['error'].iloc[0]}")

    def simulated(limit: int) -> Dict[str, Any]:
        rows = ok[ok["bottleneck.queue.limit"] == limit]
        return {k: mean_ci(rows[k].tolist()) for k in _METRICS}

    out_rules = []
    for r in rules:
        preds = {p["model"]: p for p in r["predictions"]}
        around = {m: {"limit": max(1, int(round(m * r["packets"])) - 1)} for m in multipliers}
        for a in around.values():
            a.update(simulated(a["limit"]))
        at = around.get(1.0) or simulated(r["droptail_limit"])
        notes = []
        if r["rule"] == "eun-wang":
            notes.append("simulated with DropTail at its buffer; the rule assumes AQM marking with "
                         "thresholds scaled by N^alpha (the eun-wang example runs that)")
        out_rules.append({
            "rule": r["rule"], "packets": r["packets"], "droptail_limit": r["droptail_limit"],
            "max_delay_s": r["delay_ms"] / 1e3,
            "simulated": {k: at[k] for k in _METRICS},
            "predicted": {m: {"utilization": preds[m]["utilization"], "loss": preds[m]["loss"]}
                          for m in ("TCP fixed point", "M/D/1/K") if m in preds},
            "around": [{"multiplier": m, **a} for m, a in around.items()], "notes": notes,
        })
    target = i["target_utilization"]
    reach = [r for r in out_rules if r["simulated"]["utilization"]["mean"] >= target]
    if reach:
        pick = min(reach, key=lambda r: r["packets"])
        why = (f"the smallest buffer whose simulated utilization reaches the target {target:g} "
               f"(so the least queueing delay)")
    elif out_rules:
        pick = max(out_rules, key=lambda r: (r["simulated"]["utilization"]["mean"], -r["packets"]))
        why = f"no rule reached the target {target:g} in simulation; this one came closest"
    else:
        raise BufferLabError("--verify: no rule gives a buffer to simulate")
    return {"scaled": {**scaled, "rtt_s": i["rtt_s"], "packet_size_bytes": i["packet_size_bytes"],
                       "w_max_pkts": i["w_max_pkts"], "duration_s": dur, "warmup_s": dur / 5,
                       "seeds": seeds, "runs": len(df)},
            "rules": out_rules, "pick": {"rule": pick["rule"], "packets": pick["packets"], "why": why}}


def _ci(stat: Dict[str, float], fmt: str, scale: float = 1.0) -> str:
    mean = format_value(stat["mean"], fmt, scale=scale)
    if stat["n"] > 1 and math.isfinite(stat["half"]):
        return f"{mean} ± {format_value(stat['half'], fmt, scale=scale)}"
    return mean


def format_verification(adv: Dict[str, Any], ver: Dict[str, Any]) -> str:
    """The verification as text tables, after :func:`~bufferlab.models.advisor.format_advice`."""
    i, s = adv["inputs"], ver["scaled"]
    link = f"C' = {format_rate(s['capacity_bps'])}, N' = {s['flows']} flows"
    if s["factor"] > 1:
        link += (f" (scaled down {s['factor']:.3g}x from {format_rate(i['capacity_bps'])} and {i['flows']} "
                 f"flows, keeping the per-flow BDP C*RTT/N; the rules applied to the scaled link)")
    lines = [
        "",
        f"Verification by simulation: {link}; RTT {format_time(s['rtt_s'])} (flows uniform in ±10 %), "
        f"DropTail, NewReno/SACK, window cap {s['w_max_pkts']:g} packets; {s['seeds']} seeds x "
        f"{s['duration_s']:g} s (statistics after {s['warmup_s']:g} s), {s['runs']} runs.",
        "Simulated: mean ± 95 % CI over seeds. Predicted: TCP fixed point (M/D/1/K at offered load = "
        "target).",
        "",
        f"{'rule':<16}{'packets':>8}{'util sim':>18}{'util pred':>18}{'loss sim':>22}{'loss pred':>20}"
        f"{'delay mean / p99 sim':>24}{'max B/C':>10}",
    ]
    for r in ver["rules"]:
        sim, pred = r["simulated"], r["predicted"]
        fp, md = pred.get("TCP fixed point", {}), pred.get("M/D/1/K", {})
        up = (f"{format_value(fp.get('utilization'), '{:.3f}')} "
              f"({format_value(md.get('utilization'), '{:.3f}')})")
        lp = f"{format_value(fp.get('loss'), '{:.2e}')} ({format_value(md.get('loss'), '{:.1e}')})"
        p99 = format_value(sim["delay_p99_s"]["mean"], "{:.2f}", scale=1e3)
        delay = f"{_ci(sim['delay_mean_s'], '{:.2f}', 1e3)} / {p99} ms"
        lines.append(f"{r['rule']:<16}{r['packets']:>8}{_ci(sim['utilization'], '{:.3f}'):>18}{up:>18}"
                     f"{_ci(sim['loss_rate'], '{:.2e}'):>22}{lp:>20}{delay:>24}"
                     f"{format_value(r['max_delay_s'], '{:.1f}', scale=1e3):>7} ms")
    lines += ["", "Around each rule's buffer (simulated utilization / loss at these multiples of it):"]
    for r in ver["rules"]:
        cells = [f"x{a['multiplier']:g} ({a['limit'] + 1} pkts): "
                 f"{format_value(a['utilization']['mean'], '{:.3f}')} / "
                 f"{format_value(a['loss_rate']['mean'], '{:.1e}')}" for a in r["around"]]
        lines.append(f"  {r['rule']:<16}" + "   ".join(cells))
    for r in ver["rules"]:
        lines += [f"note ({r['rule']}): {n}" for n in r["notes"]]
    p = ver["pick"]
    full = next((r for r in adv["rules"] if r["rule"] == p["rule"]), None)
    size = f"; on the advised link {full['packets']:,} packets, {full['delay_ms']:.3g} ms" if full else ""
    lines += ["", f"Pick {p['rule']} ({p['packets']} packets on the simulated link{size}): {p['why']}."]
    return "\n".join(lines)
