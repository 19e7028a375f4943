"""Statistical verdicts of `bufferlab validate`: Welch's interval, the three verdicts, the replication loop
(with fake simulators, so no ns-3 is needed) and the RTT-unfairness exponent."""

from __future__ import annotations

import argparse
import math
import types

import pytest

from bufferlab.commands import validate
from bufferlab.errors import BufferLabError
from bufferlab.validation import compare, ns3sim, report

pd = pytest.importorskip("pandas")

# ------------------------------------------------------------------------------------------ Welch


def test_welch_interval_hand_computed():
    a, b = [1.0, 2.0, 3.0, 4.0, 5.5], [2.0, 3.5, 4.0, 6.0]
    iv = compare.welch_interval(a, b)
    # means 3.1 and 3.875; s_a^2/n_a = 3.05/5 = 0.61, s_b^2/n_b = (8.1875/3)/4 = 0.682291666...
    se2 = 0.61 + 8.1875 / 12.0
    df = se2 ** 2 / (0.61 ** 2 / 4 + (8.1875 / 12.0) ** 2 / 3)
    assert iv.mean_a == pytest.approx(3.1) and iv.mean_b == pytest.approx(3.875)
    assert iv.difference == pytest.approx(-0.775)
    assert iv.df == pytest.approx(df, rel=1e-12) and iv.df == pytest.approx(6.7285441711944145, rel=1e-12)
    # t(0.975, 6.7285...) * sqrt(se2), as scipy.stats.ttest_ind(a, b, equal_var=False) gives it.
    assert (iv.low, iv.high) == (pytest.approx(-3.4852227170505605, rel=1e-12),
                                 pytest.approx(1.9352227170505607, rel=1e-12))
    assert (iv.n_a, iv.n_b) == (5, 4)


def test_welch_interval_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    a = [0.91, 0.95, 0.88, 0.97, 0.93, 0.90, 0.96]
    b = [0.94, 0.92, 0.99, 0.95, 0.97, 0.93, 0.98, 0.96, 0.94, 0.95]
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(0.95)
    iv = compare.welch_interval(a, b)
    assert iv.low == pytest.approx(ci.low, rel=1e-10) and iv.high == pytest.approx(ci.high, rel=1e-10)
    assert iv.df == pytest.approx(res.df, rel=1e-10)


def test_welch_interval_without_variance_is_the_difference():
    iv = compare.welch_interval([0.5, 0.5, 0.5], [0.4, 0.4])
    assert (iv.low, iv.high, iv.df) == (pytest.approx(0.1), pytest.approx(0.1), math.inf)
    one = compare.welch_interval([0.7], [0.4])  # a single run of each: no spread to estimate
    assert one.low == one.high == pytest.approx(0.3)
    # One side constant: the interval comes from the other alone (df = n - 1).
    iv = compare.welch_interval([110.0, 112.0, 114.0], [100.0, 100.0, 100.0])
    assert iv.df == pytest.approx(2.0)
    half = 4.302652729749464 * 2.0 / math.sqrt(3.0)  # t(0.975, 2) * s / sqrt(n)
    assert (iv.low, iv.high) == (pytest.approx(12.0 - half), pytest.approx(12.0 + half))
    with pytest.raises(BufferLabError, match="at least one value"):
        compare.welch_interval([], [1.0])


