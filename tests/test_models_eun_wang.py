"""Tests of the Eun & Wang (2008) doubly-stochastic Markov model against closed forms and independent code."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest
from scipy import stats

from bufferlab.commands import model
from bufferlab.errors import BufferLabError
from bufferlab.models import eun_wang as ew

# ------------------------------------------------------------------------------------------------
# independent helpers
# ------------------------------------------------------------------------------------------------


def lindley_queue_seen_by_arrivals(rho: float, service: str, n: int, seed: int) -> np.ndarray:
    """Number in system seen by arrivals of a FIFO single-server queue, by the Lindley recursion.

    By PASTA this has the time-stationary distribution.  Arrival rate rho, mean service time 1.
    """
    rng = np.random.default_rng(seed)
    inter = rng.exponential(1.0 / rho, n)
    serv = rng.exponential(1.0, n) if service == "M" else np.ones(n)
    t = np.cumsum(inter)
    u = serv[:-1] - inter[1:]
    x = np.concatenate([[0.0], np.cumsum(u)])
    wait = x - np.minimum.accumulate(np.minimum(x, 0.0))
    dep = t + wait + serv
    idx = np.arange(n)
    return idx - np.searchsorted(dep, t, side="right")


def crommelin_md1(rho: float, nmax: int) -> np.ndarray:
    """Classical closed form of the M/D/1 number-in-system distribution (valid numerically for small n)."""
    p = np.zeros(nmax + 1)
    p[0] = 1 - rho
    p[1] = (1 - rho) * (math.exp(rho) - 1)
    for n in range(2, nmax + 1):
        s = 0.0
        for k in range(1, n + 1):
            t = (k * rho) ** (n - k) / math.factorial(n - k)
            if n - k - 1 >= 0:
                t += (k * rho) ** (n - k - 1) / math.factorial(n - k - 1)
            s += (-1) ** (n - k) * math.exp(k * rho) * t
        p[n] = (1 - rho) * s
    return p


# ------------------------------------------------------------------------------------------------
# Table I marking functions and the N^alpha scale (eq. 2-3)
# ------------------------------------------------------------------------------------------------


def test_red1_red2_match_table_one():
    x = np.array([0.0, 1.99, 2.0, 6.0, 9.999, 10.0, 50.0])
    np.testing.assert_allclose(ew.RED1(x), [0, 0, 0, 0.1, 0.2 * 7.999 / 8, 1, 1], atol=1e-12)
    x2 = np.array([0.0, 4.0, 7.5, 10.99, 11.0])
    np.testing.assert_allclose(ew.RED2(x2), [0, 0, 0.025, 0.05 * 6.99 / 7, 1], atol=1e-12)


def test_exp_gamma_and_value_at_max_threshold():
    gamma = -10 / math.log(1 - 0.2)
    assert gamma == pytest.approx(44.814, abs=1e-3)
    assert float(ew.EXP(np.array([10.0]))[0]) == pytest.approx(0.2, abs=1e-12)
    assert float(ew.EXP(np.array([gamma]))[0]) == pytest.approx(1 - math.exp(-1))
    assert float(ew.EXP(np.array([0.0]))[0]) == 0.0


def test_scaled_marking_eq2():
    for n in (10, 1000, 10**6):
        pn = ew.scaled_marking("red1", n, 0.2)
        x = np.linspace(0, 12, 49)
        np.testing.assert_allclose(pn(n**0.2 * x), ew.RED1(x), atol=1e-12)


def test_user_callable_marking():
    mf = ew.get_marking(lambda x: np.minimum(1.0, x / 20.0))
    np.testing.assert_allclose(mf(np.array([0.0, 10.0, 30.0])), [0, 0.5, 1.0])
    scalar_only = ew.get_marking(lambda x: min(1.0, float(x) / 20.0))
    np.testing.assert_allclose(scalar_only(np.array([0.0, 10.0])), [0, 0.5])
    with pytest.raises(BufferLabError, match="marking"):
        ew.get_marking(lambda x: 2.0 + 0 * x)
    with pytest.raises(BufferLabError, match="marking"):
        ew.get_marking("red3")


@pytest.mark.parametrize(
    "n, red1, red2, exp_thr, buf",
    [(10, (3.2, 15.8), (6.3, 17.4), 71, 23.9), (100, (5.0, 25.1), (10.0, 27.6), 113, 47.8),
     (1000, (8.0, 39.8), (15.9, 43.8), 178, 95.3), (1300, (8.4, 42.0), (16.8, 46.2), 188, 103.1)],
)
def test_note_threshold_table_rows(n, red1, red2, exp_thr, buf):
    """The note's derived threshold table, recomputed from Table I (alpha = 0.2, epsilon = 0.1)."""
    a = n**0.2
    assert (round(2 * a, 1), round(10 * a, 1)) == red1
    assert (round(4 * a, 1), round(11 * a, 1)) == red2
    assert round(-10 / math.log(0.8) * a) == exp_thr
    assert round(12 * n**0.3, 1) == buf
    assert ew.buffer_size(n, 0.2, 0.1) == math.ceil(12 * n**0.3)
    # RED1 marks with p_max at the scaled max threshold, RED2 likewise
    assert float(ew.scaled_marking("red1", n, 0.2)(10 * a - 1e-9)) == pytest.approx(0.2)


