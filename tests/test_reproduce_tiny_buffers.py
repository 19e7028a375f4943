"""`bufferlab reproduce tiny-buffers` (Enachescu et al. 2005, "Routers with very small buffers"): the design
against the paper's parameters and the principal reading (ns-2's Agent/TCP/Reno and its queue limit), a larger
seed count giving a superset of the runs, each claim's tests on synthetic records (a world like the paper's
holds, a changed one differs, noise leaves it undecided), Theorem 2's independent batches, and a quick
reproduction on synthetic runs whose claims.json the recheck accepts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import bufferlab.reproduce as rp
from bufferlab.reproduce import paper_module
from bufferlab.reproduce import tiny_buffers as tb
from bufferlab.reproduce.claims import DIFFERS, HOLDS, INCONCLUSIVE, evaluate_claim
from bufferlab.reproduce.runner import Task
from bufferlab.reproduce.verdicts import recheck

EXPERIMENTS = {"fig1", "fig1_key", "fig1_reno40", "alt_paced", "alt_reno", "t6_cause", "fig4", "fig3",
               "fig3_minrto", "fig3_newreno", "reno_cause", "rtt", "fig2", "fig5", "fig6", "fig6_waiting",
               "theorem1"}


def test_registry_and_readings() -> None:
    assert [c.id for c in tb.CLAIMS] == [f"T{i}" for i in range(1, 15)]
    assert {c.id for c in tb.CLAIMS if c.model_check} == {"T10", "T12"}
    for c in tb.CLAIMS:
        assert c.where and ("Sec." in c.where or "Fig." in c.where), c.id
        assert "note" not in c.where and "\"" in c.paper, c.id  # the paper's own words
    assert paper_module("tiny-buffers") is tb
    text = " ".join(tb.CHOICES + [tb.PRINCIPAL, tb.TITLE, tb.__doc__ or ""])
    assert "the note" not in text and "note's" not in text and "../shared" not in text
    assert "Agent/TCP/Reno" in tb.PRINCIPAL and "ns-2.28" in tb.PRINCIPAL


@pytest.mark.parametrize("quick", [True, False])
def test_more_seeds_give_a_superset_of_the_runs(quick: bool) -> None:
    small, big = tb.experiments(quick, 2), tb.experiments(quick, 3)
    assert set(small) == set(big) == EXPERIMENTS
    for name, tasks in small.items():
        keys = {t.key("v") for t in big[name]}
        assert {t.key("v") for t in tasks} <= keys, name
        assert {t.seed for t in tasks} <= {1, 2, 3}, name


def test_the_principal_reading_is_ns2s_reno_and_queue_limit() -> None:
    ex = tb.experiments(quick=False, seeds=1)
    for t in ex["fig1"] + ex["fig1_key"] + ex["fig1_reno40"] + ex["fig3"] + ex["fig4"]:
        tcp, q = t.scenario["tcp"], t.scenario["bottleneck"]["queue"]
        assert (tcp["recovery"], tcp["sack"], tcp["delayed_ack"]) == ("reno", False, False)
        assert (tcp["min_rto"], tcp["initial_rto"], tcp["clock_granularity"]) == ("200ms", "6s", "10ms")
        assert tcp["max_window"] == 32 and tcp["initial_window"] == 2 and tcp["packet_size"] == "1000B"
        assert q["limit"] == t.labels["buffer"] - 1  # ns-2's limit counts the packet on the link
        assert tcp["pacing"] == ("rtt" if t.labels["paced"] else False)
        rate = float(t.scenario["bottleneck"]["rate"].removesuffix("bps"))
        assert float(t.scenario["flows"]["access_rate"].removesuffix("bps")) == max(1e9, 10 * rate)
    # RTTs spread evenly over [80, 120] ms, the same in every seed: mean 100 ms.
    ten = next(t for t in ex["fig1"] if t.labels["n"] == 10).scenario["flows"]["rtt"]
    assert ten[0] == "82ms" and ten[-1] == "118ms" and len(ten) == 10
    assert tb.peak_load(1, 3.2e6) == pytest.approx(0.8)
    # The alternative readings change what they say and nothing else.
    base = tb.scenario(40, 100e6, 10, False, False)
    for reading, field, value in (("newreno-sack", ("tcp", "recovery"), "newreno"),
                                  ("minrto-1s", ("tcp", "min_rto"), "1s"),
                                  ("waiting", ("bottleneck", "queue"),
                                   {"discipline": "droptail", "limit": 10}),
                                  ("fixed-rtt", ("flows", "rtt"), "100ms")):
        alt = tb.scenario(40, 100e6, 10, False, False, reading=reading)
        assert alt[field[0]][field[1]] == value, reading
        for key in ("tcp", "bottleneck", "flows"):
            diff = {k for k in set(base[key]) | set(alt[key]) if base[key].get(k) != alt[key].get(k)}
            assert diff <= {field[1], "sack"}, (reading, key, diff)
    assert tb.scenario(40, 100e6, 10, True, False, reading="pacing-cwnd")["tcp"]["pacing"] == "cwnd"
    assert tb.scenario(40, 100e6, 10, False, False, reading="pacing-cwnd")["tcp"]["pacing"] is False


def test_the_design_follows_the_paper_where_it_speaks() -> None:
    ex = tb.experiments(quick=False, seeds=1)
    # Fig. 1: 100 Mb/s, 1,000 s with 200 s discarded; 1, 10, 20, 40 flows.
    t = next(t for t in ex["fig1_key"] if t.labels["n"] == 40)
    assert (t.scenario["duration"], t.scenario["warmup"]) == ("1000s", "200s")
    assert t.scenario["bottleneck"]["rate"] == "100000000bps"
    assert {t.labels["n"] for t in ex["fig1"]} == {1, 10, 20, 40}
    # Fig. 3 keeps the peak load at 0.8 with a 100 ms RTT: C = N x 3.2 Mb/s, from 3.2 Mb/s to 3.2 Gb/s.
    for t in ex["fig3"]:
        n = t.labels["n"]
        assert t.scenario["bottleneck"]["rate"] == f"{n * 3.2e6:.10g}bps"
        assert n * 32 * 8000 / (0.1 * n * 3.2e6) == pytest.approx(0.8)
        assert t.labels["peak"] == pytest.approx(tb.peak_load(n, n * 3.2e6))
    assert {t.labels["n"] for t in ex["fig3"]} == {1, 10, 100, 300, 1000}
    assert {t.labels["buffer"] for t in ex["fig3"] if t.labels["bdp"]} == {400, 4000}  # C x 100 ms
    # Fig. 2: 500 flows, 1.5 Gb/s, B = 10; Fig. 5: 1 Gb/s core, W_max 10,000, B = 10, 100 flows.
    assert {t.scenario["flows"]["count"] for t in ex["fig2"]} == {500}
    f5 = ex["fig5"][0].scenario
    assert (f5["tcp"]["max_window"], f5["bottleneck"]["queue"]["limit"]) == (10_000, 9)
    assert f5["flows"]["count"] == 100
    # Fig. 6: the log buffer is round(5 log10 W), 5 at W = 10, 16 at W = 1529; peak load 0.55.
    logs = {t.labels["w_max"]: t.labels["buffer"] for t in ex["fig6"] if t.labels["kind"] == "log"}
    assert logs[10] == 5 and logs[1529] == 16
    # Theorem 1's example: B = 15 is limit 14.
    assert ex["theorem1"][0].scenario["bottleneck"]["queue"]["limit"] == 14


def test_quick_mode_runs_the_judged_principal_runs_as_the_full_run_does() -> None:
    quick, full = tb.experiments(True, 2), tb.experiments(False, 2)
    for name in ("fig1_key", "fig1_reno40", "fig2", "fig6"):
        keys = {t.key("v") for t in full[name]}
        assert {t.key("v") for t in quick[name] if t.seed <= 2} <= keys, name
    keys = {t.key("v") for t in full["fig3"]}
    assert {t.key("v") for t in quick["fig3"]} <= keys  # N = 1, 10, 100 of the full design


# ------------------------------------------------------------------------------------------- synthetic runs


def paper_world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
    """Utilization (and the other fields a claim reads) in a world like the paper's, with a little noise."""
    eps = 0.002 * ((seed * 7919) % 5 - 2)
    n, b, paced = labels.get("n"), labels.get("buffer"), labels.get("paced")
    u, extra, loss = 0.5, {}, 0.001
    if exp in ("fig1", "fig1_key", "alt_paced", "t6_cause", "fig4"):
        u = min(labels.get("peak", 1.0), 0.86 if n == 40 else 0.9) if paced else 0.3
    elif exp in ("fig1_reno40", "alt_reno"):
        u = 0.6 if b == 50 else 0.95
    elif exp in ("fig3", "fig3_minrto", "fig3_newreno", "reno_cause"):
        if labels.get("bdp"):
            u = 0.8
        else:
            u = 0.9 * labels.get("peak", 0.8) if paced else 0.2
    elif exp == "rtt":
        u = 0.9 * labels["peak"]
    elif exp == "fig2":
        extra = {"cwnd_mean": 50.0 if paced else 15.0, "cwnd_at_wmax": 0.01, "trace_t": [0.0, 1.0],
                 "trace_cwnd": [2.0, 3.0]}
        loss = 0.001 if paced else 0.02
    elif exp == "fig5":
        a = labels["access_mbps"]
        falling = {9: 0.9, 10: 0.95, 12: 0.9, 15: 0.85, 20: 0.8, 50: 0.6, 100: 0.5}
        u = 0.099 * a if a <= 8 else falling.get(a, 0.2)
    elif exp in ("fig6", "fig6_waiting"):
        w = labels["w_max"]
        u = 0.55 if labels["kind"] == "log" or w == 10 else 0.55 - 0.1 * math.log10(w)
    elif exp == "theorem1":
        u = 0.49
    u *= 1 + eps
    return {"summary": {"utilization": u, "loss_rate": loss + eps / 100, "timeouts": 10, "duration_s": 100.0},
            "extra": {k: (v + eps if isinstance(v, float) else v) for k, v in extra.items()}}