def test_paired_interval_matches_scipy_and_pairs_the_rows():
    stats = pytest.importorskip("scipy.stats")
    # Runs that share their inputs: a common per-seed part cancels in each difference.
    common = [0.70, 0.95, 0.80, 0.60, 0.90, 0.75, 0.85, 0.65]
    a = [c + e for c, e in zip(common, [0.01, -0.02, 0.00, 0.02, -0.01, 0.01, 0.00, -0.01])]
    b = [c + e for c, e in zip(common, [0.03, 0.01, 0.02, 0.04, 0.02, 0.03, 0.01, 0.02])]
    ci = stats.ttest_rel(a, b).confidence_interval(0.95)
    iv = compare.paired_interval(a, b)
    assert iv.low == pytest.approx(ci.low, rel=1e-10) and iv.high == pytest.approx(ci.high, rel=1e-10)
    assert iv.df == 7 and (iv.n_a, iv.n_b) == (8, 8)
    row = compare.check_replicated("jain_index", a, b)
    assert (row.ci_low, row.ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert row.verdict == "pass"  # the difference is about -0.02 ± 0.01, inside ±0.03
    assert row.welch_verdict == "inconclusive"  # the seeds' spread of 0.1 swamps it unpaired
    assert "Welch's interval" in compare.table_markdown(compare.Comparison(name="x", scenario={}, rows=[row]))
    unpaired = compare.check_replicated("jain_index", a, b, paired=False)
    assert unpaired.verdict == unpaired.welch_verdict == "inconclusive"
    # A replication undefined on one side leaves its pair out; unequal counts fall back to Welch.
    gap = compare.check_replicated("jain_index", a + [None], b + [0.5])
    assert (gap.ci_low, gap.ci_high, gap.n_bufferlab) == (pytest.approx(ci.low), pytest.approx(ci.high), 8)
    assert compare.check_replicated("jain_index", a, b[:-1]).ci_low == pytest.approx(
        compare.welch_interval(a, b[:-1]).low)
    with pytest.raises(BufferLabError, match="two or more pairs"):
        compare.paired_interval([1.0], [2.0])


def test_the_three_verdicts():
    assert compare.interval_verdict(-0.01, 0.015, 0.02) == "pass"
    assert compare.interval_verdict(-0.02, 0.02, 0.02) == "pass"  # the band's edges belong to it
    assert compare.interval_verdict(0.021, 0.05, 0.02) == "fail"
    assert compare.interval_verdict(-0.05, -0.021, 0.02) == "fail"
    assert compare.interval_verdict(0.01, 0.03, 0.02) == "inconclusive"
    assert compare.interval_verdict(-0.03, 0.03, 0.02) == "inconclusive"
    assert compare.interval_verdict(0.0, 0.0, 0.0) == "pass"
    # The reproductions' rule: an interval with an undefined or infinite end decides nothing.
    assert compare.interval_verdict(0.5, float("nan"), 0.02) == "inconclusive"
    assert compare.interval_verdict(-float("inf"), 0.01, 0.02) == "inconclusive"


def test_check_replicated_rows():
    # Relative band around ns-3's mean: 15 % of 100 = 15; the interval [7.03, 16.97] straddles 15.
    row = compare.check_replicated("queue_mean_pkts", [110.0, 112.0, 114.0], [100.0, 100.0, 100.0])
    assert row.verdict == "inconclusive" and row.band == pytest.approx(15.0)
    assert row.tolerance == "±15% rel" and (row.n_bufferlab, row.n_ns3) == (3, 3)
    assert row.difference == pytest.approx(12.0) and row.key == "queue_mean_pkts"
    assert compare.check_replicated("queue_mean_pkts", [104.0, 105.0, 106.0], [100.0] * 3).verdict == "pass"
    # Deterministic metrics: a plain comparison (ns-3 gives 0.628 in every seed).
    assert compare.check_replicated("jain_index", [0.60] * 5, [0.628] * 5).verdict == "pass"
    assert compare.check_replicated("jain_index", [0.59] * 5, [0.628] * 5).verdict == "fail"
    # Loss: both means below 1 %: ±0.002 absolute; else 25 % of ns-3's mean.
    row = compare.check_replicated("loss_rate", [0.004, 0.0042], [0.003, 0.0031])
    assert row.tolerance == "±0.002 abs (<1%)" and row.band == 0.002
    row = compare.check_replicated("loss_rate", [0.020, 0.021, 0.022], [0.020, 0.020, 0.020])
    assert row.tolerance == "±25% rel" and row.band == pytest.approx(0.005) and row.verdict == "pass"
    # Undefined values are left out; a side with none fails.
    row = compare.check_replicated("jain_index", [0.9, None, float("nan")], [0.9, 0.9, 0.9])
    assert row.n_bufferlab == 1 and row.verdict == "pass"
    assert compare.check_replicated("jain_index", [None], [0.9]).verdict == "fail"
    info = compare.check_replicated("goodput_bps", [1.0, 2.0], [1.5, 1.5])
    assert info.verdict == "-" and info.passed and not math.isnan(info.ci_low)
    assert not compare.check_replicated("queue_mean_pkts", [110.0, 112.0, 114.0], [100.0] * 3).passed


def test_rtt_exponent():
    rtts = [0.02, 0.05, 0.1, 0.2]
    assert compare.rtt_exponent(rtts, [1e6 * r ** -1.5 for r in rtts]) == pytest.approx(1.5)
    # A flow without goodput has no logarithm and is left out of the fit.
    assert compare.rtt_exponent(rtts + [0.3], [1e6 * r ** -1.0 for r in rtts] + [0.0]) == pytest.approx(1.0)
    assert compare.rtt_exponent([0.1, 0.12, 0.15], [3e6, 2e6, 1e6]) is None  # spread below 2:1
    assert compare.rtt_exponent([0.02, 0.2], [2e6, 1e6]) is None  # fewer than 3 flows


# ------------------------------------------------------------------------------- replication loop

SCENARIO = {
    "name": "fake", "seed": 1, "duration": "10s", "warmup": "2s",
    "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 100}},
    "flows": {"count": 4, "rtt": "100ms"},
    "tcp": {"ssthresh_from": "pipe", "rto_backoff": "new-ack"},
}
SUMMARY = {"utilization": 0.95, "loss_rate": 0.01, "queue_mean_pkts": 50.0, "jain_index": 0.98,
           "queue_p99_pkts": 99.0, "delay_mean_s": 0.004, "goodput_bps": 9e6}
PORT = {"name": "bottleneck", "utilization": 0.95, "loss_rate": 0.01, "mark_rate": 0.0,
        "queue_mean_pkts": 50.0, "queue_p99_pkts": 99.0, "delay_mean_s": 0.004}


class FakeSimulators:
    """Both simulators; BufferLab's utilization is ``engine(seed)``, ns-3's ``ns3(seed)``."""

    def __init__(self, engine, ns3):
        self.engine_u, self.ns3_u, self.seeds = engine, ns3, []

    def engine(self, sc):
        self.seeds.append(sc["seed"])
        u = self.engine_u(sc["seed"])
        return types.SimpleNamespace(
            summary=dict(SUMMARY, utilization=u),
            flows=pd.DataFrame({"flow": [0, 1, 2, 3], "rtt_s": [0.1] * 4, "goodput_bps": [2.25e6] * 4}),
            ports=pd.DataFrame([dict(PORT, utilization=u)]),
            groups=pd.DataFrame([{"name": "flows", "goodput_bps": 9e6, "jain_index": 0.98}]),
            queue_series=None)

    def ns3(self, sc):
        u = self.ns3_u(sc["seed"])
        return dict(SUMMARY, utilization=u, wall_s=1.0, flows=[{"rtt_s": 0.1, "goodput_bps": 2.25e6}] * 4,
                    ports=[dict(PORT, utilization=u)], groups=[{"name": "flows", "goodput_bps": 9e6}])

    def kwargs(self):
        return {"engine_runner": self.engine, "ns3_runner": self.ns3}


def _alternating(amplitude):
    return lambda seed: 0.96 + amplitude * (-1) ** seed


def test_progress_counts_seeds_and_the_planned_total_grows_with_each_batch():
    calls = []
    sims = FakeSimulators(_alternating(0.01), lambda seed: 0.95)
    compare.compare_replicated(SCENARIO, 4, progress=lambda done, total: calls.append((done, total)),
                               **sims.kwargs())
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4), (5, 6), (6, 6), (7, 8), (8, 8)]


