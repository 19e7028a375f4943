"""Whittle (transmission) index of an AIMD flow: Avrachenkov, Ayesta, Doncel & Jacko (2013).

K. Avrachenkov, U. Ayesta, J. Doncel, P. Jacko, "Congestion control of TCP flows in Internet routers by
means of index policy", *Computer Networks* 57(17):3463-3478, 2013 (arXiv:1209.3638).  Section numbers
below are the paper's.

The single-flow problem (Sec. 4.1 and Sec. 6, problems (7)-(9)):

* states are congestion windows ``n = 1..N``;
* admit (action 1): reward ``f(n)``, work ``n``, next window ``min(n + 1, N)`` (additive increase);
* reject (action 0): reward 0, work 0, next window ``max(floor(gamma * n), 1)`` (multiplicative decrease);
* a per-packet transmission cost ``nu`` (the Lagrange multiplier of (6)) turns the admit reward into
  ``f(n) - nu * n``; rewards are discounted by ``beta`` per slot (one slot = one RTT).

The Whittle index ``nu_n`` (Definition 2, Sec. 6.1) is the cost at which admitting and rejecting are
equally good in window ``n``: admitting is optimal iff ``nu <= nu_n``.  It is computed here by
Nino-Mora's adaptive-greedy algorithm (paper ref. [28]; Sec. 6.1), which also checks the PCL-indexability
conditions, and checked by an independent brute-force solver (policy iteration + bisection on ``nu``).

The reward ``f`` is not legible in the paper's text (Sec. 4.1 names only "generalized alpha-fairness").
Two conventions are offered:

* ``"normalised"`` (default): ``f(n) = ((1 + n)^(1 - alpha) - 1) / (1 - alpha)``, ``log(1 + n)`` at
  ``alpha = 1``.  Concave, ``f(0) = 0``, ``f(n) = n`` at ``alpha = 0``; consistent with every qualitative
  claim of Sec. 6.2-6.3 that can be checked.
* ``"alpha-fair"``: the literal alpha-fair utility of the window, ``n^(1 - alpha) / (1 - alpha)``,
  ``log(n)`` at ``alpha = 1``.

Any callable ``f(n) -> float`` may be passed instead.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np

from bufferlab.errors import BufferLabError
from bufferlab.models._checks import as_float_array, check_integer, check_real
from bufferlab.plots import ensure_directory, save_figure

__all__ = [
    "REWARD_CONVENTIONS",
    "AIMDFlow",
    "WhittleResult",
    "BruteForceResult",
    "normalised_reward",
    "alpha_fair_reward",
    "reward_values",
    "aimd_flow",
    "evaluate_policy",
    "adaptive_greedy",
    "whittle_index",
    "optimal_policy",
    "brute_force_index",
    "closed_form_index",
    "myopic_index",
    "is_threshold",
    "birth_death_gamma",
    "index_table",
    "clear_index_table_cache",
    "default_cache_dir",
    "lookup_index",
    "plot_figure3",
]

#: Names accepted for the ``reward`` argument (a callable is also accepted).
REWARD_CONVENTIONS = ("normalised", "alpha-fair")

RewardSpec = Union[str, Callable[[int], float]]

#: ``floor(gamma * n)`` treats products within this distance below an integer as that integer, so that
#: e.g. ``gamma = 1/3`` and ``n = 3`` give 1 although ``(1/3) * 3`` may round to ``0.999...``.
_FLOOR_EPS = 1e-9

#: Bumped whenever the algorithm changes in a way that could alter cached tables.
_TABLE_FORMAT_VERSION = 1


# ----------------------------------------------------------------------------------------------------------
# Parameter checks
# ----------------------------------------------------------------------------------------------------------


#: Largest N: the adaptive-greedy algorithm costs O(N^2 log(1/(1 - beta))), about 20 s at the limit; the
#: brute force of ``--verify`` costs about N^3 (8 s at N = 200).
MAX_N = 10_000
VERIFY_MAX_N = 200


def _check_n_max(n_max: Any) -> int:
    return check_integer("n_max (maximum window N)", n_max, 1, MAX_N)


#: Largest alpha. From about alpha = 50 on, (1 + n)^(1 - alpha) is below double precision's resolution for
#: every window n >= 1, so both rewards reach their max-min limit and the index table only shrinks as
#: 1/(alpha - 1); the solvers' tolerances are absolute (1e-9 at a unit reward), so far beyond it their checks
#: stop meaning anything (at alpha = 1e8 and N = 200 the threshold flag comes out wrong) and near 1e307 the
#: normalised reward overflows. Up to 100 every flag agrees with alpha = 60's (tests/test_models_whittle.py).
MAX_ALPHA = 100.0


def _check_alpha(alpha: Any) -> float:
    return check_real("alpha (fairness parameter)", alpha, 0.0, MAX_ALPHA,
                      note="(from about 50 on the index only shrinks as 1/(alpha - 1), the max-min limit)")


def _check_beta(beta: Any) -> float:
    return check_real("beta (discount factor)", beta, 0.0, 1.0, low_open=True, high_open=True,
                      span="the open interval (0, 1)")


def _check_gamma(gamma: Any) -> float:
    return check_real("gamma (multiplicative-decrease factor)", gamma, 0.0, 1.0, high_open=True,
                      note="(0 = reset to window 1)")


def _check_flow(n_max: Any, alpha: Any, beta: Any, gamma: Any) -> tuple[int, float, float, float]:
    """The four parameters of the AIMD flow, checked: ``(n_max, alpha, beta, gamma)``."""
    return _check_n_max(n_max), _check_alpha(alpha), _check_beta(beta), _check_gamma(gamma)


def _check_reward(reward: Any) -> RewardSpec:
    if callable(reward):
        return reward
    if isinstance(reward, str):
        key = reward.strip().lower().replace("_", "-")
        aliases = {"normalised": "normalised", "normalized": "normalised", "c": "normalised",
                   "alpha-fair": "alpha-fair", "alphafair": "alpha-fair", "literal": "alpha-fair",
                   "a": "alpha-fair"}
        if key in aliases:
            return aliases[key]
    raise BufferLabError(
        f"reward must be one of {', '.join(REWARD_CONVENTIONS)} or a callable f(n) -> float, got {reward!r}"
    )


# ----------------------------------------------------------------------------------------------------------
# Rewards (paper Sec. 4.1 "generalized alpha-fairness")
# ----------------------------------------------------------------------------------------------------------


def normalised_reward(n: Union[float, np.ndarray], alpha: float) -> np.ndarray:
    """Normalised alpha-fair reward ``((1 + n)^(1 - alpha) - 1) / (1 - alpha)`` (``log(1 + n)`` at alpha 1).

    The default convention: concave, ``f(0) = 0``, ``f(n) = n`` at ``alpha = 0``
    (so every index equals 1, the DropTail-like case of Sec. 6.3).  Evaluated with ``expm1``/``log1p`` so
    it is continuous through ``alpha = 1``.
    """
    a = _check_alpha(alpha)
    x = np.log1p(np.asarray(n, dtype=float))
    if a == 1.0:
        return x
    return np.expm1((1.0 - a) * x) / (1.0 - a)


def alpha_fair_reward(n: Union[float, np.ndarray], alpha: float) -> np.ndarray:
    """Literal alpha-fair utility of the window ``n^(1 - alpha) / (1 - alpha)`` (``log n`` at alpha 1).

    The alternative convention, from the alpha-fairness family the paper cites in
    Sec. 4.1 (its refs. [8, 9]).  Negative for ``alpha > 1`` and zero at ``n = 1`` for ``alpha = 1``.
    """
    a = _check_alpha(alpha)
    x = np.asarray(n, dtype=float)
    if a == 1.0:
        return np.log(x)
    return x ** (1.0 - a) / (1.0 - a)


def reward_values(n_max: int, alpha: float, reward: RewardSpec = "normalised") -> np.ndarray:
    """Admission rewards ``R^1_n = f(n)`` for windows ``n = 1..n_max`` (Sec. 4.1, the flow's reward vector).

    ``reward`` is ``"normalised"`` (default), ``"alpha-fair"`` or a callable called once per window with
    an ``int`` ``n >= 1`` (``alpha`` is then only validated, not used).
    """
    n_max = _check_n_max(n_max)
    alpha = _check_alpha(alpha)
    reward = _check_reward(reward)
    windows = np.arange(1, n_max + 1)
    if reward == "normalised":
        return normalised_reward(windows, alpha)
    if reward == "alpha-fair":
        return alpha_fair_reward(windows, alpha)
    try:
        values = np.array([float(reward(int(n))) for n in windows], dtype=float)
    except BufferLabError:
        raise
    except Exception as exc:  # a user function failing is bad input, not a crash
        raise BufferLabError(f"reward callable failed: {exc}") from exc
    if not np.all(np.isfinite(values)):
        bad = int(windows[~np.isfinite(values)][0])
        raise BufferLabError(f"reward callable must return finite values for n = 1..{n_max}; f({bad}) is not")
    return values


# ----------------------------------------------------------------------------------------------------------
# The AIMD-flow MDP (Sec. 4.1, Sec. 6)
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AIMDFlow:
    """One AIMD flow as a restless bandit project (Sec. 4.1, Fig. 2; Sec. 6 items 1-4).

    Arrays are indexed by ``n - 1`` for window ``n``.  ``up``/``down`` hold 0-based successor states of the
    admit (ACK, ``n -> min(n+1, N)``) and reject (NACK, ``n -> max(floor(gamma n), 1)``) transitions;
    ``work`` is the admission work ``W^1_n = n`` (packets sent in a slot).  The solvers only use these
    arrays, so any deterministic two-action project can be studied by building the class directly.
    """

    n_max: int
    beta: float
    gamma: float
    rewards: np.ndarray
    up: np.ndarray
    down: np.ndarray
    work: np.ndarray

    @property
    def windows(self) -> np.ndarray:
        """Window sizes ``1..N``."""
        return np.arange(1, self.n_max + 1)

    @classmethod
    def from_rewards(cls, rewards: Sequence[float], beta: float, gamma: float) -> AIMDFlow:
        """Build a flow from an explicit reward vector ``(f(1), ..., f(N))``."""
        r = as_float_array("rewards", rewards).ravel().copy()
        if r.size < 1:
            raise BufferLabError("rewards must hold f(1)..f(N) for N >= 1, got an empty sequence")
        beta = _check_beta(beta)
        gamma = _check_gamma(gamma)
        n_max = r.size
        n = np.arange(1, n_max + 1)
        up = np.minimum(n + 1, n_max) - 1
        down = np.maximum(np.floor(gamma * n + _FLOOR_EPS).astype(np.int64), 1) - 1
        work = n.astype(float)
        for arr in (r, up, down, work):
            arr.setflags(write=False)
        return cls(n_max=n_max, beta=beta, gamma=gamma, rewards=r, up=up, down=down, work=work)


def aimd_flow(
    n_max: int, alpha: float, beta: float, gamma: float, reward: RewardSpec = "normalised"
) -> AIMDFlow:
    """The single-flow MDP of Sec. 4.1/Sec. 6 with reward ``f_alpha`` (see :func:`reward_values`).

    Raises :class:`~bufferlab.errors.BufferLabError` for ``n_max < 1``, ``alpha < 0``, ``beta`` outside
    ``(0, 1)`` or ``gamma`` outside ``[0, 1)`` (``gamma = 0`` is the paper's reset-to-1 variant, Sec. 3 and
    Scenario 2, so it is allowed).
    """
    n_max, alpha, beta, gamma = _check_flow(n_max, alpha, beta, gamma)
    return AIMDFlow.from_rewards(reward_values(n_max, alpha, reward), beta, gamma)


def _doubling_steps(beta: float) -> int:
    """Doublings needed so that ``beta^(2^k) / (1 - beta)`` is below double-precision resolution."""
    horizon = math.log(2.0**-60 * (1.0 - beta)) / math.log(beta)
    return max(1, math.ceil(math.log2(max(horizon, 2.0))))


def evaluate_policy(flow: AIMDFlow, admit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Discounted reward ``R^S_n`` and work ``W^S_n`` of the stationary policy with admission set ``S``.

    Sec. 6.1, the two measures entering problem (9).  ``admit`` is a boolean mask over windows ``1..N``.
    The dynamics are deterministic, so every policy is a map ``n -> next(n)`` and the values are the
    discounted sums along one path; they are accumulated by pointer doubling (``O(N log(1/(1 - beta)))``)
    up to a horizon whose discounted tail is below double-precision resolution.
    """
    admit = np.asarray(admit, dtype=bool)
    nxt = np.where(admit, flow.up, flow.down)
    acc = np.vstack([np.where(admit, flow.rewards, 0.0), np.where(admit, flow.work, 0.0)])
    disc = flow.beta
    for _ in range(_doubling_steps(flow.beta)):
        acc = acc + disc * acc[:, nxt]
        nxt = nxt[nxt]
        disc = disc * disc
    return acc[0], acc[1]


# ----------------------------------------------------------------------------------------------------------
# Adaptive-greedy algorithm (Sec. 6.1, Nino-Mora 2007 [28])
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class WhittleResult:
    """Output of :func:`adaptive_greedy` (Sec. 6.1).

    ``index[n - 1]`` is the transmission index of window ``n``; ``order`` lists windows in the order the
    algorithm priced them (lowest index first).  The indexability certificate has three parts:

    * ``marginal_work_positive``: every marginal work ``w_i^S`` met is positive (PCL condition (i) of
      Nino-Mora [28]); ``min_marginal_work`` is the smallest one;
    * ``monotone``: the index values come out non-decreasing in the algorithm's order;
    * ``policies_optimal``: each admission set ``S_k`` of the algorithm's nested family is optimal on its
      whole cost interval ``[nu_(k), nu_(k+1)]`` (the "F-policies are optimal" part of PCL(F)-indexability,
      checked exactly through the one-step optimality conditions at both ends of the interval).

    Together they prove indexability (Definition 2) with :attr:`index` as the Whittle index.
    """

    index: np.ndarray
    order: np.ndarray
    marginal_work_positive: bool
    monotone: bool
    policies_optimal: bool
    min_marginal_work: float
    flow: AIMDFlow

    @property
    def indexable(self) -> bool:
        """PCL-indexable, hence indexable with :attr:`index` as Whittle index ([28]; Sec. 6.1)."""
        return self.marginal_work_positive and self.monotone and self.policies_optimal

    @property
    def threshold(self) -> bool:
        """Index non-increasing in the window, i.e. threshold policies optimal (Proposition 2, Sec. 6.1)."""
        return is_threshold(self.index)


def adaptive_greedy(flow: AIMDFlow) -> WhittleResult:
    """Whittle index by Nino-Mora's adaptive-greedy algorithm with PCL-indexability checks (Sec. 6.1).

    Top-down form: start from the admit-everywhere policy ``S = {1..N}`` (optimal as ``nu -> -inf``).
    For every window ``i`` compute the marginal reward and work of admitting once in ``i`` and then
    following ``S`` (``R^S``, ``W^S`` from :func:`evaluate_policy`)::

        r_i = f(i) + beta (R^S[up(i)] - R^S[down(i)]),   w_i = i + beta (W^S[up(i)] - W^S[down(i)])

    remove from ``S`` the window with the smallest marginal productivity rate ``r_i / w_i`` and record that
    rate as its index; repeat N times (the "one-run" algorithm of Sec. 6.1, one index per step).  Along the
    way the three conditions of :class:`WhittleResult` are checked; ``S`` is optimal at cost ``nu`` iff
    ``r_i - nu w_i >= 0`` for ``i`` in ``S`` and ``<= 0`` outside, which is linear in ``nu``, so checking the
    two ends of each interval is exact.  Cost ``O(N^2 log(1/(1 - beta)))``; N = 200 takes about 20 ms.
    """
    n = flow.n_max
    beta = flow.beta
    admit = np.ones(n, dtype=bool)
    index = np.empty(n)
    order = np.empty(n, dtype=np.int64)
    f, work, up, down = flow.rewards, flow.work, flow.up, flow.down
    scale = max(1.0, float(np.max(np.abs(f / work))))
    tol = 1e-9 * scale
    min_work = math.inf
    prev = -math.inf
    monotone = True
    optimal = True
    for step in range(n + 1):
        value, load = evaluate_policy(flow, admit)
        r = f + beta * (value[up] - value[down])
        w = work + beta * (load[up] - load[down])
        min_work = min(min_work, float(np.min(w)))
        # Rejected windows must not want to be admitted at the low end of this policy's interval.
        if step > 0:
            wtol = tol * np.maximum(1.0, np.abs(w))
            if np.any(~admit & (r - prev * w > wtol)):
                optimal = False
        if step == n:
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(admit, r / w, np.inf)
        i = int(np.argmin(rate))
        nu = float(rate[i])
        # ...nor at its high end (admitted windows are fine there: their rates are >= nu when w > 0).
        if step > 0 and np.any(~admit & (r - nu * w > tol * np.maximum(1.0, np.abs(w)))):
            optimal = False
        if nu < prev - tol:
            monotone = False
        prev = max(prev, nu)
        index[step] = nu
        order[step] = i
        admit[i] = False
    out = np.empty(n)
    out[order] = index
    positive = bool(min_work > 1e-12 * n)
    out.setflags(write=False)
    windows = order + 1
    windows.setflags(write=False)
    return WhittleResult(
        index=out, order=windows, marginal_work_positive=positive, monotone=monotone,
        policies_optimal=optimal, min_marginal_work=min_work, flow=flow,
    )


def whittle_index(
    n_max: int, alpha: float, beta: float, gamma: float, reward: RewardSpec = "normalised"
) -> WhittleResult:
    """Whittle (transmission) index of the AIMD flow (Sec. 6.1-6.3): adaptive greedy on :func:`aimd_flow`."""
    return adaptive_greedy(aimd_flow(n_max, alpha, beta, gamma, reward))


# ----------------------------------------------------------------------------------------------------------
# Independent brute-force verifier: policy iteration + bisection on nu (Definition 2, Sec. 6.1)
# ----------------------------------------------------------------------------------------------------------


def _solve_policy(flow: AIMDFlow, admit: np.ndarray, nu: float) -> np.ndarray:
    """Value of a stationary policy under cost ``nu`` by a direct linear solve of ``(I - beta P_S) V = r_S``
    (dense LU up to 128 windows, sparse LU above; independent of :func:`evaluate_policy`)."""
    n = flow.n_max
    nxt = np.where(admit, flow.up, flow.down)
    rhs = np.where(admit, flow.rewards - nu * flow.work, 0.0)
    if n <= 128:
        a = np.eye(n)
        a[np.arange(n), nxt] -= flow.beta
        return np.linalg.solve(a, rhs)
    from scipy.sparse import csc_matrix, identity
    from scipy.sparse.linalg import spsolve

    p = csc_matrix((np.ones(n), (np.arange(n), nxt)), shape=(n, n))
    return np.asarray(spsolve((identity(n, format="csc") - flow.beta * p).tocsc(), rhs), dtype=float)


def optimal_policy(
    flow: AIMDFlow, nu: float, start: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solve the ``nu``-subsidy problem (8) exactly by policy iteration (Sec. 6, problem (8)).

    Returns ``(admit, value, advantage)``: an optimal admission set, the optimal value ``V_nu`` and the
    advantage of admitting, ``f(n) - nu n + beta V(up(n)) - beta V(down(n))``, per window (admitting is
    optimal where it is ``>= 0``).
    """
    admit = np.ones(flow.n_max, dtype=bool) if start is None else np.array(start, dtype=bool)
    tol = 1e-12 * max(1.0, float(np.max(np.abs(flow.rewards - nu * flow.work)))) / (1.0 - flow.beta)
    for _ in range(10 * flow.n_max + 10):
        value = _solve_policy(flow, admit, nu)
        adv = flow.rewards - nu * flow.work + flow.beta * (value[flow.up] - value[flow.down])
        better = np.where(admit, adv < -tol, adv > tol)
        if not better.any():
            return admit, value, adv
        admit = np.where(better, ~admit, admit)
    raise RuntimeError("policy iteration did not converge")  # cannot happen for a finite MDP


@dataclass(frozen=True, eq=False)
class BruteForceResult:
    """Output of :func:`brute_force_index`.

    ``index`` from bisection on ``nu``; ``indexable`` is True when, at every test cost on a grid spanning
    all index values, the optimal admission set is exactly ``{n : nu_n > nu}`` (so the sets shrink
    monotonically as ``nu`` grows, Definition 2); ``violations`` counts grid points where that failed.
    """

    index: np.ndarray
    indexable: bool
    violations: int
    grid_points: int

    @property
    def threshold(self) -> bool:
        """Index non-increasing in the window (Proposition 2)."""
        return is_threshold(self.index)


def brute_force_index(flow: AIMDFlow, tol: float = 1e-11, grid_per_gap: int = 3) -> BruteForceResult:
    """Whittle index by brute force: bisection on the cost ``nu`` with an exact MDP solve at each step.

    Definition 2 (Sec. 6.1): ``nu_n`` separates costs where admitting in ``n`` is optimal from those where
    rejecting is.  For each window the bracket ``[lo, hi]`` (admit optimal everywhere at ``lo``, reject at
    ``hi``; ``hi = max f(n)/n`` works because every admission then loses money) is bisected on the sign
    of the admission advantage from :func:`optimal_policy` to absolute width ``tol * scale``.  Indexability
    is then checked on a grid of costs: ``grid_per_gap`` points inside each gap between consecutive
    distinct index values plus points beyond both ends.  Independent of :func:`adaptive_greedy` (uses
    sparse linear solves and policy iteration, never marginal rates).  ``O(N^2)`` MDP solves.
    """
    f, work = flow.rewards, flow.work
    ratio = f / work
    scale = max(1.0, float(np.max(np.abs(ratio))))
    hi = float(np.max(ratio)) + 1e-6 * scale
    lo = float(np.min(ratio)) - scale
    # Push lo down until admitting is optimal in every window (true for nu low enough: Sec. 6.2).
    # (Always reached for positive work; for other projects the grid check below reports the failure.)
    for _ in range(40):
        _, _, adv = optimal_policy(flow, lo)
        if np.all(adv > 0):
            break
        lo -= 2.0 * (hi - lo)
    index = np.empty(flow.n_max)
    for n in range(flow.n_max):
        a, b = lo, hi
        guess: np.ndarray | None = None
        for _ in range(400):
            mid = 0.5 * (a + b)
            if b - a <= tol * scale or not a < mid < b:
                break
            guess, _, adv = optimal_policy(flow, mid, guess)
            if adv[n] >= 0:
                a = mid
            else:
                b = mid
        index[n] = 0.5 * (a + b)
    # Grid check of indexability.
    levels = np.unique(index)
    span = max(float(levels[-1] - levels[0]), 1e-3 * scale)
    pts = [levels[0] - 0.5 * span, levels[-1] + 0.5 * span]
    sep = 100.0 * tol * scale
    for left, right in zip(levels[:-1], levels[1:]):
        if right - left > 2 * sep:
            pts.extend(np.linspace(left + sep, right - sep, grid_per_gap))
    violations = 0
    start = None
    for nu in sorted(pts):
        start, _, adv = optimal_policy(flow, float(nu), start)
        should_admit = index > nu
        # Admission must be (weakly) optimal exactly where the index is above nu.
        atol = 1e-8 * scale / (1.0 - flow.beta)
        wrong = np.where(should_admit, adv < -atol, adv > atol)
        violations += int(np.count_nonzero(wrong))
    index.setflags(write=False)
    return BruteForceResult(index=index, indexable=violations == 0, violations=violations,
                            grid_points=len(pts))


# ----------------------------------------------------------------------------------------------------------
# Closed forms and bounds (Sec. 6.2-6.3)
# ----------------------------------------------------------------------------------------------------------


def closed_form_index(rewards: Sequence[float], beta: float, gamma: float) -> np.ndarray:
    """Closed-form index values for flows with N = 1, 2, 3 windows (Sec. 6.2).

    With ``f_n = f(n)``:

    * N = 1: ``nu_1 = f_1``.
    * N = 2: ``nu_1 = f_1``, ``nu_2 = ((1+b) f_2 - b f_1)/(2+b)`` if ``f_2 <= 2 f_1``; otherwise (not
      threshold) ``nu_1 = ((1-b) f_1 + b f_2)/(1+b)``, ``nu_2 = f_2/2``.
    * N = 3, ``gamma < 2/3`` (reject from 3 resets to 1): ``nu_1, nu_2`` as for N = 2 and
      ``nu_3 = ((1+b+b^2) f_3 - b f_1 - b^2 f_2)/(3+2b+b^2)`` (valid when these are non-increasing).
    * N = 3, ``gamma >= 2/3`` (birth-death): with
      ``D = (3+3b-b^2) f_2 - b(3+b) f_1 - (1+b)(2-b) f_3``, if ``D >= 0``:
      ``nu = (f_1, (f_2 - b f_1)/(2-b), ((1+b) f_3 - b f_2)/(3+b))``; else
      ``nu = (f_1, ((1-b^2) f_2 + b(1+b) f_3 - b f_1)/(2+2b+b^2), ((1+b) f_3 - b^2 f_1)/(3+3b-b^2))``
      with ``nu_2 < nu_3`` (the threshold policy ``{1, 2}`` is never optimal).

    The N = 3 formulas hold for rewards concave on ``{0, 1, 2, 3}`` with ``f(0) = 0``, i.e.
    ``f_1 >= f_2 - f_1 >= f_3 - f_2`` (the normalised convention; checked against the brute-force solver
    on random concave rewards of either sign); they can fail otherwise, so a ``BufferLabError`` is raised.
    """
    f = np.asarray(rewards, dtype=float).ravel()
    b = _check_beta(beta)
    g = _check_gamma(gamma)
    if f.size == 1:
        return np.array([f[0]])
    if f.size == 2:
        f1, f2 = f
        if f2 <= 2.0 * f1:
            return np.array([f1, ((1 + b) * f2 - b * f1) / (2 + b)])
        return np.array([((1 - b) * f1 + b * f2) / (1 + b), f2 / 2.0])
    if f.size != 3:
        raise BufferLabError(f"closed forms exist for N = 1, 2, 3 windows only, got N = {f.size}")
    f1, f2, f3 = f
    slack = 1e-12 * max(1.0, float(np.max(np.abs(f))))
    if not (f1 >= f2 - f1 - slack and f2 - f1 >= f3 - f2 - slack):
        raise BufferLabError(
            "the N = 3 closed form needs a reward concave on {0,1,2,3} with f(0) = 0: "
            f"f(1) >= f(2) - f(1) >= f(3) - f(2), got f = ({f1:g}, {f2:g}, {f3:g})"
        )
    if math.floor(3 * g + _FLOOR_EPS) <= 1:
        nu3 = ((1 + b + b * b) * f3 - b * f1 - b * b * f2) / (3 + 2 * b + b * b)
        return np.array([f1, ((1 + b) * f2 - b * f1) / (2 + b), nu3])
    d = (3 + 3 * b - b * b) * f2 - b * (3 + b) * f1 - (1 + b) * (2 - b) * f3
    if d >= 0:
        return np.array([f1, (f2 - b * f1) / (2 - b), ((1 + b) * f3 - b * f2) / (3 + b)])
    return np.array([
        f1,
        ((1 - b * b) * f2 + b * (1 + b) * f3 - b * f1) / (2 + 2 * b + b * b),
        ((1 + b) * f3 - b * b * f1) / (3 + 3 * b - b * b),
    ])


def myopic_index(flow: AIMDFlow) -> np.ndarray:
    """Myopic index ``f(n)/n`` (the ``beta -> 0`` index), the upper bound suggested in Sec. 6.3."""
    return flow.rewards / flow.work


def is_threshold(index: np.ndarray, rtol: float = 1e-9) -> bool:
    """True when the index is non-increasing in the window, so threshold policies are optimal
    (Definition 1 and Proposition 2, Sec. 6.1)."""
    index = np.asarray(index, dtype=float)
    tol = rtol * max(1.0, float(np.max(np.abs(index)))) if index.size else 0.0
    return bool(np.all(np.diff(index) <= tol))


def birth_death_gamma(n_max: int) -> float:
    """A decrease factor for which the reject transition is ``n -> n - 1`` for every window ``n <= N``.

    Sec. 6.3 ("gamma close to 1 ... essentially a birth-death dynamics"): ``gamma = 1 - 1/(N + 1)``.
    """
    n_max = _check_n_max(n_max)
    return 1.0 - 1.0 / (n_max + 1.0)


# ----------------------------------------------------------------------------------------------------------
# Cached index tables for the packet-level policy (Sec. 7, "Heuristic index policy at packet level")
# ----------------------------------------------------------------------------------------------------------


def default_cache_dir() -> Path:
    """Directory for persisted index tables (the offline tables of Sec. 7): ``$BUFFERLAB_CACHE_DIR/whittle``
    when that variable is set, else ``~/.cache/bufferlab/whittle``."""
    root = os.environ.get("BUFFERLAB_CACHE_DIR")
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "bufferlab"
    return base / "whittle"


def _table_key(n_max: int, alpha: float, beta: float, gamma: float, reward: str) -> str:
    text = json.dumps([_TABLE_FORMAT_VERSION, n_max, alpha.hex(), beta.hex(), gamma.hex(), reward])
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"whittle-N{n_max}-{reward}-{digest}"


def _load_table(path: Path, meta: dict) -> np.ndarray | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = json.loads(str(data["meta"]))
            if stored != meta:
                return None
            table = np.array(data["index"], dtype=float)
    except (OSError, KeyError, ValueError):
        return None
    return table if table.shape == (meta["n_max"],) else None


def _save_table(path: Path, table: np.ndarray, meta: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        np.savez(tmp, index=table, meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)
    except OSError as exc:
        raise BufferLabError(f"cannot write the index-table cache in {path.parent}: {exc}") from exc


@functools.lru_cache(maxsize=256)
def _cached_table(
    n_max: int, alpha: float, beta: float, gamma: float, reward: RewardSpec, cache_dir: str | None
) -> np.ndarray:
    flow = aimd_flow(n_max, alpha, beta, gamma, reward)
    table: np.ndarray | None = None
    path: Path | None = None
    meta: dict = {}
    if cache_dir is not None:
        assert isinstance(reward, str)
        meta = {"version": _TABLE_FORMAT_VERSION, "n_max": n_max, "alpha": alpha.hex(),
                "beta": beta.hex(), "gamma": gamma.hex(), "reward": reward}
        path = Path(cache_dir) / (_table_key(n_max, alpha, beta, gamma, reward) + ".npz")
        if path.exists():
            table = _load_table(path, meta)
    if table is None:
        table = np.array(adaptive_greedy(flow).index)
        if path is not None:
            _save_table(path, table, meta)
    table.setflags(write=False)
    return table


def index_table(
    n_max: int,
    alpha: float,
    beta: float,
    gamma: float,
    reward: RewardSpec = "normalised",
    *,
    persist: bool = False,
    cache_dir: Union[str, os.PathLike, None] = None,
) -> np.ndarray:
    """Index table ``nu(n)`` for windows ``n = 1..n_max`` (``table[n - 1]``), for the packet-level policy.

    Sec. 7 ("Heuristic index policy at packet level"): the source tags every packet with ``nu(cwnd)`` and
    a full router drops the queued packet with the smallest index.  Tables are memoised in-process
    (``functools.lru_cache``; the returned array is read-only, copy it to modify).  With ``persist=True``
    or an explicit ``cache_dir`` they are also saved to / loaded from ``.npz`` files in ``cache_dir``
    (default :func:`default_cache_dir`).  Callable rewards are memoised in-process only.
    """
    n_max, alpha, beta, gamma = _check_flow(n_max, alpha, beta, gamma)
    reward = _check_reward(reward)
    directory: str | None = None
    if persist or cache_dir is not None:
        if not isinstance(reward, str):
            raise BufferLabError("index tables for a callable reward cannot be persisted; use persist=False")
        directory = str(Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir())
    return _cached_table(n_max, alpha, beta, gamma, reward, directory)


def clear_index_table_cache() -> None:
    """Forget the in-process memo of :func:`index_table` (Sec. 7 tables; files on disk are kept)."""
    _cached_table.cache_clear()


def lookup_index(table: np.ndarray, window: Union[float, np.ndarray]) -> np.ndarray:
    """Index of a (possibly fractional) congestion window: ``table[clip(floor(cwnd), 1, N) - 1]``.

    Sec. 7: packets carry the index of the integer part of cwnd; windows beyond the table's ``N`` use
    ``nu(N)`` and windows below 1 use ``nu(1)``.
    """
    table = np.asarray(table)
    w = np.floor(np.asarray(window, dtype=float) + _FLOOR_EPS).astype(np.int64)
    return table[np.clip(w, 1, table.size) - 1]


# ----------------------------------------------------------------------------------------------------------
# Figure 3 (Sec. 6.3)
# ----------------------------------------------------------------------------------------------------------


def plot_figure3(
    out_dir: Union[str, os.PathLike],
    n_max: int = 30,
    alpha: float = 1.0,
    beta: float = 0.9,
    gamma: float = 0.5,
    alphas: Iterable[float] = (0.0, 0.25, 0.5, 1.0, 2.0),
    betas: Iterable[float] = (0.5, 0.8, 0.9, 0.99),
    gammas: Iterable[float] = (0.0, 1 / 6, 1 / 3, 1 / 2, 2 / 3, 5 / 6),
    gamma_beta: float = 0.99,
    reward: RewardSpec = "normalised",
    name: str = "whittle_figure3",
) -> list[Path]:
    """Figure 3 of Sec. 6.3: index against window for several alpha (a), beta (b) and gamma (c, d).

    Panels (a)-(b) vary alpha and beta around the basic instance ``(n_max, alpha, beta, gamma)``; panels
    (c)-(d) split ``gammas`` in two halves at discount ``gamma_beta`` and add the birth-death curve
    (:func:`birth_death_gamma`).  Every panel shows the myopic bound ``f(n)/n`` dashed.  The paper's
    basic-instance values are stripped from the text; these defaults are our choice.  Saves
    ``<name>.png`` and ``<name>.svg`` in ``out_dir`` and returns their paths.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_max, alpha, beta, gamma = _check_flow(n_max, alpha, beta, gamma)
    gamma_beta = _check_beta(gamma_beta)
    reward = _check_reward(reward)
    alphas = [_check_alpha(a) for a in alphas]
    betas = [_check_beta(b) for b in betas]
    gammas = [_check_gamma(g) for g in gammas]
    out = ensure_directory(out_dir)
    n = np.arange(1, n_max + 1)
    rname = reward if isinstance(reward, str) else getattr(reward, "__name__", "custom")

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)

    def draw(ax: Any, curves: list[tuple[str, np.ndarray | None, np.ndarray | None]], title: str) -> None:
        for label, values, bound in curves:
            color = "k"
            if values is not None:
                (line,) = ax.plot(n, values, marker="o", markersize=3, linewidth=1.2, label=label)
                color = line.get_color()
            if bound is not None:
                ax.plot(n, bound, "--", color=color, linewidth=0.8)
        ax.plot([], [], "k--", linewidth=0.8, label="myopic bound f(n)/n")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("congestion window n")
        ax.set_ylabel("index value")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)

    def bound(a: float) -> np.ndarray:
        return myopic_index(aimd_flow(n_max, a, beta, gamma, reward))

    draw(axes[0, 0], [(f"α = {a:g}", index_table(n_max, a, beta, gamma, reward), bound(a)) for a in alphas],
         f"(a) varying α  (β = {beta:g}, γ = {gamma:g}, N = {n_max})")
    curves = [(f"β = {b:g}", index_table(n_max, alpha, b, gamma, reward), None) for b in betas]
    curves.append(("", None, bound(alpha)))
    draw(axes[0, 1], curves, f"(b) varying β  (α = {alpha:g}, γ = {gamma:g}, N = {n_max})")
    half = (len(gammas) + 1) // 2
    bd = birth_death_gamma(n_max)
    for ax, part, tag in ((axes[1, 0], gammas[:half], "c"), (axes[1, 1], gammas[half:], "d")):
        curves = [(f"γ = {_gamma_label(g)}", index_table(n_max, alpha, gamma_beta, g, reward), None)
                  for g in part]
        curves.append(("γ → 1 (birth-death)", index_table(n_max, alpha, gamma_beta, bd, reward), None))
        curves.append(("", None, bound(alpha)))
        draw(ax, curves, f"({tag}) varying γ  (α = {alpha:g}, β = {gamma_beta:g}, N = {n_max})")
    fig.suptitle(f"Whittle index of an AIMD flow (Avrachenkov et al. 2013, Fig. 3); reward: {rname}")
    return save_figure(fig, out, name, dpi=130)


def _gamma_label(g: float) -> str:
    for k in range(0, 7):
        if abs(g - k / 6) < 1e-12:
            return {0: "0", 1: "1/6", 2: "1/3", 3: "1/2", 4: "2/3", 5: "5/6", 6: "1"}[k]
    return f"{g:g}"