def results_of(world: Callable[..., Dict[str, Any]], quick: bool = False, seeds: int = 3
               ) -> Dict[str, List[Dict[str, Any]]]:
    out: Dict[str, List[Dict[str, Any]]] = {}
    for exp, tasks in tb.experiments(quick, seeds).items():
        out[exp] = [{"labels": t.labels, "seed": t.seed, **world(t.labels, t.seed, exp)} for t in tasks]
    return out


def verdict(cid: str, results: Dict[str, List[Dict[str, Any]]], quick: bool = False) -> str:
    claim = next(c for c in tb.CLAIMS if c.id == cid)
    return evaluate_claim(tb.CLAIMS, claim, results, quick, tb.PRINCIPAL).principal_verdict


PACKET_CLAIMS = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T13", "T14"]


def test_every_packet_level_claim_holds_in_the_papers_world() -> None:
    res = results_of(paper_world)
    for cid in PACKET_CLAIMS:
        assert verdict(cid, res) == HOLDS, cid


def changed(exp_match: Callable[[str, Dict[str, Any]], bool], value: Callable[[Dict[str, Any]], float]):
    def world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
        rec = paper_world(labels, seed, exp)
        if exp_match(exp, labels):
            rec["summary"]["utilization"] = value(labels) + 0.001 * (seed % 3)
        return rec
    return world