def test_inconclusive_adds_batches_until_decided():
    # BufferLab 0.95 / 0.97 alternately, ns-3 0.95: the difference is 0.01, the band ±0.02. With 4 seeds
    # the interval is [-0.0084, 0.0284]; with 6, [-0.0015, 0.0215]; with 8, [0.0011, 0.0189]: pass.
    sims = FakeSimulators(_alternating(0.01), lambda seed: 0.95)
    log = []
    comp = compare.compare_replicated(SCENARIO, 4, log=log.append, **sims.kwargs())
    assert sims.seeds == [1, 2, 3, 4, 5, 6, 7, 8]
    assert comp.verdict == "pass" and comp.replications == 8
    row = {r.metric: r for r in comp.rows}["utilization"]
    assert (row.n_bufferlab, row.n_ns3, row.verdict) == (8, 8, "pass")
    assert row.difference == pytest.approx(0.01)
    half = 2.3646242515927844 * math.sqrt(8 / 7 * 1e-4 / 8)  # t(0.975, 7) * s / sqrt(8)
    assert (row.ci_low, row.ci_high) == (pytest.approx(0.01 - half), pytest.approx(0.01 + half))
    assert len(log) == 2 and log[0].startswith("inconclusive after 4 replications (utilization)")
    assert "inconclusive after 4 replications: extended to 8 (cap 12)" in comp.notes
    assert any(n.startswith("means of 8 replications (seeds 1..8)") for n in comp.notes)
    # Deterministic: the same seeds give the same verdicts and intervals.
    again = compare.compare_replicated(SCENARIO, 4, **FakeSimulators(_alternating(0.01),
                                                                       lambda s: 0.95).kwargs())
    assert [r.__dict__ for r in again.rows] == [r.__dict__ for r in comp.rows]


