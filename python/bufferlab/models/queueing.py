"""Finite single-server queues: M/M/1/K, exact M/D/1/K, a Monte Carlo of M/D/1/K, and the rho^B tail bound.

Conventions used throughout this module
--------------------------------------
* ``K`` is the **system capacity**: the largest number of packets in the system, *including the one in
  service*. An arrival that finds ``K`` packets is dropped. ``K >= 1``.
* ``rho = lambda / mu`` is the offered load (arrival rate times mean service time); the finite queues accept
  any ``rho > 0``, the infinite-buffer tail bound needs ``0 < rho < 1``.
* "Mean queue" is the time-average number in the system (waiting plus in service) unless
  ``include_service=False``, which gives the mean number waiting.
* The simulation engine's DropTail ``limit`` counts packets **waiting** (the one being serialised is not
  counted), so an engine queue with ``limit = L`` is an M/x/1/K queue with ``K = L + 1``; use
  :func:`capacity_from_droptail_limit` and :func:`droptail_limit_from_capacity` to convert.

All public functions broadcast over their numeric arguments (numpy rules) and return floats or arrays.

References: D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of Queueing Theory*,
4th ed., Wiley 2008 (M/M/1/K, and M/G/1/K via the embedded Markov chain at departures); O. Brun,
J.-M. Garcia, "Analytical solution of finite capacity M/D/1 queues", J. Appl. Prob. 37(4):1092-1098, 2000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np
from scipy.special import gammaln

from bufferlab.errors import LimitError
from bufferlab.models._checks import (
    check_int,
    check_integer,
    check_open_interval,
    check_range,
    scalar_or_array,
)
from bufferlab.plots import ensure_directory, save_figure

__all__ = [
    "capacity_from_droptail_limit",
    "droptail_limit_from_capacity",
    "mm1k_loss",
    "mm1k_mean_queue",
    "mm1k_distribution",
    "md1k_loss",
    "md1k_mean_queue",
    "md1k_distribution",
    "md1k_simulate",
    "MD1KSimulation",
    "geometric_tail_bound",
]


# --------------------------------------------------------------------------------------------------------
# conventions


def capacity_from_droptail_limit(limit: Any) -> Any:
    """System capacity ``K = limit + 1`` of an engine DropTail queue (``limit`` counts waiting packets)."""
    lim = check_int("limit", limit, 0)
    out = lim + 1
    return int(out) if out.ndim == 0 else out


def droptail_limit_from_capacity(K: Any) -> Any:
    """Engine DropTail ``limit = K - 1`` (packets waiting) for a system capacity ``K >= 1``."""
    k = check_int("K", K, 1)
    out = k - 1
    return int(out) if out.ndim == 0 else out


def _rho_k(rho: Any, K: Any) -> Tuple[np.ndarray, np.ndarray]:
    r = check_range("rho", rho, 0.0, None, low_open=True)
    k = check_int("K", K, 1)
    return np.broadcast_arrays(r, k)


# --------------------------------------------------------------------------------------------------------
# M/M/1/K


def mm1k_loss(rho: Any, K: Any) -> Any:
    """Blocking probability of M/M/1/K: ``p_K = rho^K (1-rho) / (1-rho^(K+1))`` (``1/(K+1)`` at rho = 1).

    Gross et al., Fundamentals of Queueing Theory, eq. for M/M/1/K; it is eq. (3) of Enachescu et al. 2005
    with ``K = B``. Computed stably for rho > 1 via ``r = 1/rho``: ``p_K = (1-r)/(1-r^(K+1))``.
    """
    r, k = _rho_k(rho, K)
    r = r.astype(float)
    out = np.empty(r.shape)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        near = np.abs(r - 1.0) < 1e-12
        lo = (r < 1.0) & ~near
        hi = (r > 1.0) & ~near
        lr = np.log(r)
        # rho < 1: rho^K (1-rho) / (1-rho^(K+1))
        out[lo] = np.exp(k[lo] * lr[lo]) * (-np.expm1(lr[lo])) / (-np.expm1((k[lo] + 1) * lr[lo]))
        # rho > 1: (1-r)/(1-r^(K+1)), r = 1/rho
        out[hi] = (-np.expm1(-lr[hi])) / (-np.expm1(-(k[hi] + 1) * lr[hi]))
        out[near] = 1.0 / (k[near] + 1.0)
    return scalar_or_array(out)


def mm1k_mean_queue(rho: Any, K: Any, include_service: bool = True) -> Any:
    """Time-average number in an M/M/1/K system.

    ``L = rho/(1-rho) - (K+1) rho^(K+1) / (1-rho^(K+1))`` (``K/2`` at rho = 1); for rho > 1 the stationary law
    is the mirror image ``L(rho) = K - L(1/rho)``. With ``include_service=False`` returns the mean number
    waiting ``L - (1 - p_0)``.
    """
    r, k = _rho_k(rho, K)
    r = r.astype(float)
    kf = k.astype(float)

    def below_one(x: np.ndarray, kk: np.ndarray) -> np.ndarray:
        with np.errstate(under="ignore"):
            lx = np.log(x)
            xk1 = np.exp((kk + 1) * lx)
            return x / (1.0 - x) - (kk + 1) * xk1 / (-np.expm1((kk + 1) * lx))

    out = np.empty(r.shape)
    near = np.abs(r - 1.0) < 1e-7
    lo = (r < 1.0) & ~near
    hi = (r > 1.0) & ~near
    out[lo] = below_one(r[lo], kf[lo])
    out[hi] = kf[hi] - below_one(1.0 / r[hi], kf[hi])
    out[near] = kf[near] / 2.0
    if not include_service:
        p0 = _mm1k_p0(r, kf)
        out = out - (1.0 - p0)
    return scalar_or_array(out)


def _mm1k_p0(r: np.ndarray, k: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        near = np.abs(r - 1.0) < 1e-12
        p0 = np.where(near, 1.0 / (k + 1.0), np.expm1(np.log(r)) / np.expm1((k + 1) * np.log(r)))
    return p0


def mm1k_distribution(rho: float, K: int) -> np.ndarray:
    """Stationary distribution ``p_n``, n = 0..K, of M/M/1/K (truncated geometric, ``p_n ∝ rho^n``)."""
    r = float(check_range("rho", rho, 0.0, None, low_open=True))
    k = int(check_int("K", K, 1))
    logw = np.arange(k + 1) * math.log(r)
    w = np.exp(logw - logw.max())
    return w / w.sum()


# --------------------------------------------------------------------------------------------------------
# M/D/1/K, exact, via the embedded Markov chain at departure epochs
#
# Service time D = 1, arrivals Poisson(rho). a_j = P(j arrivals in a service). The chain of the number left
# behind by a departure lives on {0..K-1}; from i >= 1 it moves to min(i-1+A, K-1), from 0 to min(A, K-1).
# It is skip-free to the left, so the cut equation between {0..j} and {j+1..} reads
#     pi_{j+1} a_0 = pi_0 P(A >= j+1) + sum_{i=1..j} pi_i P(A >= j+2-i),      j = 0..K-2,
# a recursion with positive terms only (numerically stable, unlike the classical balance recursion or the
# alternating closed form of Brun & Garcia). The unnormalised solution x_n (x_0 = 1) does not depend on K;
# the chain for capacity K is x_0..x_{K-1} normalised. Then (Gross et al., M/G/1/K):
#     time-average p_n = pi_n / (pi_0 + rho), n < K;   p_K = 1 - 1/(pi_0 + rho).
# p_K is evaluated without cancellation as l/(1+l), where l = expected arrivals lost per service
# (= per admitted packet): l = sum_i pi_i E[(A - (K - max(i, 1)))^+].


#: Limits of the exact M/D/1/K solution: the recursion's length per load (its cost is about 20 us a step,
#: so the limit is about 20 s) and the Poisson table's length (grows with the load).
MD1K_MAX_STATES = 1_000_000
MD1K_MAX_TAIL = 100_000


def _md1k_table_length(rho_max: float) -> int:
    """mmax: the last index of the Poisson tables, P(A > mmax) below double precision."""
    return int(math.ceil(rho_max + 12.0 * math.sqrt(rho_max) + 80.0))


def _md1k_decay_states(rho: float, mmax: int) -> float:
    """Steps of the recursion before x_n, which falls as z^-n for rho < 1 (z > 1 the root of
    ``exp(rho (z - 1)) = z``), drops below 1e-300 and the loop stops: about ``ln(1e300) / ln z``."""
    if rho >= 1.0:
        return math.inf
    from scipy.optimize import brentq

    lo = 1.0 / rho  # g(z) = rho (z - 1) - ln z is negative here and convex: one root above
    hi = 2.0 * lo + 2.0
    while rho * (hi - 1.0) - math.log(hi) <= 0.0:
        hi *= 2.0
    z = brentq(lambda v: rho * (v - 1.0) - math.log(v), lo, hi, xtol=1e-300, rtol=1e-15)
    return 700.0 / math.log(z) + mmax + 512 if z > 1.0 else math.inf


def _md1k_check_work(rho: np.ndarray, kmax: int) -> None:
    """Refuse, before allocating anything, a solution beyond :data:`MD1K_MAX_STATES` or
    :data:`MD1K_MAX_TAIL` (raises :class:`~bufferlab.errors.LimitError` naming K or rho)."""
    top = float(np.max(rho))
    if _md1k_table_length(top) > MD1K_MAX_TAIL:
        raise LimitError(f"rho: the exact M/D/1/K solution handles loads up to about {MD1K_MAX_TAIL * 0.9:g} "
                         f"(its Poisson table grows with the load), got {top:g}")
    mmax = _md1k_table_length(top)
    states = min(float(kmax), max(_md1k_decay_states(float(r), mmax) for r in np.unique(rho)))
    if states > MD1K_MAX_STATES:
        worst = float(np.max(rho))
        raise LimitError(f"K: the exact M/D/1/K solution at rho = {worst:.12g} and K = {kmax:,} needs about "
                         f"{states:,.0f} recursion steps; the limit is {MD1K_MAX_STATES:,} (use a smaller K "
                         "or a load farther from 1)")


def _poisson_tails(rho: np.ndarray, mmax: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pmf a_m, tail t_m = P(A >= m) and e_m = E[(A-m)^+] for m = 0..mmax, rows = rho values."""
    extra = mmax + 400
    m = np.arange(extra + 1)
    with np.errstate(divide="ignore", under="ignore"):
        logpmf = -rho[:, None] + m[None, :] * np.log(rho[:, None]) - gammaln(m + 1.0)[None, :]
        pmf = np.exp(logpmf)
    tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]  # P(A >= m), summed from the top: no cancellation
    # e_m = sum_{k >= m+1} P(A >= k)
    e = np.zeros_like(tail)
    e[:, :-1] = np.cumsum(tail[:, :0:-1], axis=1)[:, ::-1]
    return pmf[:, : mmax + 1], tail[:, : mmax + 1], e[:, : mmax + 1]