# ------------------------------------------------------------------------------------------------
# stationary queues
# ------------------------------------------------------------------------------------------------


def test_mm1_pmf_closed_form_and_simulation():
    rho = 0.7
    pmf = ew.mm1_pmf(rho, 200)
    assert pmf.sum() == pytest.approx(1 - rho**200)
    assert float(np.dot(np.arange(200), pmf)) == pytest.approx(rho / (1 - rho), rel=1e-9)
    q = lindley_queue_seen_by_arrivals(rho, "M", 400_000, seed=3)
    emp = np.bincount(q, minlength=10)[:10] / q.size
    np.testing.assert_allclose(emp, pmf[:10], atol=0.006)


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.8, 0.95])
def test_md1_pmf_fft_vs_recursion_and_mean(rho):
    length = 400 if rho < 0.9 else 1500
    fft = ew.md1_pmf(rho, length)
    rec = ew.md1_pmf_recursive(rho, length)
    np.testing.assert_allclose(fft[:60], rec[:60], atol=1e-10)
    mean = rho + rho**2 / (2 * (1 - rho))  # Pollaczek-Khinchine
    assert float(np.dot(np.arange(length), fft)) == pytest.approx(mean, rel=1e-6)
    assert fft.sum() == pytest.approx(1.0, abs=1e-8)


def test_md1_pmf_crommelin_closed_form():
    for rho in (0.3, 0.6):
        np.testing.assert_allclose(ew.md1_pmf(rho, 10), crommelin_md1(rho, 9), atol=1e-10)


def test_md1_pmf_simulation():
    rho = 0.8
    q = lindley_queue_seen_by_arrivals(rho, "D", 400_000, seed=5)
    emp = np.bincount(q, minlength=12)[:12] / q.size
    np.testing.assert_allclose(emp, ew.md1_pmf(rho, 12), atol=0.008)


def test_mm1k_pmf():
    k = 20
    for rho in (0.5, 1.0, 1.7):
        pmf = ew.mm1k_pmf(rho, k)
        assert pmf.size == k + 1 and pmf.sum() == pytest.approx(1.0)
        if rho != 1.0:
            expect = (1 - rho) * rho ** np.arange(k + 1) / (1 - rho ** (k + 1))
            np.testing.assert_allclose(pmf, expect, rtol=1e-10)
        else:
            np.testing.assert_allclose(pmf, 1 / (k + 1))
    assert ew.mm1k_pmf(0.05, 400)[0] == pytest.approx(0.95)  # a light load and a long buffer: no overflow
    assert ew.mm1k_pmf(0.0, 3).tolist() == [1.0, 0.0, 0.0, 0.0]


# ------------------------------------------------------------------------------------------------
# the no-mark probability (eq. 4)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("marking, queue", [("red1", "mm1"), ("exp", "mm1"), ("red2", "md1")])
def test_no_mark_probability_vs_per_packet_monte_carlo(marking, queue):
    """E[(1 - p^N(Q))^w]: queue from a Lindley simulation, w packets each marked with p^N(Q)."""
    n_flows, alpha, rho = 10, 0.2, 0.93
    rng = np.random.default_rng(11)
    q = lindley_queue_seen_by_arrivals(rho, "M" if queue == "mm1" else "D", 300_000, seed=7)
    q = q[5000:]
    pn = ew.scaled_marking(marking, n_flows, alpha)(q)
    for w in (1, 5, 20):
        marks = rng.random((q.size, w)) < pn[:, None]
        mc = 1.0 - marks.any(axis=1)
        exact = float(ew.no_mark_probability([w], rho, marking, n_flows, alpha, queue=queue)[0])
        # queue samples are autocorrelated: allow a generous multiple of the i.i.d. standard error
        se = math.sqrt(exact * (1 - exact) / q.size)
        assert abs(mc.mean() - exact) < max(25 * se, 0.01), (w, mc.mean(), exact)