def test_inconclusive_at_the_cap_does_not_pass():
    # A difference of 0.01 with a spread of ±0.03: still straddling the band after 12 seeds (the cap).
    sims = FakeSimulators(_alternating(0.03), lambda seed: 0.95)
    comp = compare.compare_replicated(SCENARIO, 4, **sims.kwargs())
    assert sims.seeds == list(range(1, 13)) and comp.replications == 12
    assert comp.verdict == "inconclusive"
    sims = FakeSimulators(_alternating(0.03), lambda seed: 0.95)
    comp = compare.compare_replicated(SCENARIO, 4, max_replications=5, **sims.kwargs())
    assert sims.seeds == [1, 2, 3, 4, 5] and comp.verdict == "inconclusive"
    assert "inconclusive after 4 replications: extended to 5 (cap 5)" in comp.notes
    # The time budget stops the extension (and says so).
    sims = FakeSimulators(_alternating(0.03), lambda seed: 0.95)
    comp = compare.compare_replicated(SCENARIO, 4, time_budget_s=1e-9, **sims.kwargs())
    assert sims.seeds == [1, 2, 3, 4] and comp.verdict == "inconclusive"
    assert any("the time budget of 1e-09 s ended the extension" in n for n in comp.notes)


def test_a_failed_metric_ends_the_scenario_without_more_seeds():
    # utilization fails (0.90 against 0.95 in every seed) while nothing else is undecided.
    sims = FakeSimulators(lambda seed: 0.90, lambda seed: 0.95)
    comp = compare.compare_replicated(SCENARIO, 4, **sims.kwargs())
    assert sims.seeds == [1, 2, 3, 4] and comp.verdict == "fail"
    # A single replication: point verdicts, never extended.
    sims = FakeSimulators(_alternating(0.05), lambda seed: 0.95)  # seed 1: 0.91
    comp = compare.compare_replicated(SCENARIO, 1, **sims.kwargs())
    assert sims.seeds == [1] and comp.verdict == "fail" and comp.replications == 1
    row = comp.rows[0]
    assert row.ci_low == row.ci_high == pytest.approx(-0.04)


def test_replication_cap():
    assert compare.replication_cap(10) == 30
    assert compare.replication_cap(3) == 9
    assert compare.replication_cap(10, 40) == 40
    assert compare.replication_cap(10, 5) == 10
    with pytest.raises(BufferLabError, match="--max-replications must be >= 1"):
        compare.replication_cap(10, 0)