def _md1_unnormalised(rho: np.ndarray, kmax: int, mmax: int, tail: np.ndarray, a0: np.ndarray) -> np.ndarray:
    """x_n, n = 0..L-1 with L <= kmax, rows = rho values; each row is rescaled by a common factor when it
    grows large. When every row has rho < 1 the recursion stops once the rows have decayed below double
    precision (L < kmax then, and x_n = 0 for n >= L); the array grows as the recursion goes."""
    nr = rho.size
    x = np.zeros((nr, min(kmax, 4096)))
    x[:, 0] = 1.0
    t_rev = tail[:, ::-1]  # t_rev[:, mmax - m] = tail[:, m]
    any_ge1 = bool(np.any(rho >= 1.0))
    for j in range(kmax - 1):
        if j + 1 >= x.shape[1]:
            x = np.concatenate([x, np.zeros((nr, min(x.shape[1], kmax - x.shape[1])))], axis=1)
        acc = x[:, 0] * tail[:, j + 1] if j + 1 <= mmax else np.zeros(nr)
        lo = max(1, j + 2 - mmax)
        if lo <= j:
            seg = x[:, lo : j + 1]
            coef = t_rev[:, mmax - (j + 2 - lo) : mmax - 1]
            acc = acc + np.einsum("ij,ij->i", seg, coef)
        x[:, j + 1] = acc / a0
        big = x[:, j + 1] > 1e200
        if np.any(big):
            x[big, : j + 2] /= x[big, j + 1][:, None]
        if not any_ge1 and (j & 255) == 255:
            # every row has rho < 1 and has decayed below double precision: the rest is zero
            recent = x[:, max(0, j + 2 - mmax) : j + 2].max(axis=1)
            if np.all(recent < 1e-300 * x[:, 0]):
                return x[:, : j + 2]
    return x


