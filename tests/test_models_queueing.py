"""M/M/1/K, exact M/D/1/K, the M/D/1/K Monte Carlo and the rho^B bound (bufferlab.models.queueing)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bufferlab.cli import main
from bufferlab.errors import BufferLabError
from bufferlab.models import queueing as q


def ctmc_mm1k(rho: float, K: int) -> np.ndarray:
    """Stationary law of M/M/1/K from a direct solve of the birth-death generator."""
    G = np.zeros((K + 1, K + 1))
    for n in range(K):
        G[n, n + 1] = rho
        G[n + 1, n] = 1.0
    G -= np.diag(G.sum(axis=1))
    A = np.vstack([G.T, np.ones(K + 1)])
    b = np.zeros(K + 2)
    b[-1] = 1.0
    return np.linalg.lstsq(A, b, rcond=None)[0]


def embedded_chain_md1k(rho: float, K: int) -> tuple:
    """M/D/1/K loss and mean by a dense solve of the departure-epoch chain (Gross et al., M/G/1/K)."""
    a = np.array([math.exp(-rho) * rho**j / math.factorial(j) for j in range(K + 1)])
    P = np.zeros((K, K))
    for i in range(K):
        base = max(i - 1, 0)
        for j in range(base, K - 1):
            P[i, j] = a[j - base]
        P[i, K - 1] = 1.0 - P[i, : K - 1].sum()
    A = np.vstack([(P.T - np.eye(K)), np.ones(K)])
    b = np.zeros(K + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(A, b, rcond=None)[0]
    loss = 1.0 - 1.0 / (pi[0] + rho)
    p = np.append(pi / (pi[0] + rho), loss)
    return loss, float((np.arange(K + 1) * p).sum())


@pytest.mark.parametrize("rho", [0.3, 0.9, 1.0, 1.7])
@pytest.mark.parametrize("K", [1, 5, 12])
def test_mm1k_against_ctmc(rho, K):
    p = ctmc_mm1k(rho, K)
    assert q.mm1k_loss(rho, K) == pytest.approx(p[-1], rel=1e-9)
    assert q.mm1k_mean_queue(rho, K) == pytest.approx((np.arange(K + 1) * p).sum(), rel=1e-9)
    assert q.mm1k_mean_queue(rho, K, include_service=False) == pytest.approx(
        (np.maximum(np.arange(K + 1) - 1, 0) * p).sum(), rel=1e-9, abs=1e-12
    )
    assert q.mm1k_distribution(rho, K) == pytest.approx(p, rel=1e-9, abs=1e-15)


def test_mm1k_closed_form_and_broadcast():
    # Enachescu et al. note: M/M/1/K loss 7.9e-4 at rho = 0.75, K = 20
    assert q.mm1k_loss(0.75, 20) == pytest.approx(0.75**20 * 0.25 / (1 - 0.75**21), rel=1e-12)
    assert q.mm1k_loss(0.75, 20) == pytest.approx(7.9e-4, rel=0.01)
    out = q.mm1k_loss(np.array([0.5, 0.8])[:, None], np.array([1, 2, 3])[None, :])
    assert out.shape == (2, 3)
    assert out[0, 0] == pytest.approx(0.5 / 1.5)  # Erlang B with one server
    # continuity through rho = 1 and huge K without overflow
    assert q.mm1k_loss(1 + 1e-9, 10) == pytest.approx(1 / 11, rel=1e-6)
    assert q.mm1k_loss(2.0, 5000) == pytest.approx(0.5, rel=1e-12)
    assert q.mm1k_mean_queue(2.0, 5000) == pytest.approx(4999.0, rel=1e-9)


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.9, 1.0, 1.3])
@pytest.mark.parametrize("K", [1, 2, 5, 10])
def test_md1k_against_dense_embedded_chain(rho, K):
    loss, mean = embedded_chain_md1k(rho, K)
    assert q.md1k_loss(rho, K) == pytest.approx(loss, rel=1e-8, abs=1e-14)
    assert q.md1k_mean_queue(rho, K) == pytest.approx(mean, rel=1e-8)
    d = q.md1k_distribution(rho, K)
    assert d.sum() == pytest.approx(1.0, rel=1e-12)
    assert (np.arange(K + 1) * d).sum() == pytest.approx(mean, rel=1e-8)


def test_md1k_k1_is_erlang_loss():
    rho = np.array([0.1, 0.5, 1.0, 3.0])
    assert q.md1k_loss(rho, 1) == pytest.approx(rho / (1 + rho), rel=1e-12)


def test_md1k_limits_of_infinite_buffer():
    # Pollaczek-Khinchine mean for M/D/1: rho + rho^2 / (2 (1 - rho))
    for rho in (0.3, 0.8, 0.95):
        assert q.md1k_mean_queue(rho, 2000) == pytest.approx(rho + rho**2 / (2 * (1 - rho)), rel=1e-9)
    # overload: the carried load is 1, so loss -> 1 - 1/rho
    assert q.md1k_loss(1.5, 400) == pytest.approx(1 - 1 / 1.5, rel=1e-9)


def test_md1k_tiny_loss_against_high_precision():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    rho, K = mpmath.mpf("0.5"), 20
    a = [mpmath.e ** (-rho) * rho**j / mpmath.factorial(j) for j in range(K + 1)]
    P = mpmath.zeros(K, K)
    for i in range(K):
        base = max(i - 1, 0)
        for j in range(base, K - 1):
            P[i, j] = a[j - base]
        P[i, K - 1] = 1 - sum(P[i, c] for c in range(K - 1))
    A = mpmath.zeros(K, K)
    for r in range(K - 1):
        for c in range(K):
            A[r, c] = P[c, r] - (1 if r == c else 0)
    for c in range(K):
        A[K - 1, c] = 1
    rhs = mpmath.zeros(K, 1)
    rhs[K - 1] = 1
    pi = mpmath.lu_solve(A, rhs)
    exact = 1 - 1 / (pi[0] + rho)
    assert q.md1k_loss(0.5, 20) == pytest.approx(float(exact), rel=1e-9)
    assert float(exact) == pytest.approx(1.418e-11, rel=1e-3)


def test_md1k_below_mm1k_and_rho_b_bound():
    """Lemma 2 of Enachescu et al.: the M/D/1 drop probability is at most rho^B (loosely)."""
    rho = np.array([0.5, 0.75, 0.8, 0.9])[:, None]
    K = np.array([5, 10, 15, 20])[None, :]
    md = q.md1k_loss(rho, K)
    assert np.all(md < q.mm1k_loss(rho, K))
    assert np.all(md < q.geometric_tail_bound(rho, K))
    # the note's derived M/D/1/K table (confirmed by the dense solve and the Monte Carlo below)
    table = np.array(
        [
            [2.18e-3, 4.06e-6, 7.6e-9, 1.4e-11],
            [2.48e-2, 1.48e-3, 9.4e-5, 6.0e-6],
            [3.53e-2, 3.64e-3, 4.17e-4, 4.83e-5],
            [6.44e-2, 1.66e-2, 5.38e-3, 1.85e-3],
        ]
    )
    assert md == pytest.approx(table, rel=0.02)


def test_md1k_monte_carlo_agrees_with_exact():
    rho = np.array([0.75, 0.9])[:, None]
    K = np.array([3, 8])[None, :]
    sim = q.md1k_simulate(rho, K, arrivals=20000, replications=60, warmup=500, seed=3)
    exact = q.md1k_loss(rho, K)
    # 4 standard errors (replications are independent) plus 2% for the finite-run bias
    assert np.all(np.abs(sim.loss - exact) <= 4 * sim.loss_stderr + 0.02 * exact)
    mean = q.md1k_mean_queue(rho, K)
    assert np.all(np.abs(sim.mean_queue - mean) <= 4 * sim.mean_queue_stderr + 0.01 * mean)
    again = q.md1k_simulate(rho, K, arrivals=20000, replications=60, warmup=500, seed=3)
    assert np.array_equal(sim.loss, again.loss)


def test_geometric_tail_bound():
    assert q.geometric_tail_bound(0.75, 20) == pytest.approx(0.75**20)
    assert q.geometric_tail_bound(0.75, 20) == pytest.approx(3.17e-3, rel=1e-3)  # the paper's "0.3 %"
    with pytest.raises(BufferLabError, match=r"rho must be in \(0, 1\)"):
        q.geometric_tail_bound(1.0, 5)
    with pytest.raises(BufferLabError, match="B must be"):
        q.geometric_tail_bound(0.5, -1)


def test_bad_parameters_name_the_parameter():
    with pytest.raises(BufferLabError, match="rho"):
        q.md1k_loss(0.0, 5)
    with pytest.raises(BufferLabError, match="K must be an integer >= 1"):
        q.mm1k_loss(0.5, 0)
    with pytest.raises(BufferLabError, match="K must be an integer"):
        q.md1k_loss(0.5, 2.5)


def test_droptail_limit_conversion():
    assert q.capacity_from_droptail_limit(100) == 101
    assert q.droptail_limit_from_capacity(101) == 100
    assert list(q.capacity_from_droptail_limit([0, 9])) == [1, 10]
    with pytest.raises(BufferLabError, match="limit"):
        q.capacity_from_droptail_limit(-1)


def test_cli_queueing(capsys):
    assert main(["model", "queueing", "--rho", "0.9", "--buffer", "20", "--kind", "md1k", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"]["M/D/1/K loss"][0] == pytest.approx(q.md1k_loss(0.9, 20))
    assert main(["model", "queueing", "--rho", "0.9", "--limit", "19", "--kind", "md1k", "--json"]) == 0
    out2 = json.loads(capsys.readouterr().out)
    assert out2["rows"]["K"] == [20]
    assert main(["model", "queueing", "--rho", "0.5,0.9", "--buffer", "5"]) == 0
    text = capsys.readouterr().out
    assert "M/M/1/K loss" in text and "M/D/1/K loss" in text


def test_cli_queueing_errors_and_plot(capsys, tmp_path):
    assert main(["model", "queueing", "--rho", "0.5", "--buffer", "0"]) == 2
    assert "--buffer must be an integer >= 1" in capsys.readouterr().err
    assert main(["model", "queueing", "--rho", "0.5", "--buffer", "6", "--plot", str(tmp_path)]) == 0
    assert (tmp_path / "queueing_loss_vs_K.png").stat().st_size > 0
    assert (tmp_path / "queueing_loss_vs_K.svg").stat().st_size > 0