def _spread_runners(rtts):
    def engine(sc):
        return types.SimpleNamespace(
            summary=dict(SUMMARY), ports=pd.DataFrame([PORT]), queue_series=None,
            flows=pd.DataFrame({"rtt_s": rtts, "goodput_bps": [1e5 * r ** -1.2 for r in rtts]}),
            groups=pd.DataFrame([{"name": "flows", "goodput_bps": 9e6, "jain_index": 0.98}]))

    def ns3(sc):
        return dict(SUMMARY, wall_s=1.0, ports=[PORT], groups=[{"name": "flows", "goodput_bps": 9e6}],
                    flows=[{"rtt_s": r, "goodput_bps": 1e5 * r ** -1.25} for r in rtts])

    return {"engine_runner": engine, "ns3_runner": ns3}


def test_rtt_spread_adds_the_exponent_row():
    # RTTs spread by 10:1: k is compared under its tolerance.
    rtts = [0.02, 0.05, 0.1, 0.2]
    wide = dict(SCENARIO, flows={"count": 4, "rtt": ["20ms", "50ms", "100ms", "200ms"]})
    comp = compare.compare_replicated(wide, 3, **_spread_runners(rtts))
    row = {r.metric: r for r in comp.rows}["rtt_exponent"]
    assert row.bufferlab == pytest.approx(1.2) and row.ns3 == pytest.approx(1.25)
    assert row.verdict == "pass" and row.tolerance == "±0.1 abs" and row.key == "rtt_exponent"
    # 8:1: shown with its interval, without a verdict.
    rtts = [0.02, 0.04, 0.08, 0.16]
    narrow = dict(SCENARIO, flows={"count": 4, "rtt": ["20ms", "40ms", "80ms", "160ms"]})
    comp = compare.compare_replicated(narrow, 3, **_spread_runners(rtts))
    row = {r.metric: r for r in comp.rows}["rtt_exponent"]
    assert row.verdict == "-" and row.key == "rtt_exponent_narrow" and row.difference == pytest.approx(-0.05)
    # Equal RTTs: no exponent row.
    comp = compare.compare_replicated(SCENARIO, 2, **FakeSimulators(lambda s: 0.95, lambda s: 0.95).kwargs())
    assert "rtt_exponent" not in [r.metric for r in comp.rows]


# ---------------------------------------------------------------------------------------- command