def test_chain_step_matches_direct_no_mark():
    for queue in ("mm1", "md1", "mm1k"):
        params = ew.EunWangParams(flows=50, ct=10, alpha=0.25, marking="exp", queue=queue)
        chain = ew._Chain(params)
        s = 0.9 * 50 * 10
        info = chain.step_probs(s, 1, 80)
        direct = ew.no_mark_probability(np.arange(1, 81), 0.9, "exp", 50, 0.25, queue=queue,
                                        capacity=params.buffer, length=5000)
        np.testing.assert_allclose(info["a"], direct, atol=1e-9)
        full = chain.step_probs(50 * 10, 1, 80)  # rho = 1: every flow marked (footnote 4)
        assert np.all(full["a"] == 0) and full["mark"] == 1.0


# ------------------------------------------------------------------------------------------------
# the chain
# ------------------------------------------------------------------------------------------------


def _seed_stats(fn, params, seeds, rounds):
    rows = []
    for s in seeds:
        r = fn(params, rounds=rounds, burn_in=300, seed=s)
        var_w1 = r.std_ratio**2 / r.h  # single-flow window variance
        rows.append((r.utilization, r.std_ratio, var_w1, r.mark_prob))
    return np.array(rows)


@pytest.mark.slow
def test_histogram_chain_matches_per_flow_simulation():
    """Same law: compare per-seed time averages of both implementations with a Welch t-test."""
    params = ew.EunWangParams(flows=12, ct=6, alpha=0.2, marking="red1")
    hist = _seed_stats(ew.simulate, params, range(100, 112), 1500)
    flow = _seed_stats(ew.simulate_per_flow, params, range(200, 212), 1500)
    for j, name in enumerate(("utilization", "std_ratio", "var_w1", "mark_prob")):
        t = stats.ttest_ind(hist[:, j], flow[:, j], equal_var=False)
        assert t.pvalue > 0.001, (name, hist[:, j].mean(), flow[:, j].mean())
        assert hist[:, j].mean() == pytest.approx(flow[:, j].mean(), rel=0.05), name


def test_determinism_by_seed():
    params = ew.EunWangParams(flows=1000, ct=10, alpha=0.2, marking="red2")
    a = ew.simulate(params, rounds=300, seed=42)
    b = ew.simulate(params, rounds=300, seed=42)
    c = ew.simulate(params, rounds=300, seed=43)
    np.testing.assert_array_equal(a.trace_rho, b.trace_rho)
    np.testing.assert_array_equal(a.final_state, b.final_state)
    assert not np.array_equal(a.trace_rho, c.trace_rho)


def test_billion_flows_cost_like_a_thousand():
    # The chain's state is a histogram over windows (W_max cells), whatever N: a billion flows cost what a
    # thousand do (speed is measured in docs/benchmarks.md, never asserted here).
    params_small = ew.EunWangParams(flows=10**3, ct=20, alpha=0.2)
    params_big = ew.EunWangParams(flows=10**9, ct=20, alpha=0.2)
    small = ew.simulate(params_small, rounds=300, seed=0)
    big = ew.simulate(params_big, rounds=300, seed=0)
    assert big.final_state.shape == (params_big.wmax,) == small.final_state.shape
    assert int(big.final_state.sum()) == 10**9
    assert 0 < big.utilization <= 1


@pytest.mark.slow
def test_utilization_increases_to_one_with_slope_near_minus_alpha():
    """Theorem 1 / Remark 3 in the regime where the chain does not synchronise (CT = 20, RED1, alpha 0.2)."""
    ns = [10, 100, 1000, 10**4, 10**5]
    rho = [ew.simulate(ew.EunWangParams(flows=n, ct=20, alpha=0.2), rounds=1500, seed=1).utilization
           for n in ns]
    assert all(b > a for a, b in zip(rho, rho[1:])), rho
    assert rho[0] == pytest.approx(0.698, abs=0.02)  # the note's own check, reproduced
    assert rho[-1] == pytest.approx(0.930, abs=0.01)
    fit = ew.fit_log_slope(ns, rho)
    assert -0.3 < fit["slope"] < -0.1, fit


@pytest.mark.slow
def test_synchronisation_at_large_n_mean_field():
    """The deterministic N -> infinity map: fixed point at N = 10^3, oscillation at N = 10^9 (CT = 20)."""
    stable = ew.mean_field(ew.EunWangParams(flows=10**3, ct=20, alpha=0.2), rounds=1500, burn_in=1200)
    assert ew.oscillation(stable) < 1e-6
    unstable = ew.mean_field(ew.EunWangParams(flows=10**9, ct=20, alpha=0.2), rounds=1500, burn_in=1200)
    assert ew.oscillation(unstable) > 0.05
    big = ew.simulate(ew.EunWangParams(flows=10**9, ct=20, alpha=0.2), rounds=800, seed=0)
    assert big.std_ratio > 1000  # Theta(N) fluctuation: std/sqrt(N) blows up
    assert big.p_overload > 0.01