def _md1k_solve(rho: Any, K: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Loss p_K, mean number in system, p_0 and pi_0 for broadcast (rho, K)."""
    r, k = _rho_k(rho, K)
    shape = r.shape
    rf = r.ravel().astype(float)
    kf = k.ravel()
    loss = np.empty(rf.size)
    mean = np.empty(rf.size)
    p0 = np.empty(rf.size)
    if rf.size == 0:
        return loss.reshape(shape), mean.reshape(shape), p0.reshape(shape), r
    uniq, inv = np.unique(rf, return_inverse=True)
    kmax = int(kf.max())
    _md1k_check_work(uniq, kmax)
    mmax = _md1k_table_length(float(uniq.max()))
    pmf, tail, e = _poisson_tails(uniq, mmax)
    x = _md1_unnormalised(uniq, kmax, mmax, tail, pmf[:, 0])
    length = x.shape[1]  # x_n = 0 for n >= length
    S = np.cumsum(x, axis=1)
    Sn = np.cumsum(x * np.arange(length)[None, :], axis=1)
    for idx in range(rf.size):
        u, kk = inv[idx], int(kf[idx])
        xs = x[u]
        last = min(kk, length) - 1
        s = S[u, last]
        pi0 = xs[0] / s
        lo = max(1, kk - mmax)
        i = np.arange(lo, min(kk, length))
        lost = xs[0] * (e[u, kk - 1] if kk - 1 <= mmax else 0.0) + float(np.dot(xs[i], e[u, kk - i]))
        lost /= s
        pk = lost / (1.0 + lost)
        denom = pi0 + uniq[u]
        loss[idx] = pk
        mean[idx] = (Sn[u, last] / s) / denom + kk * pk
        p0[idx] = pi0 / denom
    return loss.reshape(shape), mean.reshape(shape), p0.reshape(shape), r


def md1k_loss(rho: Any, K: Any) -> Any:
    """Exact loss (blocking) probability of M/D/1/K, the embedded-Markov-chain solution.

    Gross et al. (M/G/1/K): ``p_K = 1 - 1/(pi_0 + rho)`` with ``pi`` the departure-epoch distribution;
    Brun & Garcia (2000) give the same quantity in closed form. Evaluated with a subtraction-free cut
    recursion, so tiny losses (1e-15 and below) keep full relative accuracy. K = 1 gives ``rho/(1+rho)``.
    """
    return scalar_or_array(_md1k_solve(rho, K)[0])


def md1k_mean_queue(rho: Any, K: Any, include_service: bool = True) -> Any:
    """Exact time-average number in an M/D/1/K system (``include_service=False``: number waiting)."""
    _, mean, p0, _ = _md1k_solve(rho, K)
    if not include_service:
        mean = mean - (1.0 - p0)
    return scalar_or_array(mean)


def md1k_distribution(rho: float, K: int) -> np.ndarray:
    """Time-average distribution ``p_n``, n = 0..K, of the number in an M/D/1/K system."""
    r = float(check_range("rho", rho, 0.0, None, low_open=True))
    k = int(check_int("K", K, 1))
    ru = np.array([r])
    _md1k_check_work(ru, k)
    mmax = _md1k_table_length(r)
    pmf, tail, _ = _poisson_tails(ru, mmax)
    x = _md1_unnormalised(ru, k, mmax, tail, pmf[:, 0])[0]
    pi = np.zeros(k)
    pi[: x.size] = x / x.sum()
    pk = float(md1k_loss(r, k))
    return np.append(pi * (1.0 - pk), pk)


# --------------------------------------------------------------------------------------------------------
# Monte Carlo of M/D/1/K


#: Limits of the Monte Carlo: arrivals per queue (warm-up included; each is a step of a Python loop),
#: queues simulated side by side, and draws in all (about 1e9 takes a minute).
MC_MAX_STEPS = 2_000_000
MC_MAX_CELLS = 10_000_000
MC_MAX_WORK = 1e9


@dataclass(frozen=True)
class MD1KSimulation:
    """Monte Carlo estimates (arrays broadcast over rho and K) with standard errors over replications."""

    loss: Any
    loss_stderr: Any
    mean_queue: Any
    mean_queue_stderr: Any
    arrivals_per_replication: int
    replications: int
    seed: int


def md1k_simulate(
    rho: Any,
    K: Any,
    arrivals: int = 20000,
    replications: int = 200,
    warmup: int = 1000,
    seed: int = 0,
) -> MD1KSimulation:
    """Simulate M/D/1/K (service time 1, Poisson arrivals of rate rho), vectorized over rho, K, replications.

    The unfinished work V seen by an arrival is the state: with deterministic service and FIFO the number in
    the system is ``ceil(V)``, so the arrival is admitted iff ``V <= K - 1``; then
    ``V <- max(V + admitted - gap, 0)``. Loss = dropped / offered; the mean number in system follows from
    Little's law, ``L = rho * E[admitted * (V + 1)]``. Each replication starts empty and discards
    ``warmup`` arrivals. Deterministic for a given ``seed`` (numpy ``Generator``).
    """
    r, k = _rho_k(rho, K)
    n = int(check_int("arrivals", arrivals, 1))
    reps = int(check_int("replications", replications, 2))
    warm = int(check_int("warmup", warmup, 0))
    seed = check_integer("seed", seed, 0)
    shape = r.shape + (reps,)
    cells = int(np.prod(shape))
    if cells > MC_MAX_CELLS or (warm + n) > MC_MAX_STEPS or (warm + n) * cells > MC_MAX_WORK:
        raise LimitError(f"arrivals and replications: the Monte Carlo would draw {warm + n:,} arrivals "
                         f"for each of {cells:,} queues (loads x K x replications); the limits are "
                         f"{MC_MAX_STEPS:,} arrivals, {MC_MAX_CELLS:,} queues and {MC_MAX_WORK:.0e} draws "
                         "in all")
    rng = np.random.default_rng(seed)
    rate = r.astype(float)[..., None]
    cap = (k.astype(float) - 1.0)[..., None]
    v = np.zeros(shape)
    lost = np.zeros(shape)
    work = np.zeros(shape)
    total = warm + n
    block = max(1, min(total, int(4_000_000 // max(1, v.size))))
    step = 0
    while step < total:
        m = min(block, total - step)
        gaps = rng.standard_exponential((m,) + shape) / rate
        for g in gaps:
            adm = v <= cap
            if step >= warm:
                lost += ~adm
                work += np.where(adm, v + 1.0, 0.0)
            v = np.maximum(v + adm - g, 0.0)
            step += 1
    loss_r = lost / n
    mean_r = rate * work / n
    se = 1.0 / math.sqrt(reps)
    return MD1KSimulation(
        loss=scalar_or_array(loss_r.mean(axis=-1)),
        loss_stderr=scalar_or_array(loss_r.std(axis=-1, ddof=1) * se),
        mean_queue=scalar_or_array(mean_r.mean(axis=-1)),
        mean_queue_stderr=scalar_or_array(mean_r.std(axis=-1, ddof=1) * se),
        arrivals_per_replication=n,
        replications=reps,
        seed=int(seed),
    )


# --------------------------------------------------------------------------------------------------------
# tail bound


def geometric_tail_bound(rho: Any, B: Any) -> Any:
    """``rho^B``: P(Q >= B) in M/M/1 (infinite buffer), the drop bound of Enachescu et al. 2005, Lemma 2.

    Requires ``0 < rho < 1`` and ``B >= 0``.
    """
    r = check_open_interval("rho", rho, 0.0, 1.0)
    b = check_range("B", B, 0.0, None)
    with np.errstate(under="ignore"):
        return scalar_or_array(np.power(r, b))


#: Points of a loss-against-K curve in the figure.
PLOT_POINTS = 1000


def plot_loss_vs_buffer(rhos: Any, kmax: int, directory: str) -> list:
    """Loss against K for each rho (M/M/1/K, M/D/1/K, rho^K), saved as PNG and SVG in ``directory``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rhos = check_range("rho", rhos, 0.0, None, low_open=True).reshape(-1)
    kmax = max(int(kmax), 2)
    # every K up to PLOT_POINTS, a geometric grid of about that many beyond
    ks = np.arange(1, kmax + 1)
    if kmax > PLOT_POINTS:
        ks = np.unique(np.round(np.geomspace(1, kmax, PLOT_POINTS)))
    ensure_directory(directory)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, r in enumerate(rhos):
        color = f"C{i % 10}"
        mm = np.clip(mm1k_loss(r, ks), 1e-300, None)
        md = np.clip(md1k_loss(r, ks), 1e-300, None)
        ax.semilogy(ks, mm, "--", color=color, label=f"M/M/1/K rho={r:g}")
        ax.semilogy(ks, md, "-", color=color, label=f"M/D/1/K rho={r:g}")
        if r < 1:
            ax.semilogy(ks, r**ks, ":", color=color, label=f"rho^K rho={r:g}")
    ax.set_xlabel("K (packets in system, incl. in service)")
    ax.set_ylabel("loss probability")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, directory, "queueing_loss_vs_K")