def test_claims_differ_when_the_world_moves_away_from_the_paper() -> None:
    cases = {
        "T1": changed(lambda e, lb: e == "fig1_key" and lb["n"] == 40, lambda lb: 0.98),
        "T2": changed(lambda e, lb: e == "fig1_reno40", lambda lb: 0.95),
        "T3": changed(lambda e, lb: e == "fig1" and lb["n"] == 10 and lb["paced"], lambda lb: 0.1),
        "T4": changed(lambda e, lb: e == "fig3" and not lb["paced"] and not lb["bdp"], lambda lb: 0.43),
        "T6": changed(lambda e, lb: e == "fig1_key" and (lb["n"], lb["buffer"]) == (40, 20), lambda lb: 0.97),
        "T7": changed(lambda e, lb: e == "fig5" and lb["access_mbps"] == 1000, lambda lb: 0.99),
        "T8": changed(lambda e, lb: e == "fig6" and lb["kind"] == "log",
                      lambda lb: 0.55 - 0.2 * (lb["w_max"] > 10)),
        "T9": changed(lambda e, lb: e == "theorem1", lambda lb: 0.3),
        "T13": changed(lambda e, lb: e == "fig3" and lb["paced"] and lb["n"] == 10, lambda lb: 0.6),
        "T14": changed(lambda e, lb: e == "fig4" and lb["n"] == 200, lambda lb: 0.7),
    }
    for cid, world in cases.items():
        assert verdict(cid, results_of(world)) == DIFFERS, cid


