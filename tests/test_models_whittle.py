"""Tests for the Whittle index of an AIMD flow (Avrachenkov, Ayesta, Doncel & Jacko 2013).

Reference values come from closed forms (Sec. 6.2), an independent brute-force solver (policy iteration and
bisection on the cost nu) and the qualitative statements of Sec. 6.3 about Figure 3.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math

import numpy as np
import pytest

from bufferlab.commands import model
from bufferlab.errors import BufferLabError
from bufferlab.models import whittle as wh
from bufferlab.models.whittle import (
    AIMDFlow,
    adaptive_greedy,
    aimd_flow,
    birth_death_gamma,
    brute_force_index,
    closed_form_index,
    evaluate_policy,
    index_table,
    is_threshold,
    lookup_index,
    myopic_index,
    normalised_reward,
    optimal_policy,
    reward_values,
    whittle_index,
)

GAMMAS6 = [0.0, 1 / 6, 1 / 3, 1 / 2, 2 / 3, 5 / 6]


def idx(n_max, alpha, beta, gamma, reward="normalised"):
    return adaptive_greedy(aimd_flow(n_max, alpha, beta, gamma, reward)).index


# ---------------------------------------------------------------------------------------------------------
# Rewards and the MDP
# ---------------------------------------------------------------------------------------------------------


def test_reward_conventions():
    n = np.arange(1, 6)
    assert np.allclose(reward_values(5, 1.0), np.log1p(n))
    assert np.allclose(reward_values(5, 0.0), n)
    assert np.allclose(reward_values(5, 2.0), 1 - 1 / (1 + n))
    assert np.allclose(reward_values(5, 1.0, "alpha-fair"), np.log(n))
    assert np.allclose(reward_values(5, 0.5, "alpha-fair"), 2 * np.sqrt(n))
    assert np.allclose(reward_values(5, 0.0, "alpha-fair"), n)
    # continuous through alpha = 1
    assert np.allclose(normalised_reward(n, 1 - 1e-9), np.log1p(n), atol=1e-7)
    assert np.allclose(reward_values(4, 1.0, lambda k: k**0.5), np.sqrt(np.arange(1, 5)))


def test_transitions():
    f = aimd_flow(7, 1.0, 0.9, 1 / 3)
    assert (f.up + 1).tolist() == [2, 3, 4, 5, 6, 7, 7]
    # floor(n/3) with the product rounded: 3 -> 1 and 6 -> 2 even though (1/3)*3 may round below 1
    assert (f.down + 1).tolist() == [1, 1, 1, 1, 1, 2, 2]
    assert (aimd_flow(5, 1, 0.9, 0.0).down + 1).tolist() == [1] * 5
    assert (aimd_flow(5, 1, 0.9, 0.5).down + 1).tolist() == [1, 1, 1, 2, 2]
    bd = birth_death_gamma(40)
    assert (aimd_flow(40, 1, 0.9, bd).down + 1).tolist() == [1] + list(range(1, 40))


def test_evaluate_policy_matches_linear_solve():
    flow = aimd_flow(9, 1.0, 0.97, 0.5)
    rng = np.random.default_rng(0)
    for _ in range(5):
        admit = rng.random(9) < 0.6
        value, work = evaluate_policy(flow, admit)
        p = np.zeros((9, 9))
        p[np.arange(9), np.where(admit, flow.up, flow.down)] = 1
        a = np.eye(9) - 0.97 * p
        expected_value = np.linalg.solve(a, np.where(admit, flow.rewards, 0))
        expected_work = np.linalg.solve(a, np.where(admit, flow.work, 0))
        assert np.allclose(value, expected_value, rtol=1e-13, atol=1e-12)
        assert np.allclose(work, expected_work, rtol=1e-13, atol=1e-12)


# ---------------------------------------------------------------------------------------------------------
# Closed forms, Sec. 6.2
# ---------------------------------------------------------------------------------------------------------


def concave_rewards():
    rng = np.random.default_rng(11)
    out = [normalised_reward(np.arange(1, 4), a) for a in (0.0, 0.5, 1.0, 2.0, 5.0)]
    out += [np.cumsum(np.sort(rng.normal(size=3))[::-1]) for _ in range(12)]  # concave, f(0)=0, any sign
    return out


@pytest.mark.parametrize("n_max", [1, 2, 3])
def test_closed_forms_match_adaptive_greedy_and_brute_force(n_max):
    for f in concave_rewards():
        for beta, gamma in itertools.product((0.1, 0.5, 0.9, 0.99), (0.0, 0.5, 0.6, 0.7, 0.9)):
            flow = AIMDFlow.from_rewards(f[:n_max], beta, gamma)
            cf = closed_form_index(f[:n_max], beta, gamma)
            ag = adaptive_greedy(flow)
            assert ag.indexable
            np.testing.assert_allclose(ag.index, cf, rtol=0, atol=1e-10)
        flow = AIMDFlow.from_rewards(f[:n_max], 0.9, 0.7)
        np.testing.assert_allclose(brute_force_index(flow).index, closed_form_index(f[:n_max], 0.9, 0.7),
                                   atol=1e-9)


def test_closed_form_values_by_hand():
    b = 0.9
    f1, f2, f3 = np.log1p([1, 2, 3])
    # N = 1: nu_1 = f(1)
    assert idx(1, 1.0, b, 0.5)[0] == pytest.approx(math.log(2), abs=1e-12)
    # N = 2: (f1, ((1+b) f2 - b f1)/(2+b)); note Appendix A lists (0.6931, 0.5047)
    nu = idx(2, 1.0, b, 0.5)
    assert nu == pytest.approx([f1, ((1 + b) * f2 - b * f1) / (2 + b)], abs=1e-12)
    assert nu == pytest.approx([0.6931, 0.5047], abs=5e-5)
    # N = 3, gamma < 2/3 (reset)
    nu = idx(3, 1.0, b, 0.5)
    nu3 = ((1 + b + b * b) * f3 - b * f1 - b * b * f2) / (3 + 2 * b + b * b)
    assert nu[2] == pytest.approx(nu3, abs=1e-12)
    # N = 3, gamma >= 2/3, threshold branch (D(0.9) > 0 for log(1+n)); note Appendix A values
    nu = idx(3, 1.0, b, 0.7)
    assert nu == pytest.approx([f1, (f2 - b * f1) / (2 - b), ((1 + b) * f3 - b * f2) / (3 + b)], abs=1e-12)
    assert nu == pytest.approx([0.693147, 0.431618, 0.421848], abs=1e-6)
    # ... and the non-threshold branch at beta = 0.99: nu_2 < nu_3
    b = 0.99
    nu = idx(3, 1.0, b, 0.7)
    nu2 = ((1 - b * b) * f2 + b * (1 + b) * f3 - b * f1) / (2 + 2 * b + b * b)
    assert nu[1] == pytest.approx(nu2, abs=1e-12)
    assert nu[2] == pytest.approx(((1 + b) * f3 - b * b * f1) / (3 + 3 * b - b * b), abs=1e-12)
    assert nu == pytest.approx([0.693147, 0.416682, 0.416716], abs=1e-6)
    assert nu[1] < nu[2]


def test_two_state_literal_log_is_not_threshold():
    # f(1) = log 1 = 0 violates f2 <= 2 f1: nu_1 = b f2/(1+b) < nu_2 = f2/2 (note Sec. 2.7)
    b = 0.8
    res = whittle_index(2, 1.0, b, 0.5, reward="alpha-fair")
    f2 = math.log(2)
    assert res.index == pytest.approx([b * f2 / (1 + b), f2 / 2], abs=1e-12)
    assert res.indexable and not res.threshold


def test_three_state_birth_death_threshold_switch():
    """Sec. 6.2: for gamma >= 2/3 threshold policies are optimal for every beta iff 5 f2 >= 4 f1 + 2 f3;
    otherwise they fail above a root beta* of D(beta) (between 0.90 and 0.95 for log(1+n))."""
    from scipy.optimize import brentq

    f1, f2, f3 = np.log1p([1, 2, 3])
    assert 5 * f2 < 4 * f1 + 2 * f3

    def d(b):
        return (3 + 3 * b - b * b) * f2 - b * (3 + b) * f1 - (1 + b) * (2 - b) * f3

    beta_star = brentq(d, 0.5, 1.0)
    assert 0.90 < beta_star < 0.95
    assert whittle_index(3, 1.0, beta_star - 1e-3, 0.7).threshold
    res = whittle_index(3, 1.0, beta_star + 1e-3, 0.7)
    assert not res.threshold and res.index[1] < res.index[2] <= res.index[0]
    # normalised reward: threshold for every beta iff alpha <~ 0.575
    for alpha, always in ((0.5, True), (0.56, True), (0.6, False), (1.0, False)):
        f = normalised_reward(np.arange(1, 4), alpha)
        assert (5 * f[1] >= 4 * f[0] + 2 * f[2]) == always
        assert whittle_index(3, alpha, 0.9999, 0.7).threshold == always


def test_closed_form_rejects_bad_input():
    with pytest.raises(BufferLabError, match="N = 1, 2, 3"):
        closed_form_index([1, 2, 3, 4], 0.9, 0.5)
    with pytest.raises(BufferLabError, match="concave"):
        closed_form_index([1.0, 2.5, 3.0], 0.9, 0.5)


# ---------------------------------------------------------------------------------------------------------
# Adaptive greedy against the brute-force verifier; indexability flags
# ---------------------------------------------------------------------------------------------------------

GRID = list(itertools.product((3, 6, 12), (0.5, 1.0, 2.0), (0.0, 1 / 3, 0.5, 2 / 3, 0.9), (0.5, 0.9, 0.99)))


@pytest.mark.parametrize("reward", ["normalised", "alpha-fair"])
@pytest.mark.slow
def test_adaptive_greedy_matches_brute_force_on_grid(reward):
    worst = 0.0
    for n_max, alpha, gamma, beta in GRID:
        flow = aimd_flow(n_max, alpha, beta, gamma, reward)
        ag = adaptive_greedy(flow)
        bf = brute_force_index(flow)
        assert ag.indexable, (n_max, alpha, gamma, beta)
        assert bf.indexable, (n_max, alpha, gamma, beta)
        assert ag.threshold == bf.threshold
        worst = max(worst, float(np.max(np.abs(ag.index - bf.index))))
    assert worst < 1e-9


def test_callable_reward_matches_brute_force():
    def harmonic(n):  # sum_{j <= n} j^-0.7, another concave reward with f(0) = 0 (note Sec. 2.8)
        return sum(j**-0.7 for j in range(1, n + 1))

    flow = aimd_flow(10, 0.0, 0.95, 0.5, reward=harmonic)
    np.testing.assert_allclose(adaptive_greedy(flow).index, brute_force_index(flow).index, atol=1e-9)


def test_definition_2_holds_for_the_computed_index():
    """Admitting in n is optimal iff nu <= nu_n (Definition 2), checked directly with policy iteration."""
    flow = aimd_flow(15, 1.0, 0.99, 0.5)
    nu = adaptive_greedy(flow).index
    levels = np.unique(nu)
    for cost in np.concatenate([(levels[:-1] + levels[1:]) / 2, [levels[0] - 1, levels[-1] + 1]]):
        _, _, adv = optimal_policy(flow, float(cost))
        assert np.all(adv[nu > cost] >= -1e-12)
        assert np.all(adv[nu < cost] <= 1e-12)


def test_flags_detect_a_non_indexable_project():
    """A generic deterministic two-action project with a negative work is not indexable: admitting in
    state 1 is optimal for very low and for high costs but not in between.  Both the PCL flags and the
    verifier must say so."""
    project = AIMDFlow(n_max=2, beta=0.5, gamma=0.5, rewards=np.array([-2.761, 1.567]),
                       up=np.array([1, 1]), down=np.array([0, 1]), work=np.array([-0.387, 0.438]))
    ag = adaptive_greedy(project)
    assert not ag.marginal_work_positive and not ag.indexable
    bf = brute_force_index(project)
    assert not bf.indexable and bf.violations > 0
    admitted = [bool(optimal_policy(project, cost)[0][0]) for cost in (-40.0, 0.0, 10.0)]
    assert admitted == [True, False, True]


def test_pcl_certificate_is_sound_on_random_projects():
    """Whenever the adaptive-greedy flags certify indexability, the brute force agrees (index and all)."""
    rng = np.random.default_rng(3)
    certified = 0
    for _ in range(150):
        n = int(rng.integers(2, 5))
        project = AIMDFlow(n_max=n, beta=float(rng.choice([0.5, 0.9])), gamma=0.5,
                           rewards=3 * rng.normal(size=n), up=rng.integers(0, n, size=n),
                           down=rng.integers(0, n, size=n), work=rng.normal(size=n) + rng.choice([0.3, 3.0]))
        ag = adaptive_greedy(project)
        if ag.indexable:
            certified += 1
            bf = brute_force_index(project)
            assert bf.indexable
            np.testing.assert_allclose(ag.index, bf.index, atol=1e-8)
    assert certified > 30


@pytest.mark.slow
def test_n200_is_correct():
    """N = 200: every policy {n : nu_n > nu} is optimal between consecutive index values (checked with a
    dense linear solve and the one-step optimality condition), and the index stays below f(n)/n."""
    flow = aimd_flow(200, 1.0, 0.99, 0.5)
    res = adaptive_greedy(flow)
    assert res.indexable and not res.threshold
    nu = res.index
    assert np.all(nu <= myopic_index(flow) + 1e-12)
    levels = np.unique(nu)
    n = flow.n_max
    for cost in np.concatenate([(levels[:-1] + levels[1:]) / 2, [levels[0] - 0.1, levels[-1] + 0.1]]):
        admit = nu > cost
        a = np.eye(n)
        a[np.arange(n), np.where(admit, flow.up, flow.down)] -= flow.beta
        v = np.linalg.solve(a, np.where(admit, flow.rewards - cost * flow.work, 0.0))
        adv = flow.rewards - cost * flow.work + flow.beta * (v[flow.up] - v[flow.down])
        assert np.all(np.where(admit, adv, -adv) >= -1e-10)
    # spot values listed in the note (Appendix A, N = 30), which are unaffected by N here up to 1e-4
    assert nu[:4] == pytest.approx([0.6931, 0.5017, 0.3483, 0.3353], abs=2e-4)


def test_note_spot_values_n30():
    assert idx(30, 1.0, 0.99, 0.0)[:8] == pytest.approx(
        [0.6931, 0.5017, 0.3950, 0.3266, 0.2788, 0.2435, 0.2163, 0.1947], abs=5e-5)
    assert idx(30, 1.0, 0.99, 0.5)[:8] == pytest.approx(
        [0.6931, 0.5017, 0.3483, 0.3353, 0.2408, 0.2470, 0.1853, 0.1944], abs=5e-5)


# ---------------------------------------------------------------------------------------------------------
# Figure 3 claims, Sec. 6.3 (normalised reward)
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["normalised", "alpha-fair"])
def test_alpha_zero_gives_all_ones(reward):
    for n_max, beta, gamma in itertools.product((5, 30), (0.5, 0.99), (0.0, 0.5, 0.9)):
        np.testing.assert_allclose(idx(n_max, 0.0, beta, gamma, reward), 1.0, atol=1e-12)


def test_threshold_when_alpha_or_beta_small_zigzag_when_both_large():
    """Fig. 3(a)-(b): shrinking alpha or beta makes the index non-increasing; both large give a zig-zag.
    Boundaries at gamma = 1/2, N = 30 (note T5, confirmed): beta = 0.5 threshold for alpha <= 2; beta = 0.9
    threshold for alpha <= 0.15 and zig-zag from alpha = 0.2; beta = 0.99 zig-zag already at alpha = 0.01."""
    for alpha in (0.1, 0.5, 1.0, 2.0):
        assert is_threshold(idx(30, alpha, 0.5, 0.5))
    for alpha in (0.05, 0.1, 0.15):
        assert is_threshold(idx(30, alpha, 0.9, 0.5))
    for alpha in (0.2, 0.5, 1.0, 2.0):
        assert not is_threshold(idx(30, alpha, 0.9, 0.5))
    for alpha in (0.01, 0.05, 1.0):
        assert not is_threshold(idx(30, alpha, 0.99, 0.5))
    # the zig-zag amplitude vanishes as alpha -> 0
    amp = [float(np.max(np.diff(idx(30, a, 0.99, 0.5)))) for a in (1.0, 0.1, 0.01)]
    assert amp[0] > amp[1] > amp[2] > 0 and amp[2] < 1e-4


def test_index_decreases_in_alpha_and_in_beta():
    """Fig. 3(a): index values decrease in alpha; Fig. 3(b): they decrease in beta (state by state)."""
    for beta, gamma in itertools.product((0.5, 0.9, 0.99), (0.0, 1 / 3, 0.5, 0.9)):
        tab = np.array([idx(30, a, beta, gamma) for a in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)])
        assert np.all(np.diff(tab, axis=0) <= 1e-12)
    for alpha, gamma in itertools.product((0.5, 1.0, 2.0), (0.0, 1 / 3, 0.5, 0.9)):
        tab = np.array([idx(30, alpha, b, gamma) for b in (0.3, 0.5, 0.7, 0.9, 0.99, 0.999)])
        assert np.all(np.diff(tab, axis=0) <= 1e-12)


def test_gamma_zero_and_one_third_are_smooth():
    """Fig. 3(c)-(d): gamma = 0 gives a smooth non-increasing index; 'rather surprisingly' one other gamma
    does too -- gamma = 1/3 in this reconstruction (for N = 20..36, not for N = 60)."""
    for n_max, alpha, beta in itertools.product((10, 30, 60), (0.5, 1.0, 2.0), (0.5, 0.9, 0.99, 0.999)):
        assert is_threshold(idx(n_max, alpha, beta, 0.0))
    for n_max, beta in itertools.product((20, 30, 36), (0.9, 0.99)):
        assert is_threshold(idx(n_max, 1.0, beta, 1 / 3))
    assert not is_threshold(idx(60, 1.0, 0.99, 1 / 3))


@pytest.mark.parametrize("gamma,period", [(1 / 2, 2), (2 / 3, 3), (5 / 6, 6)])
def test_tooth_periods(gamma, period):
    """Fig. 3(c)-(d): tooth widths 2 (gamma = 1/2), 3 (2/3) and 6 (5/6).  The pattern of rises
    nu_{n+1} > nu_n is periodic with exactly that period for 12 <= n < N - 1 - period
    (alpha = 1, beta = 0.99, N = 36)."""
    nu = idx(36, 1.0, 0.99, gamma)
    rises = np.diff(nu) > 0  # rises[n-1] compares n and n+1
    window = np.arange(12, 35 - period)
    assert all(rises[n - 1] == rises[n - 1 + period] for n in window)
    for p in range(1, period):
        assert not all(rises[n - 1] == rises[n - 1 + p] for n in window)
    # the drop always follows a multiple of the period
    assert not rises[12 - 1] and not rises[18 - 1] and not rises[24 - 1]


def test_priority_order_reverses_between_6k_and_6k_plus_1():
    """Sec. 6.3: at n = 6, 12, ... the index increases in gamma (over a range: here 1/3..5/6); at
    n = 7, 13, ... it decreases in gamma (here over all of 0..5/6; alpha = 1, beta = 0.99, N = 60)."""
    tab = np.array([idx(60, 1.0, 0.99, g) for g in GAMMAS6])
    for n in range(6, 60, 6):
        assert np.all(np.diff(tab[2:, n - 1]) > 0), n
    for n in (7, 13, 19, 25, 31, 37):
        assert np.all(np.diff(tab[:, n - 1]) <= 1e-12), n


def test_myopic_upper_bound():
    """Sec. 6.3: the myopic index f(n)/n bounds every index from above."""
    for n_max, alpha, beta, gamma in itertools.product((5, 20, 40), (0.5, 1.0, 2.0), (0.5, 0.9, 0.99),
                                                       GAMMAS6 + [0.95]):
        flow = aimd_flow(n_max, alpha, beta, gamma)
        assert np.all(adaptive_greedy(flow).index <= myopic_index(flow) + 1e-12)


def test_birth_death_lower_bound_holds_for_small_windows_only():
    """Sec. 6.3 suggests the birth-death (gamma -> 1) index is a lower bound for every gamma.  In this
    reconstruction (alpha = 1, beta = 0.99) it holds for n <= 18 and fails from n = 19 (gamma = 1/2, 2/3,
    5/6), independently of N -- so not an N-boundary effect."""
    for n_max in (36, 100):
        bd = idx(n_max, 1.0, 0.99, birth_death_gamma(n_max))
        for g in GAMMAS6:
            nu = idx(n_max, 1.0, 0.99, g)
            assert np.all(nu[:18] >= bd[:18] - 1e-12)
        assert np.any(idx(n_max, 1.0, 0.99, 5 / 6)[18] < bd[18])


# ---------------------------------------------------------------------------------------------------------
# Index tables and caching
# ---------------------------------------------------------------------------------------------------------


def test_index_table_memoised_and_read_only():
    wh.clear_index_table_cache()
    t1 = index_table(20, 1.0, 0.9, 0.5)
    t2 = index_table(20, 1, 0.9, 0.5)
    assert t1 is t2
    assert not t1.flags.writeable
    np.testing.assert_array_equal(t1, idx(20, 1.0, 0.9, 0.5))


def test_index_table_disk_round_trip(tmp_path, monkeypatch):
    wh.clear_index_table_cache()
    t1 = index_table(25, 1.0, 0.95, 0.5, cache_dir=tmp_path)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1
    wh.clear_index_table_cache()

    def boom(*args, **kwargs):
        raise AssertionError("table should have been loaded from disk")

    monkeypatch.setattr(wh, "adaptive_greedy", boom)
    t2 = index_table(25, 1.0, 0.95, 0.5, cache_dir=tmp_path)
    np.testing.assert_array_equal(t1, t2)
    # different parameters are a different file (and must be computed)
    with pytest.raises(AssertionError):
        index_table(25, 1.0, 0.95, 0.6, cache_dir=tmp_path)


def test_index_table_env_var_and_corrupt_file(tmp_path, monkeypatch):
    monkeypatch.setenv("BUFFERLAB_CACHE_DIR", str(tmp_path))
    assert wh.default_cache_dir() == tmp_path / "whittle"
    wh.clear_index_table_cache()
    t1 = index_table(12, 2.0, 0.9, 0.5, persist=True)
    (path,) = list((tmp_path / "whittle").glob("*.npz"))
    path.write_bytes(b"not a zip file")
    wh.clear_index_table_cache()
    t2 = index_table(12, 2.0, 0.9, 0.5, persist=True)  # recomputed and rewritten
    np.testing.assert_array_equal(t1, t2)
    with np.load(path) as data:
        np.testing.assert_array_equal(data["index"], t1)


def test_index_table_callable_reward(tmp_path):
    def f(n):
        return math.log1p(n)

    np.testing.assert_allclose(index_table(10, 1.0, 0.9, 0.5, reward=f), idx(10, 1.0, 0.9, 0.5), atol=1e-14)
    with pytest.raises(BufferLabError, match="persist"):
        index_table(10, 1.0, 0.9, 0.5, reward=f, cache_dir=tmp_path)


def test_lookup_index():
    table = index_table(10, 1.0, 0.9, 0.5)
    assert lookup_index(table, 3.7) == table[2]
    np.testing.assert_array_equal(lookup_index(table, [0.5, 1.0, 10.0, 57.2]), table[[0, 0, 9, 9]])


def test_alpha_up_to_its_cap_is_the_max_min_limit_computed_exactly():
    """From alpha about 50 on, both rewards are their max-min limit to double precision: the table only
    shrinks as 1/(alpha - 1) and every certificate flag is alpha = 60's, up to the cap of 100, with no numpy
    warning. (Far above it the solvers' absolute tolerances decide: at 1e8 the threshold flag was wrong.)"""
    flags = lambda r: (r.indexable, r.threshold, r.marginal_work_positive, r.monotone,  # noqa: E731
                       r.policies_optimal)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        for n_max, beta, gamma in ((10, 0.9, 0.5), (200, 0.999, 0.5), (200, 0.99, 0.0)):
            for reward in ("normalised", "alpha-fair"):
                at60 = whittle_index(n_max, 60.0, beta, gamma, reward)
                at_cap = whittle_index(n_max, wh.MAX_ALPHA, beta, gamma, reward)
                assert flags(at_cap) == flags(at60), (n_max, beta, gamma, reward)
                if reward == "normalised":
                    np.testing.assert_allclose(at_cap.index * (wh.MAX_ALPHA - 1), at60.index * 59,
                                               rtol=1e-9)


# ---------------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,pattern",
    [
        (dict(n_max=0), r"n_max .* in \[1, 10000\]"),
        (dict(n_max=2.5), r"n_max .* integer"),
        (dict(alpha=-0.1), r"alpha .* \[0, 100\]"),
        (dict(alpha=100.5), r"alpha \(fairness parameter\) must be in \[0, 100\] \(from about 50 on the "
                            r"index only shrinks as 1/\(alpha - 1\), the max-min limit\), got 100.5"),
        (dict(alpha=float("nan")), r"alpha \(fairness parameter\) must be finite"),
        (dict(beta=1.0), r"beta .* \(0, 1\)"),
        (dict(beta=0.0), r"beta .* \(0, 1\)"),
        (dict(gamma=1.0), r"gamma .* \[0, 1\)"),
        (dict(gamma=-0.5), r"gamma .* \[0, 1\)"),
        (dict(reward="cubic"), r"reward must be one of normalised, alpha-fair"),
        (dict(reward=lambda n: float("inf")), r"reward callable must return finite"),
    ],
)
def test_bad_parameters(kwargs, pattern):
    args = dict(n_max=10, alpha=1.0, beta=0.9, gamma=0.5)
    args.update(kwargs)
    with pytest.raises(BufferLabError, match=pattern):
        whittle_index(**args)
    if "reward" not in kwargs:
        with pytest.raises(BufferLabError, match=pattern):
            index_table(**args)


