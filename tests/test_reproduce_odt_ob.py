"""`bufferlab reproduce odt-ob` (Stanojević & Shorten, Optimal Drop-Tail and Optimal BLUE): the design
against the paper's parameters, every claim of the note present, the verdicts of evaluate() on synthetic
records (holds and differs), Theorem 1's check, and the engine behaviour the design relies on (runs of
increasing length are prefixes of one run; a one-hour sampling period keeps OB's drop probability
constant)."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

import bufferlab
from bufferlab.reproduce import odt_ob as m
from bufferlab.reproduce import paper_module
from bufferlab.reproduce.claims import DIFFERS, HOLDS

ROOT = Path(__file__).resolve().parents[1]


def test_design_covers_every_claim_of_the_note() -> None:
    ids = [c.id for c in m.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 14)]
    note = ROOT.parent / "shared" / "papers" / "stanojevic_shorten_odt_ob.md"
    if note.exists():
        text = note.read_text()
        assert all(f"**{i}" in text for i in ids)
    assert paper_module("odt-ob") is m
    for quick in (True, False):
        ex = m.experiments(quick=quick, seeds=2)
        assert set(ex) == {"sweep", "noise", "online", "udp", "udp_sweep", "load", "sweep100", "trajectory",
                           "table4", "sensitivity"}


def test_design_uses_the_papers_parameters() -> None:
    ex = m.experiments(quick=False, seeds=1)
    for t in ex["sweep"]:
        sc = t.scenario
        assert sc["bottleneck"]["rate"] == "8e+07bps"  # 10 MByte/s
        assert sc["flows"]["count"] == 50 and sc["flows"]["rtt"] == {"uniform": ["20ms", "220ms"]}
        assert sc["tcp"]["packet_size"] == "1000B"
    dt = sorted(t.labels["x"] for t in ex["sweep"] if t.labels["kind"] == "dt")
    cdp = [t for t in ex["sweep"] if t.labels["kind"] == "cdp"]
    assert dt[0] == 1 and dt[-1] == 300  # Sim A: 1-300 packets
    ps = sorted(t.labels["x"] for t in cdp)
    assert ps[0] == pytest.approx(1e-3) and ps[-1] == pytest.approx(1e-2)  # Sim B: [1e-3, 1e-2]
    for t in cdp:  # a 10,000-packet buffer and t_p that never moves during the run
        q = t.scenario["bottleneck"]["queue"]
        assert q["limit"] == 10_000 and q["initial_probability"] == t.labels["x"]
        assert float(q["interval"][:-1]) > float(t.scenario["duration"][:-1])
    # Sims D-G: Delta = 2 s, alpha = 1.05, W0 = 30, t_S(0) = 100 KB (Sim G: 50 KB), t_p(0) = 0.002.
    for exp in ("online", "udp", "load"):
        for t in ex[exp]:
            q = t.scenario["bottleneck"]["queue"]
            assert (q["interval"], q["alpha"], q["window"]) == ("2s", 1.05, 30)
            if q["discipline"] == "odt":
                assert q["initial_limit_bytes"] == ("50000B" if exp == "load" else "100000B")
            else:
                assert q["initial_probability"] == 0.002
    assert {t.labels["gamma"] for t in ex["online"]} == {2, 10, 20}
    # Sim G: a second set of 50 flows from 300 s to 600 s.
    g = ex["load"][0].scenario["flows"]
    assert [s["count"] for s in g] == [50, 50]
    assert g[1]["start"] == {"uniform": ["300s", "301s"]} and g[1]["stop"] == "600s"
    # Sim F: 50 on/off sources, 1 Mb/s while on, on 1 s / off 3 s: about 1.56 MB/s on average.
    udp = ex["udp"][0].scenario["udp"]
    assert all(u["rate"] == "1e+06bps" and u["pattern"] == "cbr" for u in udp)
    rate = m.udp_rate_series(m.onoff_udp(1, 600.0), 600.0).mean()
    assert rate == pytest.approx(50 * 1e6 / 8 * 0.25, rel=0.12)
    # Table 4: N = 1, 10, 100, RTTs 100-300 ms, DT small 100 packets (10 ms), DT large 2000 (200 ms).
    t4 = ex["table4"]
    assert {t.labels["n"] for t in t4} == {1, 10, 100}
    assert all(t.scenario["flows"]["rtt"] == {"uniform": ["100ms", "300ms"]} for t in t4)
    limits = {t.labels["scheme"]: t.scenario["bottleneck"]["queue"].get("limit") for t in t4}
    assert limits["DT small"] == 100 and limits["DT large"] == 2000
    assert {t.scenario["bottleneck"]["queue"]["discipline"] for t in t4} == {"droptail", "ared", "odt", "ob"}


# ------------------------------------------------------------------------------------------- synthetic


def _rec(labels: Dict[str, Any], seed: int, u: float, d: float, **extra: Any) -> Dict[str, Any]:
    noise = 1e-4 * (seed - 2)
    summary = {"utilization": u + noise, "delay_mean_s": d * (1 + noise),
               "loss_rate": extra.pop("loss", 0.01),
               "jain_index": extra.pop("jfi", 0.8), "timeouts": extra.pop("to", 100),
               "fast_retransmits": extra.pop("fr", 400), "sent": 1_000_000, "warmup_s": 300.0}
    rec = {"labels": labels, "seed": seed, "summary": summary, "wall_s": 1.0}
    if extra:
        rec["extra"] = {"qs": extra}
    return rec


def _dt(b: float):
    return 1 - 0.8 * math.exp(-b / 50), 2e-7 * b * b + 2e-5 * b


def _cdp(p: float):
    return 1 - 2000 * (p - 1e-3) ** 2, 0.03 * math.exp(-(p - 1e-3) / 0.0015)


def _sweep(seeds=(1, 2, 3)) -> List[Dict[str, Any]]:
    out = []
    for s in seeds:
        for b in (1, 10, 30, 60, 100, 130, 160, 200, 300):
            u, d = _dt(b)
            out.append(_rec({"kind": "dt", "x": b}, s, u, d, loss=0.1 / (1 + b / 5),
                            to=600 if b < 50 else 100))
        for p in np.geomspace(1e-3, 1e-2, 13):
            u, d = _cdp(float(p))
            out.append(_rec({"kind": "cdp", "x": float(p)}, s, u, d))
    return out


_OPT: Dict[Any, Any] = {}


def _online(scheme: str, gamma: float, seed: int, end: float, shift: float = 0.0,
            level: float = None) -> Dict[str, Any]:
    kind = "dt" if scheme == "odt" else "cdp"
    if (kind, gamma) not in _OPT:
        _OPT[(kind, gamma)] = m.optimum(_sweep(), kind, gamma)
    opt = _OPT[(kind, gamma)]
    u, d = opt["u"].mean - shift, opt["d"].mean
    if scheme == "odt":
        lvl = level if level is not None else 130e3
        qs = {"limit_bytes": lvl, "limit_window_mean_bytes": lvl}
    else:
        lvl = level if level is not None else 0.0048
        qs = {"drop_probability": lvl, "drop_probability_window_mean": lvl}
    return _rec({"scheme": scheme, "gamma": gamma, "end": end}, seed, u, d, **qs)


def _results(changes: Dict[Any, Any] = None) -> Dict[str, List[Dict[str, Any]]]:
    changes = changes or {}
    sweep = _sweep()
    levels = {k: m.optimum(sweep, k, 10)["x"].mean for k in ("dt", "cdp")}
    online = [_online(s, g, seed, 600.0, shift=changes.get(("shift", s), 0.0),
                      level=changes.get(("level", s)))
              for s in ("odt", "ob") for g in m.GAMMAS for seed in (1, 2, 3)]
    udp = [_online(s, 10, seed, 600.0, level=levels["dt"] * 1e3 if s == "odt" else levels["cdp"])
           for s in ("odt", "ob") for seed in (1, 2, 3)]
    load = []
    for r in udp:
        for end in (420.0, 720.0):
            r2 = copy.deepcopy(r)
            r2["labels"] = {"scheme": r["labels"]["scheme"], "end": end}
            load.append(r2)
    table4 = []
    for scheme, row in m.TABLE4.items():
        for n, (u, d) in row.items():
            u = changes.get(("t4", scheme, n), u)
            table4 += [_rec({"scheme": scheme, "n": n}, s, u, d) for s in (1, 2, 3)]
    return {"sweep": sweep, "udp_sweep": sweep, "sweep100": sweep, "online": online, "udp": udp,
            "load": load, "trajectory": [], "table4": table4, "noise": [], "sensitivity": []}


def _verdicts(results: Dict[str, Any]) -> Dict[str, str]:
    return {v.claim.id: v.verdict for v in m.evaluate(results, quick=True)}


def test_evaluate_holds_on_a_world_like_the_papers() -> None:
    v = _verdicts(_results())
    assert v == {f"T{i}": HOLDS for i in range(1, 14)}, v


def test_evaluate_differs_where_the_world_does() -> None:
    v = _verdicts(_results({("shift", "odt"): 0.02, ("level", "ob"): 0.0075, ("t4", "DT small", 10): 0.5}))
    assert v["T5"] == DIFFERS  # ODT 0.02 below its off-line optimum
    assert v["T4"] == DIFFERS  # OB at 0.0075, 9 grid steps from 0.0048
    assert v["T11"] == DIFFERS  # DT small at N = 10: 0.5, not 0.85
    assert v["T6"] == HOLDS and v["T1"] == HOLDS
    r = _results()
    for rec in r["sweep"]:
        if rec["labels"] == {"kind": "dt", "x": 130}:
            rec["summary"]["utilization"] -= 0.05  # a dip: neither monotone nor concave
    assert _verdicts(r)["T1"] == DIFFERS
    r = _results({("shift", "ob"): 0.2})
    assert _verdicts(r)["T6"] == DIFFERS


def test_theorem_1_four_cycle_within_alpha() -> None:
    th = m.theorem1_check(cases=90)
    assert th["ok"] == 90 and th["worst"] < 0.05
    # t* = 130 from 100: up to 100·1.05^6, then the cycle 5, 4, 5, 6 around t̄ = 100·1.05^5 = 127.6.
    ls = m.mimd_indices(lambda t: -(t - 130) ** 2, 100, 1.05, 20)
    assert ls[:7] == [0, 1, 2, 3, 4, 5, 6] and ls[6:] == [6, 5, 4, 5] * 3 + [6, 5, 4]


def test_runs_of_increasing_length_are_prefixes_and_cdp_is_constant() -> None:
    """The trajectories rest on this: the run ending at T is the first T seconds of a longer one."""
    def sc(end: float, q: Dict[str, Any]) -> Dict[str, Any]:
        s = m.scenario(q, end, 0.0, n=10, monitor="100ms")
        s["bottleneck"]["rate"] = "8e+06bps"
        return s

    a = bufferlab.run(sc(20.0, m.ob()), progress=False)
    b = bufferlab.run(sc(30.0, m.ob()), progress=False)
    qa, qb = a.queue_series, b.queue_series
    assert np.array_equal(qa["queue_pkts"].to_numpy(), qb["queue_pkts"].to_numpy()[:len(qa)])
    assert m.state(a)["qs"]["periods"] == 9  # periods from the first arrival, every 2 s
    c = bufferlab.run(sc(30.0, m.cdp(0.003)), progress=False)
    assert m.state(c)["qs"]["drop_probability"] == 0.003 and m.state(c)["qs"]["periods"] == 0
    ex = m.state_and_queue(c)
    assert len(ex["t"]) == len(ex["q"]) > 100
    d = m.period_delays(c)
    assert len(d["d2"]) == 15 and len(d["d5"]) == 6