def test_validate_exits_1_on_inconclusive_and_reports_intervals(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: True)
    seen = {}
    real = compare.compare_replicated

    def fake_replicated(sc, reps, **kw):
        seen.update(kw, reps=reps)
        sims = FakeSimulators(_alternating(0.03), lambda seed: 0.95)
        return real(sc, 4, max_replications=kw["max_replications"], **sims.kwargs())

    monkeypatch.setattr(compare, "compare_replicated", fake_replicated)
    path = tmp_path / "fake.toml"
    path.write_text('name = "fake"\nseed = 1\nduration = "10s"\nwarmup = "2s"\n'
                    '[bottleneck]\nrate = "20Mbps"\ndelay = "5ms"\n'
                    'queue = { discipline = "droptail", limit = 100 }\n'
                    '[flows]\ncount = 4\nrtt = "100ms"\n'
                    '[tcp]\nssthresh_from = "pipe"\nrto_backoff = "new-ack"\n')
    args = argparse.Namespace(scenarios=[str(path)], quick=False, out=str(tmp_path / "out"), ns3_only=False,
                              isolate=False, replications=None, max_replications=6, time_budget=None)
    assert validate.handler(args) == 1
    assert seen["max_replications"] == 6 and seen["reps"] == 10 and seen["time_budget_s"] is None
    assert "INCONCLUSIVE at the replication cap (not a pass): fake" in capsys.readouterr().err
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| [fake](#fake) | 4 | inconclusive | 6 |" in report
    assert "| utilization | 0.96 | 0.95 | 0.01 | [" in report and "| ±0.02 abs | 6 | inconclusive |" in report
    saved = (tmp_path / "out" / "results" / "fake.json").read_text()
    assert '"replications": 6' in saved and "NaN" not in saved
    bad = argparse.Namespace(**{**vars(args), "max_replications": None, "time_budget": -1.0})
    with pytest.raises(BufferLabError, match="--time-budget must be a positive number of seconds"):
        validate.handler(bad)


def test_matrix_covers_the_buffer_sizing_regimes():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "validation" / "scenarios"
    seen = []
    for f in sorted(root.glob("*.toml")):
        cfg = ns3sim.translate(ns3sim.load(f))
        link = cfg["links"][0]
        rtts = [r for g in cfg["groups"] for r in g["flows"]["rtt_s"]]
        bdp = link["rate_bps"] * sum(rtts) / len(rtts) / 8.0 / cfg["tcp"]["wire_size"]
        seen.append({
            "flows": cfg["flows_total"], "disc": link["queue"]["discipline"],
            "spread": max(rtts) / min(rtts), "buffer_bdp": link["limit_pkts"] / bdp,
            "sizes": {g["tcp"]["packet_size"] for g in cfg["groups"]},
            "min_rto": {g["tcp"]["min_rto_s"] for g in cfg["groups"]},
            "slow_access": max(a for g in cfg["groups"] for a in g["flows"]["access_rate_bps"])
            < link["rate_bps"],
        })
    # RTT spreads of 10:1 and more under DropTail and RED.
    assert any(s["spread"] >= 10 and s["disc"] == "droptail" for s in seen)
    assert any(s["spread"] >= 10 and s["disc"] == "red" for s in seen)
    # Buffers of 1-5 % of the BDP with 5, 40 and 400 flows; above 2 BDP.
    for n in (5, 40, 400):
        assert any(s["flows"] == n and 0.009 <= s["buffer_bdp"] <= 0.052 for s in seen), n  # v28: 16 of 312.5
    assert any(s["buffer_bdp"] > 2.5 for s in seen)
    # Minimum RTOs of 200 ms and 1 s at the same tiny buffer; packet sizes other than 1000 B; slow access.
    tiny = [s for s in seen if s["flows"] == 40 and s["buffer_bdp"] < 0.05]
    assert {0.2, 1.0} <= set().union(*(s["min_rto"] for s in tiny))
    assert {576, 1500} <= set().union(*(s["sizes"] for s in seen))
    assert any(s["slow_access"] and s["buffer_bdp"] < 0.05 for s in seen)


def test_replication_caps_by_scenario_name() -> None:
    default, caps = validate.replication_caps(["30", "v04=300", "v1=20", "v14=120"])
    assert default == 30 and caps == {"v04": 300, "v1": 20, "v14": 120}
    assert validate.cap_for("v04-10flows", default, caps) == 300
    assert validate.cap_for("v14-parking-lot", default, caps) == 120  # the longest prefix wins
    assert validate.cap_for("v17-codel", default, caps) == 20
    assert validate.cap_for("v21-cubic", default, caps) == 30
    assert validate.replication_caps(None) == (None, {}) and validate.replication_caps(12) == (12, {})
    for bad in (["x"], ["v04="], ["=5"], ["0"], ["v04=0"]):
        with pytest.raises(BufferLabError, match="max-replications"):
            validate.replication_caps(bad)


def test_the_report_gives_the_window_timeouts_by_cause() -> None:
    def side(total, **causes):
        return {"window_timeouts": total, **{f"window_timeouts_{k}": v for k, v in causes.items()}}

    comp = compare.Comparison(name="x", scenario={},
                              engine=side(3.0, lost_retransmission=1.0, insufficient_dupacks=2.0),
                              ns3=side(2.5, during_recovery=0.5, insufficient_dupacks=2.0))
    assert report.timeout_causes(comp) == (
        "Timeouts in the window per run, BufferLab / ns-3: 3.0 / 2.5; by cause: lost retransmission "
        "1.0 / 0.0, in fast recovery 0.0 / 0.5, too few duplicate ACKs 2.0 / 2.0, other 0.0 / 0.0.")
    assert report.timeout_causes(compare.Comparison(name="x", scenario={}, engine={}, ns3={})) == ""
