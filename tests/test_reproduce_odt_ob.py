"""`bufferlab reproduce odt-ob` (Stanojević & Shorten, Optimal Drop-Tail and Optimal BLUE): the design
against the paper's parameters (and a larger seed count giving a superset of the runs), each claim's tests on
synthetic records (a world like the paper's holds, a changed one differs, too few seeds stay inconclusive),
Theorem 1's check, a whole quick reproduction on synthetic runs whose claims.json the recheck accepts, and the
engine behaviour the design relies on (runs of increasing length are prefixes of one run; a one-hour sampling
period keeps OB's drop probability constant; the window's spread of the grid index is reported)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pytest

import bufferlab
import bufferlab.reproduce as rp
from bufferlab.reproduce import odt_ob as m
from bufferlab.reproduce import paper_module
from bufferlab.reproduce.claims import DIFFERS, HOLDS, INCONCLUSIVE, evaluate_claim
from bufferlab.reproduce.runner import Task
from bufferlab.reproduce.verdicts import recheck

EXPERIMENTS = {"sweep", "optima", "noise", "online", "udp", "udp_sweep", "load", "sweep100", "trajectory",
               "table4", "one_flow", "alt_sweep", "alt_online", "alt_simh"}


@pytest.mark.slow
def test_registry_and_design() -> None:
    ids = [c.id for c in m.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 15)]
    assert {c.id for c in m.CLAIMS if c.model_check} == {"T12", "T13"}
    assert all(c.where.startswith("Sec.") for c in m.CLAIMS)
    assert paper_module("odt-ob") is m
    for quick in (True, False):
        small, big = m.experiments(quick=quick, seeds=2), m.experiments(quick=quick, seeds=3)
        assert set(small) == EXPERIMENTS | (set() if quick else {"sensitivity"}) == set(big)
        for name, tasks in small.items():  # more seeds: a superset of the same runs
            keys = {t.key("v") for t in big[name]}
            assert {t.key("v") for t in tasks} <= keys, name
    text = " ".join(m.CHOICES + [m.PRINCIPAL, m.__doc__ or ""])
    assert "the note" not in text and "../shared" not in text


@pytest.mark.slow
def test_design_uses_the_papers_parameters() -> None:
    ex = m.experiments(quick=False, seeds=1)
    ex["sweep"] = ex["sweep"] + ex["optima"]
    for t in ex["sweep"]:
        sc = t.scenario
        assert sc["bottleneck"]["rate"] == "8e+07bps"  # 10 MByte/s
        assert sc["flows"]["count"] == 50 and sc["flows"]["rtt"] == {"uniform": ["20ms", "220ms"]}
        assert sc["tcp"]["packet_size"] == "1000B"
        # the principal TCP: ns-2's Agent/TCP/Newreno, no SACK, no delayed ACKs
        tcp = sc["tcp"]
        assert (tcp["recovery"], tcp["sack"], tcp["delayed_ack"]) == ("newreno", False, False)
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
                assert q["initial_probability"] == 0.002 and q["min_probability"] == m.P_MIN
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
    # The alternative readings: classic Reno and NewReno with SACK, on the experiments of T3-T7 and T10.
    for exp in ("alt_sweep", "alt_online", "alt_simh"):
        got = {(t.labels["reading"], t.scenario["tcp"]["recovery"], t.scenario["tcp"]["sack"])
               for t in ex[exp]}
        assert got == {("reno", "reno", False), ("sack", "newreno", True)}
    # The shape tests' chord points are in both designs, with the full design's run length.
    for quick in (True, False):
        des = m.experiments(quick=quick, seeds=1)
        sw = des["sweep"] + des["optima"]
        xs = {(t.labels["kind"], t.labels["x"]) for t in sw}
        assert {("dt", x) for x in m.DT_BREAKS} | {("cdp", x) for x in m.CDP_BREAKS} <= xs
        assert {t.scenario["duration"] for t in sw} == {"360s"}


# ------------------------------------------------------------------------------------------- synthetic world


def _dt(b: float):
    return 1 - 0.8 * math.exp(-b / 50), 2e-7 * b * b + 2e-5 * b


def _cdp(p: float):
    return 1 - 2000 * (p - 1e-3) ** 2, 0.03 * math.exp(-(p - 1e-3) / 0.0015)


def _noise(seed: int, scale: float) -> float:
    return scale * ((seed * 7919) % 11 - 5) / 5


def _summary(u: float, d: float, **over: Any) -> Dict[str, Any]:
    s = {"utilization": u, "delay_mean_s": d, "loss_rate": 0.01, "jain_index": 0.8, "timeouts": 100,
         "fast_retransmits": 400, "sent": 1_000_000, "warmup_s": 300.0}
    s.update(over)
    return s


class World:
    """Synthetic records for every task of the design: static curves with a small per-seed shift, online
    runs at each seed's off-line optimum, Table 4 at the paper's cells; ``change`` alters one part."""

    def __init__(self, change: Optional[Dict[Any, Any]] = None, quick: bool = False) -> None:
        self.quick, self.change = quick, change or {}
        sweep100 = m.experiments(quick, 1)["sweep100"]
        self.n100 = {k: sorted(t.labels["x"] for t in sweep100 if t.labels["kind"] == k)
                     for k in ("dt", "cdp")}

    def optimum(self, kind: str, seed: int, gamma: float, n100: bool = False) -> float:
        limits, probs = m._sweep_points(self.quick)
        if n100:
            limits, probs = self.n100["dt"], self.n100["cdp"]
        return max(limits if kind == "dt" else probs,
                   key=lambda x: self.static(kind, x, seed)[0] - gamma * self.static(kind, x, seed)[1])

    def static(self, kind: str, x: float, seed: int):
        u, d = (_dt if kind == "dt" else _cdp)(x)
        if kind == "dt" and self.change.get("dip") == x:
            u -= 0.15
        return u + _noise(seed, 1e-4), d * (1 + _noise(seed, 1e-3))

    def record(self, task: Task) -> Dict[str, Any]:
        lab, seed, ch = task.labels, task.seed, self.change
        rec: Dict[str, Any] = {"labels": lab, "seed": seed, "wall_s": 1.0}
        extra: Dict[str, Any] = {}
        name = (task.extract or "").split(":")[-1]
        q = task.scenario["bottleneck"]["queue"]
        if "kind" in lab:
            u, d = self.static(lab["kind"], lab["x"], seed)
            small = lab["kind"] == "dt" and lab["x"] < 50
            rec["summary"] = _summary(u, d, loss_rate=0.05 if small else 0.01,
                                      timeouts=600 if small else 100, jain_index=0.8)
        elif "n" in lab and "scheme" in lab:
            u, d = m.TABLE4[lab["scheme"]][lab["n"]]
            u = ch.get(("t4", lab["scheme"], lab["n"]), u)
            rec["summary"] = _summary(u + _noise(seed, 1e-3), d * (1 + _noise(seed, 1e-2)))
            extra["qs"] = {"limit_bytes": 1e5, "limit_window_mean_bytes": 1e5, "drop_probability": 1e-6,
                           "drop_probability_window_mean": 1e-6, "window_sd_steps": 1.0, "periods": 500}
        else:
            scheme = lab.get("scheme", "ob" if q["discipline"] == "ob" else "odt")
            kind = "dt" if scheme == "odt" else "cdp"
            gamma = lab.get("gamma", 10)
            x = self.optimum(kind, seed, gamma, n100=lab.get("end") == 420.0 and "gamma" not in lab
                             and isinstance(task.scenario["flows"], list))
            u, d = self.static(kind, x, seed)
            u -= ch.get(("shift", scheme), 0.0)
            if lab.get("reading") == "sack" and scheme == "ob":
                u -= ch.get("sack_ob", 0.0)
            level = ch.get(("level", scheme), x * 1e3 if scheme == "odt" else x)
            sd = 1.2 * (ch.get("udp_sd", 1.2) if "udp" in task.scenario else 1.0)
            qs = ({"limit_bytes": level, "limit_window_mean_bytes": level} if scheme == "odt" else
                  {"drop_probability": level, "drop_probability_window_mean": level})
            qs.update({"window_sd_steps": sd * (1 + _noise(seed, 0.02)), "periods": 150})
            extra["qs"] = qs
            rec["summary"] = _summary(u, d)
            if name == "period_utilization":
                p = lab["x"]
                extra["u_periods"] = list(0.012 * math.sqrt(0.002 / p) + 0.004 * np.sin(np.arange(40.0)))
        if name == "period_delays":
            extra["d2"] = list(0.005 + 0.001 * np.sin(np.arange(50.0)))
            extra["d5"] = list(0.005 + 0.001 * np.sin(np.arange(20.0)))
        if name == "state_and_queue":
            extra["t"] = [0.1 * i for i in range(50)]
            extra["q"] = [float(i % 7) for i in range(50)]
        if extra:
            rec["extra"] = extra
        return json.loads(json.dumps(rec))


def _results(world: World, quick: bool = False, seeds: int = 3) -> Dict[str, List[Dict[str, Any]]]:
    return {name: [world.record(t) for t in tasks] for name, tasks in m.experiments(quick, seeds).items()}


def _verdicts(results: Dict[str, Any], quick: bool = True) -> Dict[str, Any]:
    return {c.id: evaluate_claim(m.CLAIMS, c, results, quick, m.PRINCIPAL) for c in m.CLAIMS}


@pytest.fixture(scope="module")
def paperlike() -> Dict[str, Any]:
    return _results(World())


@pytest.mark.slow
def test_a_world_like_the_papers_holds(paperlike: Dict[str, Any]) -> None:
    v = _verdicts(paperlike)
    bad = {k: (e.verdict, [str(t) for t in e.outcome.tests if t.result != HOLDS]) for k, e in v.items()
           if e.verdict != HOLDS}
    assert not bad, bad


@pytest.mark.slow
def test_claims_differ_where_the_world_does(paperlike: Dict[str, Any]) -> None:
    r = _results(World({("shift", "odt"): 0.02, ("t4", "DT small", 10): 0.5, "udp_sd": 1.0,
                          ("level", "ob"): 0.0075}))
    v = _verdicts(r)
    assert v["T5"].verdict == DIFFERS  # ODT 0.02 below its off-line optimum
    assert v["T14"].verdict == DIFFERS  # DT small at N = 10: 0.5, not 0.85
    assert v["T8"].verdict == DIFFERS  # the same fluctuation with UDP as without: not larger
    assert v["T4"].verdict == DIFFERS  # OB settles at 0.0075, far from its off-line optimum
    assert v["T6"].verdict == HOLDS and v["T1"].verdict == HOLDS
    assert all(v[c].outcome.why for c in ("T4", "T5", "T8", "T14"))
    dip = _verdicts(_results(World({"dip": 100})))
    assert dip["T1"].verdict == DIFFERS  # a dip at 100 packets: neither concave nor monotone
    ob_low = _verdicts(_results(World({("shift", "ob"): 0.2})))
    assert ob_low["T6"].verdict == DIFFERS


@pytest.mark.slow
def test_a_reading_that_flips_is_reported(paperlike: Dict[str, Any]) -> None:
    r = _results(World({"sack_ob": 0.2}))
    e = evaluate_claim(m.CLAIMS, next(c for c in m.CLAIMS if c.id == "T6"), r, True, m.PRINCIPAL)
    assert e.verdict == HOLDS
    alts = {a["reading"]: a for a in e.row()["alternatives"]}
    assert alts["NewReno with SACK"]["verdict"] == DIFFERS and alts["NewReno with SACK"]["flips"]
    assert alts["classic Reno, no SACK"]["verdict"] == HOLDS


@pytest.mark.slow
def test_one_seed_is_inconclusive() -> None:
    r = _results(World(), seeds=1)
    v = _verdicts(r)
    for cid in ("T1", "T3", "T6", "T7"):
        assert v[cid].verdict == INCONCLUSIVE, cid
        assert v[cid].outcome.why


def test_theorem_1_four_cycle_within_alpha() -> None:
    th = m.theorem1_check(cases=90)
    assert th["ok"] == 90 and th["worst"] < 0.05
    # t* = 130 from 100: up to 100·1.05^6, then the cycle 5, 4, 5, 6 around t̄ = 100·1.05^5 = 127.6.
    ls = m.mimd_indices(lambda t: -(t - 130) ** 2, 100, 1.05, 20)
    assert ls[:7] == [0, 1, 2, 3, 4, 5, 6] and ls[6:] == [6, 5, 4, 5] * 3 + [6, 5, 4]


@pytest.mark.slow
def test_quick_reproduce_on_synthetic_runs_writes_a_table_the_recheck_accepts(tmp_path: Path,
                                                                              monkeypatch) -> None:
    world = World(quick=True)
    calls: List[int] = []

    def fake_runs(tasks: List[Task], cache: Path, *, workers: int = 1, progress: Optional[Any] = None,
                  known: Optional[Any] = None):
        calls.append(len(tasks))
        return [world.record(t) for t in tasks]

    monkeypatch.setattr(rp, "run_tasks", fake_runs)
    monkeypatch.setattr(rp, "engine_version", lambda: "test")
    doc = rp.reproduce("odt-ob", tmp_path, quick=True)
    saved = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(saved) == []
    assert [c["id"] for c in saved["claims"]] == [f"T{i}" for i in range(1, 15) if i not in (12, 13)]
    assert [c["id"] for c in saved["model_checks"]] == ["T12", "T13"]
    assert saved["principal_reading"] == m.PRINCIPAL and doc["tally"] == saved["tally"]
    report = (tmp_path / "report.md").read_text()
    assert "## Model checks" in report and "NewReno with SACK" in report
    assert (tmp_path / "fig9.png").exists() and (tmp_path / "fig17.svg").exists()
    assert len(calls) >= 1


# ------------------------------------------------------------------------------------------- engine


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
    st = m.state(a)["qs"]
    assert st["periods"] == 9  # periods from the first arrival, every 2 s
    assert 0 < st["window_sd_steps"] < 9  # the index moves by one step per period
    c = bufferlab.run(sc(30.0, m.cdp(0.003)), progress=False)
    assert m.state(c)["qs"]["drop_probability"] == 0.003 and m.state(c)["qs"]["periods"] == 0
    ex = m.state_and_queue(c)
    assert len(ex["t"]) == len(ex["q"]) > 100
    d = m.period_delays(c)
    assert len(d["d2"]) == 15 and len(d["d5"]) == 6


def test_one_flow_period_utilization() -> None:
    sc = m.scenario(m.cdp(0.002), 140.0, 100.0, n=1, rtt=("100ms", "300ms"))
    sc["monitor"] = {"sample_interval": "100ms", "cwnd": True}
    res = bufferlab.run({**copy.deepcopy(sc), "seed": 1}, progress=False)
    per = m.period_utilization(res)["u_periods"]
    assert len(per) == 20  # the 2-s periods from 100 s to 140 s
    assert 0 < np.mean(per) < 0.1 and res.summary["utilization"] == pytest.approx(np.mean(per), rel=0.3)