# ---------------------------------------------------------------------------------------------------------
# Command line and plots
# ---------------------------------------------------------------------------------------------------------


def _parser():
    parser = argparse.ArgumentParser(prog="bufferlab model")
    model.register_whittle(parser.add_subparsers(dest="model"))
    return parser


def test_cli_table_and_json(capsys):
    args = _parser().parse_args(["whittle", "--n-max", "8", "--alpha", "1", "--beta", "0.9", "--verify"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "indexable: True" in out and "brute force" in out
    args = _parser().parse_args(["whittle", "--n-max", "6", "--reward", "alpha-fair", "--json"])
    assert args.func(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["indexable"] is True
    np.testing.assert_allclose(data["index"], idx(6, 1.0, 0.9, 0.5, "alpha-fair"))


def test_cli_bad_parameter_raises():
    args = _parser().parse_args(["whittle", "--beta", "1.5"])
    with pytest.raises(BufferLabError, match="beta"):
        args.func(args)


def test_plot_figure3(tmp_path, capsys):
    args = _parser().parse_args(["whittle", "--n-max", "24", "--plot", str(tmp_path)])
    assert args.func(args) == 0
    png, svg = tmp_path / "whittle_figure3.png", tmp_path / "whittle_figure3.svg"
    assert png.stat().st_size > 10_000 and svg.stat().st_size > 10_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in svg.read_text()[:2000]