def test_run_seeds_confidence_interval_covers_mean():
    params = ew.EunWangParams(flows=100, ct=10, alpha=0.2)
    rs = ew.run_seeds(params, seeds=4, rounds=600)
    m = rs["metrics"]["utilization"]
    assert m["ci_low"] < m["mean"] < m["ci_high"]
    assert len(rs["runs"]) == 4 and m["half_width"] > 0


def test_overflow_and_queue_outputs():
    r = ew.simulate(ew.EunWangParams(flows=1000, ct=20, alpha=0.2), rounds=1200, seed=2)
    assert r.buffer == math.ceil(12 * 1000**0.3) and r.small_buffer == math.ceil(12 * 1000**0.2)
    assert 0 <= r.overflow <= r.overflow_small_buffer < 0.05
    assert r.queue_pmf.sum() == pytest.approx(1.0, abs=1e-6)
    assert r.queue_q99 < r.buffer
    # mean queue equals the mean of rho/(1-rho) over the recorded loads (M/M/1)
    rho = r.trace_rho
    assert r.mean_queue == pytest.approx(float(np.mean(rho / (1 - rho))), rel=1e-9)
    assert r.mark_prob > 0.001


def test_fluid_ablation_and_eq27():
    """Eq. (27): without sub-RTT randomness the marking probability falls like N^(alpha - 1/2)."""
    ns = np.array([10**2, 10**3, 10**4, 10**5, 10**6])
    vals = np.array([ew.clt_marking_probability(n, 0.2, "red1", 3.5) for n in ns])
    slope = np.polyfit(np.log(ns[2:]), np.log(vals[2:]), 1)[0]
    assert slope == pytest.approx(0.2 - 0.5, abs=0.03)
    assert all(v <= ew.clt_marking_bound(n, 0.2, 8.0, 3.5) for n, v in zip(ns, vals))
    r = ew.simulate(ew.EunWangParams(flows=1000, ct=10, alpha=0.2, queue="fluid"), rounds=600, seed=0)
    assert 0 < r.utilization <= 1


def test_predict_for_advisor_keyed():
    out = ew.predict_for_advisor(5000, 10e9 / (1500 * 8), 0.1, 1500)
    assert out["buffer_pkts"] == math.ceil(12 * 5000**0.3)
    assert 0.5 < out["utilization"] <= 1.0
    assert 0.0 <= out["loss"] <= 1.0
    assert out["converged"] and out["warning"] is None
    out2 = ew.predict_for_advisor(1, 1000.0, 0.05, 500)
    assert out2["buffer_pkts"] == 12
    out3 = ew.predict_for_advisor(10, 10e9 / 12000, 0.1, 1500)  # CT = 8333 packets per flow
    assert not out3["converged"] and "mix" in out3["warning"]


@pytest.mark.parametrize(
    "kwargs, word",
    [(dict(flows=0, ct=10), "flows"), (dict(flows=10, ct=0), "C\\*T"),
     (dict(flows=10, ct=10, alpha=0.5), "alpha"), (dict(flows=10, ct=10, alpha=0.0), "alpha"),
     (dict(flows=10, ct=10, queue="mg1"), "queue"), (dict(flows=10, ct=10, w_max=5), "w_max"),
     (dict(flows=2.5, ct=10), "flows")],
)
def test_bad_parameters(kwargs, word):
    with pytest.raises(BufferLabError, match=word):
        ew.simulate(ew.EunWangParams(**kwargs), rounds=10)


def test_bad_parameters_advisor_and_queues():
    with pytest.raises(BufferLabError, match="capacity"):
        ew.predict_for_advisor(10, -1.0, 0.1, 1500)
    with pytest.raises(BufferLabError, match="rtt"):
        ew.predict_for_advisor(10, 1000.0, 0.0, 1500)
    with pytest.raises(BufferLabError, match="rho"):
        ew.mm1_pmf(1.0, 10)
    with pytest.raises(BufferLabError, match="alpha"):
        ew.buffer_size(100, 0.7)


@pytest.mark.slow
def test_cli_table_json_and_plots(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    model.register_eun_wang(sub)
    args = parser.parse_args(["eun-wang", "--flows", "100", "1000", "--capacity-per-flow", "50",
                              "--marking", "red1", "--alpha", "0.2", "--rounds", "400", "--seeds", "2"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "rho(N)" in text and "slope" in text
    args = parser.parse_args(["eun-wang", "--flows", "100", "--capacity-per-flow", "50", "--rounds", "300",
                              "--json", "--plot", str(tmp_path)])
    assert args.func(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"][0]["flows"] == 10
    assert (tmp_path / "eun_wang.png").exists() and (tmp_path / "eun_wang.svg").exists()
    bad = parser.parse_args(["eun-wang", "--flows", "100", "--capacity-per-flow", "50", "--alpha", "0.6"])
    with pytest.raises(BufferLabError, match="alpha"):
        bad.func(bad)