def test_noise_leaves_the_claims_undecided() -> None:
    def noisy(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
        rec = paper_world(labels, seed, exp)
        rec["summary"]["utilization"] += 0.3 * (1 if (seed + len(str(labels.get("n")))) % 2 else -1)
        return rec

    res = results_of(noisy, seeds=2)
    for cid in ("T1", "T2", "T4", "T6", "T13", "T14"):
        assert verdict(cid, res) == INCONCLUSIVE, cid


def test_t4_names_its_cause_and_holds_only_under_ns227s_timers() -> None:
    def world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
        rec = paper_world(labels, seed, exp)
        if exp in ("fig3", "fig3_newreno") and not labels["paced"] and not labels["bdp"]:
            rec["summary"]["utilization"] = 0.27 + 0.001 * seed
        return rec

    res = results_of(world)
    claim = next(c for c in tb.CLAIMS if c.id == "T4")
    ev = evaluate_claim(tb.CLAIMS, claim, res, False, tb.PRINCIPAL)
    assert ev.principal_verdict == DIFFERS
    assert ev.reading == tb.READINGS["minrto-1s"][0] and ev.verdict == "holds only under a reading"
    assert "ns-2.27" in ev.outcome.why and "fig3_minrto" in ev.outcome.why
    names = [tb.READINGS[r][0] for r in ("minrto-1s", "newreno-sack")]
    assert [a.name for a in ev.outcome.alternatives] == names
    # the same tests under every reading
    quantities = [t.quantity for t in ev.outcome.tests]
    assert all([t.quantity for t in a.tests] == quantities for a in ev.outcome.alternatives)
    assert not any("N = 1," in q or q.endswith("N = 1") for q in quantities)  # one flow is not judged


def test_t6_and_t1_judge_the_same_40_flows_alike() -> None:
    res = results_of(paper_world)
    t1 = evaluate_claim(tb.CLAIMS, next(c for c in tb.CLAIMS if c.id == "T1"), res, False, tb.PRINCIPAL)
    t6 = evaluate_claim(tb.CLAIMS, next(c for c in tb.CLAIMS if c.id == "T6"), res, False, tb.PRINCIPAL)
    (a,) = t1.outcome.tests
    b = next(t for t in t6.outcome.tests if t.quantity == a.quantity)
    assert (a.est, a.region) == (b.est, b.region)
    world = changed(lambda e, lb: lb.get("n") == 40 and lb.get("buffer") == 20 and lb.get("paced"),
                    lambda lb: 0.97)
    ev = evaluate_claim(tb.CLAIMS, next(c for c in tb.CLAIMS if c.id == "T6"), results_of(world), False,
                        tb.PRINCIPAL)
    assert ev.principal_verdict == DIFFERS and "RTT spread" in ev.outcome.why and "t6_cause" in ev.outcome.why


def test_model_checks_and_theorem_2(monkeypatch: pytest.MonkeyPatch) -> None:
    res = results_of(paper_world)
    assert verdict("T10", res) == HOLDS and verdict("T12", res) == HOLDS

    def fake(value: float, spread: float) -> Callable[[bool], Dict[str, Any]]:
        def batches(quick: bool, count: Optional[int] = None) -> Dict[str, Any]:
            ws = [8, 16]
            vals = [value + spread * (k % 3 - 1) for k in range(12)]
            return {"w": ws, "batches": 12, "w2": {w: vals for w in ws}, "s1": {w: [0.1] * 12 for w in ws}}
        return batches

    for (value, spread), expected in (((1.0, 0.1), HOLDS), ((8.0, 0.1), DIFFERS), ((5.0, 3.0), INCONCLUSIVE)):
        monkeypatch.setattr(tb, "theorem2_batches", fake(value, spread))
        assert verdict("T11", res) == expected


@pytest.mark.slow
def test_theorem_2_batches_are_independent() -> None:
    mc = tb.theorem2_batches(True)
    assert mc["batches"] == 4 and mc["w"] == [8, 16, 32, 64]
    for w in mc["w"]:
        assert len(mc["w2"][w]) == 4 and len(set(mc["w2"][w])) > 1  # four batches, four estimates
        assert all(x >= 0.01 for x in mc["s1"][w])
    # the quick batches are the full run's first four
    first = tb.enachescu.slotted_loss_sweep([8], tb._t11_spacing, tb._t11_buffer, flows=tb.T11_FLOWS,
                                            load=tb.T11_LOAD, replications=tb.T11_REPS, seed=1000)
    assert mc["w2"][8][0] == first[0]["loss_times_wmax2"]
    # more batches (an inconclusive T11 asks for them) extend the same sequence
    more = tb.theorem2_batches(True, 6)
    assert more["batches"] == 6 and more["w2"][8][:4] == mc["w2"][8]


def test_quick_reproduce_on_synthetic_runs_writes_a_table_the_recheck_accepts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {}
    for exp, tasks in tb.experiments(True, 4).items():
        for t in tasks:
            names[t.key("test")] = exp
    calls: List[int] = []

    def fake_runs(tasks: List[Task], cache: Path, *, workers: int = 1, progress: Optional[Any] = None,
                  known: Optional[Any] = None):
        calls.append(len(tasks))
        out = []
        for t in tasks:
            rec = paper_world(t.labels, t.seed, names[t.key("test")])
            out.append({"labels": t.labels, "seed": t.seed, "wall_s": 0.0, **rec})
        return out

    monkeypatch.setattr(rp, "run_tasks", fake_runs)
    monkeypatch.setattr(rp, "engine_version", lambda: "test")
    doc = rp.reproduce("tiny-buffers", tmp_path, quick=True)
    saved = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(saved) == []
    assert [c["id"] for c in saved["claims"]] == [f"T{i}" for i in range(1, 15) if i not in (10, 12)]
    assert [c["id"] for c in saved["model_checks"]] == ["T10", "T12"]
    assert saved["principal_reading"] == tb.PRINCIPAL and doc["tally"] == saved["tally"]
    assert all(c["paper"]["where"] for c in saved["claims"])
    report = (tmp_path / "report.md").read_text()
    assert "## Model checks" in report and "ns-2.27 timers" in report and "Agent/TCP/Reno" in report
    for stem in ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6"):
        assert (tmp_path / f"{stem}.png").exists(), stem
    assert calls
