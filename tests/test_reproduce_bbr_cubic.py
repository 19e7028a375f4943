"""`bufferlab reproduce bbr-cubic` (Ware et al., IMC 2019) and `bufferlab.models.bbr_share`: the model's
equations against the paper's algebra, the design against the paper's parameters, a larger seed count giving a
superset of the runs, each claim on synthetic records (a world like the paper's holds, a changed one differs,
one seed decides nothing) and a quick reproduction on synthetic runs whose claims.json the recheck accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import bufferlab
import bufferlab.reproduce as rp
from bufferlab.errors import BufferLabError
from bufferlab.models import bbr_share
from bufferlab.reproduce import bbr_cubic as bc
from bufferlab.reproduce import paper_module
from bufferlab.reproduce.claims import DIFFERS, HOLDS, INCONCLUSIVE, evaluate_claim
from bufferlab.reproduce.runner import Task
from bufferlab.reproduce.verdicts import recheck

EXPERIMENTS = {"fig8a", "fig8b", "fig8c", "fig1b", "many", "alt_fig8a", "alt_many", "drain"}
CLAIM_IDS = [f"W{i}" for i in range(1, 9)]
C10 = 10e6 / 12000  # 10 Mb/s in 1500-byte packets per second


def test_the_model_is_the_papers_algebra() -> None:
    # Eq. 9 at 10 Mb/s, 40 ms (c·l = 33.3 packets), q = 256, N = 1: p = 1/2 - 1/(2X) - 4/q.
    x = 256 / (C10 * 0.04)
    assert bbr_share.loss_based_share(1, 256, C10, 0.04) == pytest.approx(0.5 - 1 / (2 * x) - 4 / 256)
    # p solves eq. 8 = (1 - p)(q + c·l).
    p = bbr_share.loss_based_share(2, 512, C10, 0.04)
    assert bbr_share.inflight_cap(2, 512, C10, 0.04, p) == pytest.approx((1 - p) * (512 + C10 * 0.04))
    # A negative p is BBR's whole link; eq. 11's ProbeRTT time and eq. 10's fraction.
    assert bbr_share.loss_based_share(1, 32, C10, 0.04) == 0.0
    assert bbr_share.probe_fraction(32, C10, 0.04) == pytest.approx((32 / C10 + 0.24) / 10)
    assert bbr_share.bbr_fraction(1, 32, C10, 0.04) == pytest.approx(1 - (32 / C10 + 0.24) / 10)
    # Eq. 5: q >> c·l and one flow: p -> 1/2.
    assert bbr_share.loss_based_share(1, 1e9, C10, 0.04) == pytest.approx(0.5, abs=1e-6)
    with pytest.raises(BufferLabError, match="queue_pkts"):
        bbr_share.bbr_fraction(1, 0, C10, 0.04)
    with pytest.raises(BufferLabError, match="n_bbr"):
        bbr_share.bbr_fraction(0, 10, C10, 0.04)


def test_registry_and_design() -> None:
    assert [c.id for c in bc.CLAIMS] == CLAIM_IDS + ["M1", "M2"]
    for c in bc.CLAIMS:
        assert "\"" in c.paper and c.where, c.id
    assert paper_module("bbr-cubic") is bc
    assert "Hock" in (bc.__doc__ or "") and "not reproduced" in (bc.__doc__ or "")
    # Queues: X BDPs rounded to a power of two; 10 Mb/s x 40 ms is 33.3 packets of 1500 bytes.
    assert [bc.queue_pkts(x, *bc.DEFAULT) for x in bc.X_GRID] == [32, 64, 128, 256, 512, 1024]
    assert bc.queue_pkts(3, *bc.DEFAULT, exact_queue=True) == 100
    ex = bc.experiments(False, 1)
    assert set(ex) == EXPERIMENTS
    t = next(t for t in ex["fig8a"] if (t.labels["n"], t.labels["x"]) == (2, 8))
    sc = t.scenario
    assert sc["bottleneck"]["queue"] == {"discipline": "droptail", "limit": 256}
    assert (sc["duration"], sc["warmup"]) == ("600s", "200s")  # d = 400 s after convergence
    assert [g["count"] for g in sc["flows"]] == [2, 1]
    assert sc["flows"][0]["tcp"]["congestion_control"] == {
        "kind": "bbr", "aggregation": "linux", "recovery_exit": "restore", "idle_restart": "linux",
        "rtt_sample": "linux"}
    assert sc["flows"][1]["tcp"]["congestion_control"] == "cubic"
    reno = ex["fig8c"][0].scenario
    assert reno["flows"][1]["tcp"]["congestion_control"] == "newreno" and reno["duration"] == "400s"
    ns3 = next(t for t in ex["alt_fig8a"] if t.labels["reading"] == "ns3-bbr").scenario
    assert ns3["flows"][0]["tcp"]["congestion_control"]["aggregation"] == "ns-3"
    assert {t.labels["cubics"] for t in ex["many"]} == {1, 2, 4, 8, 16}
    for name, tasks in ex.items():  # the engine accepts every experiment's scenarios (run for 1 s)
        short = {**tasks[0].scenario, "duration": "1s", "warmup": "0s", "seed": 1}
        res = bufferlab.run(short, progress=False)
        assert res.summary["duration_s"] == pytest.approx(1.0), name


@pytest.mark.parametrize("quick", [True, False])
def test_more_seeds_give_a_superset_of_the_runs(quick: bool) -> None:
    small, big = bc.experiments(quick, 2), bc.experiments(quick, 3)
    for name, tasks in small.items():
        assert {t.key("v") for t in tasks} <= {t.key("v") for t in big[name]}, name


# ------------------------------------------------------------------------------------------- synthetic runs


def paper_world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
    """BBR's share as the paper's model and measurements have it, with a little noise per seed."""
    eps = 0.002 * ((seed * 7919) % 5 - 2)
    extra: Dict[str, Any] = {}
    if exp in ("fig8a", "fig8c", "alt_fig8a"):
        m = bc.model(labels["n"], labels["q"])
        extra["bbr_share"] = (min(m, 0.47) if labels["x"] >= 16 else m) + eps
    elif exp == "fig8b":
        extra["bbr_share"] = bc.model(labels["n"], labels["q"], bc.FAST) + eps
    elif exp in ("many", "alt_many"):
        extra["bbr_share"] = 0.42 + eps
    elif exp == "fig1b":
        extra["bbr_share"] = (0.40 if labels["minutes"] == 4 else 0.30) + eps
    elif exp == "drain":
        extra = {"bbr_share": 1.0, "queue_min": 0.0 if labels["n"] < 13 else 4.0 * labels["n"] - 50 + eps}
    return {"summary": {}, "extra": extra}


def results_of(world: Callable[..., Dict[str, Any]], seeds: int = 3) -> Dict[str, List[Dict[str, Any]]]:
    return {exp: [{"labels": t.labels, "seed": t.seed, **world(t.labels, t.seed, exp)} for t in tasks]
            for exp, tasks in bc.experiments(False, seeds).items()}


def verdict(cid: str, results: Dict[str, List[Dict[str, Any]]]) -> str:
    claim = next(c for c in bc.CLAIMS if c.id == cid)
    return evaluate_claim(bc.CLAIMS, claim, results, False, bc.PRINCIPAL).principal_verdict


def test_every_claim_holds_in_the_papers_world() -> None:
    res = results_of(paper_world)
    for cid in CLAIM_IDS + ["M1", "M2"]:
        assert verdict(cid, res) == HOLDS, cid


def changed(match: Callable[[str, Dict[str, Any]], bool], key: str, value: float):
    def world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
        rec = paper_world(labels, seed, exp)
        if match(exp, labels):
            rec["extra"][key] = value
        return rec
    return world


def test_claims_differ_when_the_world_moves_away_from_the_paper() -> None:
    cases = {
        "W1": changed(lambda e, lb: e == "many" and lb["cubics"] == 4, "bbr_share", 0.2),
        "W2": changed(lambda e, lb: e == "many" and lb["cubics"] == 16, "bbr_share", 0.6),
        "W3": changed(lambda e, lb: e == "fig8a" and lb["x"] == 32 and lb["n"] == 1, "bbr_share", 0.7),
        "W4": changed(lambda e, lb: e == "fig8a" and lb["x"] == 1 and lb["n"] == 1, "bbr_share", 0.6),
        "W5": changed(lambda e, lb: e == "fig8b", "bbr_share", 0.05),
        "W6": changed(lambda e, lb: e == "fig8c", "bbr_share", 0.05),
        "W7": changed(lambda e, lb: e == "fig1b" and lb["minutes"] == 4, "bbr_share", 0.1),
        "W8": changed(lambda e, lb: e == "drain" and lb["n"] == 16, "queue_min", 0.0),
    }
    for cid, world in cases.items():
        assert verdict(cid, results_of(world)) == DIFFERS, cid


def test_one_seed_decides_no_sampled_claim() -> None:
    res = results_of(paper_world, seeds=1)
    for cid in ("W1", "W3", "W5", "W7"):
        assert verdict(cid, res) == INCONCLUSIVE, cid


def test_quick_reproduce_on_synthetic_runs_writes_a_table_the_recheck_accepts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {t.key("test"): exp for exp, tasks in bc.experiments(True, 4).items() for t in tasks}

    def fake_runs(tasks: List[Task], cache: Path, *, workers: int = 1, progress: Optional[Any] = None,
                  known: Optional[Any] = None):
        return [{"labels": t.labels, "seed": t.seed, "wall_s": 0.0,
                 **paper_world(t.labels, t.seed, names[t.key("test")])} for t in tasks]

    monkeypatch.setattr(rp, "run_tasks", fake_runs)
    monkeypatch.setattr(rp, "engine_version", lambda: "test")
    doc = rp.reproduce("bbr-cubic", tmp_path, quick=True)
    saved = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(saved) == [] and doc["tally"] == saved["tally"]
    assert [c["id"] for c in saved["claims"]] == CLAIM_IDS
    report = (tmp_path / "report.md").read_text()
    assert "Fig. 8(b)" in report and "ns-3 3.44" in report
    for stem in ("fig8", "fig1b", "many"):
        assert (tmp_path / f"{stem}.png").exists(), stem


def test_model_command() -> None:
    import subprocess
    import sys

    argv = ["model", "bbr-share", "--queue-bdp", "32", "--rate", "10Mbps", "--rtt", "40ms", "--json"]
    out = subprocess.run([sys.executable, "-m", "bufferlab", *argv], capture_output=True, text=True,
                         check=True, timeout=60)
    doc = json.loads(out.stdout)
    assert doc["bbr_fraction"] == pytest.approx(bbr_share.bbr_fraction(1, 32 * C10 * 0.04, C10, 0.04))
    assert doc["queue_pkts"] == pytest.approx(32 * C10 * 0.04)
    for argv, field in ((["--rate", "10Mbps", "--rtt", "40ms"], "--queue"),
                        (["--queue", "0", "--rate", "10Mbps", "--rtt", "40ms"], "--queue"),
                        (["--queue", "64", "--bbr-flows", "0", "--rate", "10Mbps", "--rtt", "40ms"],
                         "--bbr-flows"),
                        (["--queue", "64", "--rate", "fast", "--rtt", "40ms"], "--rate")):
        bad = subprocess.run([sys.executable, "-m", "bufferlab", "model", "bbr-share", *argv],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode != 0 and field in bad.stderr and "Traceback" not in bad.stderr, argv
