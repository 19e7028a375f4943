"""The Eun & Wang doubly-stochastic Markov model of TCP/AQM under aggressive marking.

Reference: D. Y. Eun and X. Wang, "Achieving 100% Throughput in TCP/AQM Under Aggressive Packet Marking
With Small Buffer", IEEE/ACM Transactions on Networking 16(4):945-956, 2008 (DOI 10.1109/TNET.2007.904000).
Equation numbers below are the paper's.

The model (Sec. III):

* N persistent AIMD flows share a link of capacity N*C packets/s; every flow has round-trip time T, so CT
  is the per-flow bandwidth-delay product in packets.
* Given the window vector w(k) at the start of RTT k, arrivals are Poisson at rate sum(w)/T (eq. 1), and the
  queue is the stationary queue of M/M/1 (the paper's analysis choice), M/D/1 or M/M/1/K at load
  rho_k = sum(w) / (N C T).  If rho_k >= 1 every packet is marked (footnote 4).
* Marks use the scaled function p^N(q) = p(q / N^alpha) (eq. 2, 3); flow i is not marked in RTT k with
  probability E[(1 - p^N(Q))^{w_i}] (eq. 4), all w_i packets seeing the same queue realisation.
* Flows update independently given the state (Assumption 1, eq. 7-8): no mark -> min(w+1, w_max),
  mark -> max(floor(w/2), 1).

Because the flows are exchangeable given the state, the chain is simulated on the *histogram* of windows
(counts of flows with window 1..w_max) with one binomial draw per occupied window value.  The state is an
array of length w_max, so N = 10^9 flows cost the same as N = 10^3.

Outputs: utilisation rho(N) (eq. 13), mean marking probability E[p^N(Q)] (eq. 20), P{sum W >= NCT}
(Lemma 1, eq. 21), std(sum W)/sqrt(N) (Assumption 2, eq. 14-15), h(N) (Sec. V-C), the stationary queue
distribution and the overflow of the buffer B(N) = 12 N^(alpha+epsilon) (Table I, Theorem 2), and the
slope of log(1 - rho) against log N (Remark 3: 1 - rho(N) ~ kappa N^-alpha).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable, Dict, List, Sequence, Union

import numpy as np
from scipy import integrate, stats

from bufferlab.errors import BufferLabError, LimitError
from bufferlab.models._checks import check_integer, check_real
from bufferlab.models.queueing import mm1k_distribution
from bufferlab.plots import ensure_directory, save_figure
from bufferlab.stats import mean_interval

__all__ = [
    "PAPER",
    "MarkingFunction",
    "red_marking",
    "exp_marking",
    "RED1",
    "RED2",
    "EXP",
    "MARKINGS",
    "get_marking",
    "scaled_marking",
    "buffer_size",
    "mm1_pmf",
    "md1_pmf",
    "md1_pmf_recursive",
    "mm1k_pmf",
    "queue_pmf",
    "no_mark_probability",
    "EunWangParams",
    "EunWangResult",
    "simulate",
    "simulate_per_flow",
    "mean_field",
    "oscillation",
    "run_seeds",
    "sweep",
    "fit_log_slope",
    "clt_marking_probability",
    "clt_marking_bound",
    "predict_for_advisor",
    "plot_sweep",
]

PAPER = (
    "Eun & Wang, 'Achieving 100% Throughput in TCP/AQM Under Aggressive Packet Marking With Small Buffer', "
    "IEEE/ACM Trans. Networking 16(4):945-956, 2008"
)

QUEUE_MODELS = ("mm1", "md1", "mm1k", "fluid")

#: Truncation tolerance for the queue sums: terms rho^q (1 - p(q))^w below this are dropped.
_TOL = 1e-12
#: Longest queue vector summed per RTT; the remainder is bounded analytically (see _Chain).
_L_CAP = 1 << 17

#: Largest window cap w_max (the chain's state space; its cost per round grows with it, about 6 ms a round
#: at the limit) and the most rounds of one run.
MAX_WINDOW = 1_000_000
MAX_ROUNDS = 1_000_000


# ---------------------------------------------------------------------------------------------------
# Marking functions (Table I, eq. 2-3)
# ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MarkingFunction:
    """A base marking function p(x) of the scaled queue x = q / N^alpha (Eun & Wang 2008, eq. 2-3).

    ``func`` maps a numpy array of x >= 0 to probabilities in [0, 1]; it must be non-decreasing with
    p(0) = 0 and p(x) -> 1 (eq. 3).  ``x_one`` is the smallest x with p(x) = 1 if there is one (RED types).
    """

    name: str
    func: Callable[[np.ndarray], np.ndarray]
    x_one: float | None = None
    description: str = ""

    def __call__(self, x: Any) -> np.ndarray:
        return _eval_marking(self.func, x, self.name)


def _eval_marking(func: Callable[..., Any], x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    try:
        out = np.asarray(func(arr), dtype=float)
        if out.shape != arr.shape:
            out = np.broadcast_to(out, arr.shape).astype(float)
    except (TypeError, ValueError):
        out = np.asarray(np.vectorize(lambda v: float(func(float(v))))(arr), dtype=float)
    if not np.all(np.isfinite(out)) or np.any(out < -1e-12) or np.any(out > 1 + 1e-12):
        raise BufferLabError(f"marking function {name!r} must return probabilities in [0, 1]")
    return np.clip(out, 0.0, 1.0)


def red_marking(q_min: float, q_max: float, p_max: float, name: str = "red") -> MarkingFunction:
    """RED-type base function of Fig. 1(a) / Table I (Eun & Wang 2008, eq. 2-3).

    p(x) = 0 for x < q_min, p_max (x - q_min)/(q_max - q_min) for q_min <= x < q_max, 1 for x >= q_max
    (the jump to 1 above q_max keeps p(infinity) = 1, as eq. (3) requires).
    """
    if not (q_min >= 0 and q_max > q_min):
        raise BufferLabError(f"RED thresholds need 0 <= q_min < q_max, got q_min={q_min}, q_max={q_max}")
    check_real("p_max", p_max, 0.0, 1.0, low_open=True)

    def func(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        ramp = p_max * (x - q_min) / (q_max - q_min)
        return np.where(x < q_min, 0.0, np.where(x < q_max, ramp, 1.0))

    return MarkingFunction(name, func, float(q_max), f"RED(q_min={q_min}, q_max={q_max}, p_max={p_max})")


def exp_marking(p_max: float = 0.2, x_ref: float = 10.0, name: str = "exp") -> MarkingFunction:
    """Exponential (REM-type) base function of Fig. 1(b) / Table I (Eun & Wang 2008, eq. 2-3).

    p(x) = 1 - exp(-x / gamma) with gamma = -x_ref / ln(1 - p_max), so p(x_ref) = p_max; Table I uses
    x_ref = 10 (RED1's q_max) and p_max = 0.2, giving gamma = 44.81.
    """
    check_real("p_max", p_max, 0.0, 1.0, low_open=True, high_open=True, note="for EXP")
    check_real("x_ref", x_ref, 0.0, low_open=True)
    gamma = -x_ref / math.log1p(-p_max)

    def func(x: np.ndarray) -> np.ndarray:
        return -np.expm1(-np.asarray(x, dtype=float) / gamma)

    return MarkingFunction(name, func, None, f"EXP(gamma={gamma:.4g})")


#: Table I of the paper.
RED1 = red_marking(2.0, 10.0, 0.2, name="red1")
RED2 = red_marking(4.0, 11.0, 0.05, name="red2")
EXP = exp_marking(0.2, 10.0, name="exp")
MARKINGS: Dict[str, MarkingFunction] = {"red1": RED1, "red2": RED2, "exp": EXP}

MarkingLike = Union[str, MarkingFunction, Callable[..., Any]]


def get_marking(marking: MarkingLike) -> MarkingFunction:
    """Resolve 'red1' | 'red2' | 'exp' (Table I) or wrap any callable p(x) (Eun & Wang 2008, eq. 2-3)."""
    if isinstance(marking, MarkingFunction):
        return marking
    if isinstance(marking, str):
        key = marking.lower()
        if key not in MARKINGS:
            raise BufferLabError(
                f"marking must be one of {sorted(MARKINGS)} or a callable p(x), got {marking!r}"
            )
        return MARKINGS[key]
    if callable(marking):
        mf = MarkingFunction(getattr(marking, "__name__", "custom"), marking)
        mf(np.array([0.0, 1.0, 10.0]))  # validate once
        return mf
    raise BufferLabError(f"marking must be one of {sorted(MARKINGS)} or a callable p(x), got {marking!r}")


def scaled_marking(marking: MarkingLike, flows: float, alpha: float) -> Callable[[Any], np.ndarray]:
    """p^N(q) = p(q / N^alpha), the aggressive marking scale (Eun & Wang 2008, eq. 2)."""
    mf = get_marking(marking)
    _check_alpha(alpha)
    scale = float(flows) ** alpha
    return lambda q: mf(np.asarray(q, dtype=float) / scale)


def buffer_size(flows: float, alpha: float, epsilon: float = 0.1, constant: float = 12.0) -> int:
    """Buffer B(N) = ceil(12 N^(alpha+epsilon)) packets (Eun & Wang 2008, Table I; Theorem 2, eq. 23).

    The paper prints 12 N^(alpha+epsilon) without a rounding; rounding up keeps B >= the rule and agrees
    with :func:`bufferlab.models.sizing.eun_wang_rule`.
    """
    _check_flows(flows)
    _check_alpha(alpha)
    check_real("epsilon", epsilon, 0.0)
    check_real("buffer constant", constant, 0.0, low_open=True)
    return max(1, int(math.ceil(constant * float(flows) ** (alpha + epsilon) - 1e-9)))


# ---------------------------------------------------------------------------------------------------
# Stationary queue-length distributions (Sec. III-B, footnote 5, eq. 16)
# ---------------------------------------------------------------------------------------------------


def _check_rho(rho: float, allow_ge1: bool = False) -> None:
    check_real("load rho", rho, 0.0, None if allow_ge1 else 1.0, high_open=True)


def mm1_pmf(rho: float, length: int) -> np.ndarray:
    """M/M/1 stationary number in system, P{Q = n} = (1 - rho) rho^n, n < length (Eun & Wang 2008, eq. 16)."""
    _check_rho(rho)
    n = np.arange(int(length), dtype=float)
    if rho == 0:
        return (n == 0).astype(float)
    return (1.0 - rho) * np.exp(n * math.log(rho))


def md1_pmf(rho: float, length: int) -> np.ndarray:
    """M/D/1 stationary number in system for n < length (Eun & Wang 2008, Sec. III-B: M/D/1 option).

    Numerical inversion (Abate-Whitt, FFT on a circle of radius r < 1) of the Pollaczek-Khinchine
    transform P(z) = (1 - rho)(1 - z) / (1 - z exp(rho (1 - z))).  Aliasing error is below 1e-11.
    """
    _check_rho(rho)
    length = int(length)
    if rho == 0:
        return (np.arange(length) == 0).astype(float)
    m = 1 << max(4, int(math.ceil(math.log2(2 * length))))
    r = 10.0 ** (-11.0 / m)
    z = r * np.exp(2j * np.pi * np.arange(m) / m)
    one_minus_z = 1.0 - z
    den = one_minus_z - z * np.expm1(rho * one_minus_z)
    gen = (1.0 - rho) * one_minus_z / den
    coef = np.fft.fft(gen).real / m
    pmf = coef[:length] * np.exp(-np.arange(length) * math.log(r))
    return np.clip(pmf, 0.0, 1.0)


def md1_pmf_recursive(rho: float, length: int) -> np.ndarray:
    """M/D/1 number in system by the level-crossing recursion of the embedded departure chain.

    pi_{n+1} a_0 = pi_0 Abar_n + sum_{j=1}^n pi_j Abar_{n+1-j}, a_k Poisson(rho), Abar_k = P{A > k};
    an independent O(length^2) check of :func:`md1_pmf` (Eun & Wang 2008, Sec. III-B).
    """
    _check_rho(rho)
    length = int(length)
    k = np.arange(length + 1)
    a = stats.poisson.pmf(k, rho)
    abar = stats.poisson.sf(k, rho)  # P{A > k}
    pi = np.zeros(length)
    pi[0] = 1.0 - rho
    for n in range(length - 1):
        s = pi[0] * abar[n]
        if n >= 1:
            s += float(np.dot(pi[1 : n + 1], abar[n:0:-1]))
        pi[n + 1] = s / a[0]
    return pi


def mm1k_pmf(rho: float, capacity: int) -> np.ndarray:
    """M/M/1/K stationary distribution on 0..K, (1 - rho) rho^n / (1 - rho^(K+1)) (Eun & Wang 2008, fn. 5):
    :func:`bufferlab.models.queueing.mm1k_distribution`, and all mass at 0 when rho = 0."""
    _check_rho(rho, allow_ge1=True)
    k = check_integer("queue capacity K", capacity, 1)
    if rho == 0:
        return (np.arange(k + 1) == 0).astype(float)
    return mm1k_distribution(rho, k)


def queue_pmf(rho: float, length: int, queue: str = "mm1", capacity: int | None = None) -> np.ndarray:
    """Stationary queue pmf for the chosen model (Eun & Wang 2008, Sec. III-B and footnote 5)."""
    if queue == "mm1":
        return mm1_pmf(rho, length)
    if queue == "md1":
        return md1_pmf(rho, length)
    if queue == "mm1k":
        if capacity is None:
            raise BufferLabError("queue 'mm1k' needs a capacity K (the buffer)")
        return mm1k_pmf(rho, capacity)
    raise BufferLabError(f"queue must be one of mm1, md1, mm1k, got {queue!r}")


def no_mark_probability(
    windows: Any,
    rho: float,
    marking: MarkingLike,
    flows: float,
    alpha: float,
    queue: str = "mm1",
    capacity: int | None = None,
    length: int | None = None,
) -> np.ndarray:
    """Per-flow no-mark probability E[(1 - p^N(Q))^w] (Eun & Wang 2008, eq. 4), 0 when rho >= 1 (fn. 4).

    Direct (unoptimised) evaluation used as the reference for the chain; ``length`` truncates the sum.
    """
    w = np.atleast_1d(np.asarray(windows, dtype=float))
    if rho >= 1:
        return np.zeros_like(w)
    pn = scaled_marking(marking, flows, alpha)
    if queue == "mm1k":
        pi = mm1k_pmf(rho, int(capacity or 0))
    else:
        if length is None:
            length = max(64, int(math.ceil(math.log(_TOL) / math.log(max(rho, 1e-300)))) + 1)
            length = min(length, _L_CAP)
        pi = queue_pmf(rho, length, queue)
    u = 1.0 - pn(np.arange(pi.size))
    return np.array([float(np.dot(pi, u**wi)) for wi in w])


# ---------------------------------------------------------------------------------------------------
# Parameters, results
# ---------------------------------------------------------------------------------------------------


def _check_alpha(alpha: float) -> None:
    check_real("alpha", alpha, 0.0, 0.5, low_open=True, high_open=True, span="the open interval (0, 1/2)",
               note="(Eun & Wang 2008)")


def _check_flows(flows: float) -> None:
    check_integer("flows N", flows, 1)


@dataclasses.dataclass
class EunWangParams:
    """Parameters of the RTT-level chain (Eun & Wang 2008, Sec. III, eq. 1-8; Table I for B(N)).

    ``ct`` is the per-flow bandwidth-delay product C*T in packets.  ``w_max`` defaults to
    max(ceil(8 CT), floor(CT) + 2) (the paper only requires w_max > CT + 1).  ``queue`` is 'mm1' (the
    paper's analysis), 'md1', 'mm1k' (K = B(N)) or 'fluid' (the CLT-only ablation of eq. 27: no sub-RTT
    Poisson arrivals, Q = (sum w - NCT)^+ and no forced marking when sum w >= NCT).
    """

    flows: int
    ct: float
    alpha: float = 0.2
    marking: MarkingLike = "red1"
    epsilon: float = 0.1
    buffer_constant: float = 12.0
    queue: str = "mm1"
    w_max: int | None = None
    halving: str = "floor"
    init: str = "spread"

    def validate(self) -> None:
        _check_flows(self.flows)
        check_real("per-flow bandwidth-delay product C*T (packets)", self.ct, 0.0, low_open=True)
        _check_alpha(self.alpha)
        check_real("epsilon", self.epsilon, 0.0, 10.0 - self.alpha, high_open=True)
        if self.queue not in QUEUE_MODELS:
            raise BufferLabError(f"queue must be one of {', '.join(QUEUE_MODELS)}, got {self.queue!r}")
        if self.halving not in ("floor", "ceil"):
            raise BufferLabError(f"halving must be 'floor' or 'ceil', got {self.halving!r}")
        if self.init not in ("spread", "pipe", "sawtooth"):
            raise BufferLabError(f"init must be 'spread', 'pipe' or 'sawtooth', got {self.init!r}")
        if self.w_max is not None:
            lowest = math.floor(self.ct + 1) + 1  # the smallest integer > CT + 1
            check_integer("w_max", self.w_max, lowest, MAX_WINDOW, note=f"(> CT + 1 = {self.ct + 1:g})")
        elif 8.0 * self.ct > MAX_WINDOW:
            raise LimitError(f"per-flow bandwidth-delay product C*T = {self.ct:g} packets: the default "
                             f"window cap max(8 CT, CT + 2) = {8.0 * self.ct:.6g} is above the chain's limit "
                             f"of {MAX_WINDOW:,} window states")
        get_marking(self.marking)

    @property
    def wmax(self) -> int:
        if self.w_max is not None:
            return int(self.w_max)
        return int(max(math.ceil(8 * self.ct), math.floor(self.ct) + 2, 2))

    @property
    def buffer(self) -> int:
        return buffer_size(self.flows, self.alpha, self.epsilon, self.buffer_constant)

    @property
    def small_buffer(self) -> int:
        """Buffer without the margin, B = 12 N^alpha (loss should NOT vanish, Sec. IV consequences)."""
        return buffer_size(self.flows, self.alpha, 0.0, self.buffer_constant)


@dataclasses.dataclass
class EunWangResult:
    """Time averages of one run of the chain after burn-in (Eun & Wang 2008, eq. 13, 20, 21, 14; Sec. V-C)."""

    params: EunWangParams
    seed: int | None
    rounds: int
    burn_in: int
    utilization: float  # E[min(sum W / NCT, 1)], eq. (13) with throughput capped at capacity
    rho_eq13: float  # E[sum W] / (NCT), eq. (13) literally
    mark_prob: float  # E[p^N(Q)], eq. (20)
    no_mark_flow: float  # flow-averaged E[(1 - p^N(Q))^W], eq. (10)
    p_overload: float  # P{sum W >= NCT}, eq. (21)
    std_ratio: float  # std(sum W) / sqrt(N), Assumption 2
    h: float  # Var(sum W) / sum Var(W_i), Sec. V-C
    mean_window: float
    mean_queue: float  # over rounds with rho < 1
    overflow: float  # P{Q >= B(N)} (M/M/1, M/D/1) or blocking pi_K (M/M/1/K), footnote 5
    overflow_small_buffer: float  # same for B = 12 N^alpha (no margin)
    queue_q95: float
    queue_q99: float
    queue_pmf: np.ndarray  # time-averaged P{Q = q}, q < len; remaining mass is beyond (or infinite)
    buffer: int
    small_buffer: int
    final_state: np.ndarray  # histogram: counts of flows with window 1..w_max
    trace_rho: np.ndarray  # sum W / NCT per round after burn-in
    elapsed_s: float

    def summary(self) -> Dict[str, Any]:
        """Scalar outputs as a dict (Eun & Wang 2008, eq. 13, 20, 21, Assumption 2, Sec. V-C, Table I)."""
        p = self.params
        return {
            "flows": int(p.flows),
            "ct": float(p.ct),
            "alpha": float(p.alpha),
            "epsilon": float(p.epsilon),
            "marking": get_marking(p.marking).name,
            "queue": p.queue,
            "w_max": p.wmax,
            "seed": self.seed,
            "rounds": self.rounds,
            "burn_in": self.burn_in,
            "utilization": self.utilization,
            "rho_eq13": self.rho_eq13,
            "one_minus_rho": 1.0 - self.utilization,
            "mark_prob": self.mark_prob,
            "no_mark_flow": self.no_mark_flow,
            "p_overload": self.p_overload,
            "std_ratio": self.std_ratio,
            "h": self.h,
            "mean_window": self.mean_window,
            "mean_queue": self.mean_queue,
            "queue_q95": self.queue_q95,
            "queue_q99": self.queue_q99,
            "q99_over_buffer": self.queue_q99 / self.buffer,
            "buffer": self.buffer,
            "overflow": self.overflow,
            "small_buffer": self.small_buffer,
            "overflow_small_buffer": self.overflow_small_buffer,
            "elapsed_s": self.elapsed_s,
        }


# ---------------------------------------------------------------------------------------------------
# The chain
# ---------------------------------------------------------------------------------------------------


class _Chain:
    """Per-RTT transition probabilities of the chain (Eun & Wang 2008, eq. 1, 4, 7, 8; footnote 4)."""

    def __init__(self, params: EunWangParams):
        params.validate()
        self.p = params
        self.n = int(params.flows)
        self.nct = self.n * float(params.ct)
        self.wmax = params.wmax
        self.scale = float(self.n) ** params.alpha
        self.mf = get_marking(params.marking)
        self.B = params.buffer
        self.Bs = params.small_buffer
        w = np.arange(1, self.wmax + 1)
        self.up = np.minimum(w + 1, self.wmax) - 1  # target index (window - 1)
        half = w // 2 if params.halving == "floor" else -(-w // 2)
        self.down = np.maximum(half, 1) - 1
        if params.queue == "mm1k":
            lmax = self.B + 1
        else:
            lmax = self._find_lmax()
        self.lmax = lmax
        q = np.arange(lmax, dtype=float)
        self.pq = self.mf(q / self.scale)
        self.u = 1.0 - self.pq
        with np.errstate(divide="ignore"):
            self.logu = np.log(self.u)
        self.qidx = q
        self.u_tail = float(1.0 - self.mf(np.array([lmax / self.scale]))[0])
        self.report_len = max(4 * self.B, 64)

    def _find_lmax(self) -> int:
        """Smallest L with 1 - p^N(L) <= tol (then all later terms vanish for w >= 1), capped."""
        if self.mf.x_one is not None:
            return int(max(self.B + 1, min(_L_CAP, math.ceil(self.mf.x_one * self.scale) + 1)))
        grid = np.unique(np.geomspace(16, _L_CAP, 400).astype(int))
        u = 1.0 - self.mf(grid / self.scale)
        hit = np.flatnonzero(u <= _TOL)
        top = int(grid[hit[0]]) if hit.size else _L_CAP
        return int(max(self.B + 1, top))

    def _length(self, rho: float) -> int:
        if self.p.queue == "mm1k":
            return self.lmax
        if rho <= 0:
            return min(self.lmax, self.report_len)
        lr = math.log(rho)
        crit = self.qidx * lr + self.logu  # log of rho^q (1 - p(q)): bound on every term for w >= 1
        below = np.flatnonzero(crit < math.log(_TOL))
        # the crit sequence is non-increasing, so the first index below tol is the cut
        length = int(below[0]) + 1 if below.size else self.lmax
        return max(length, min(self.lmax, self.B + 2))

    def step_probs(self, s: float, lo: int, hi: int) -> Dict[str, Any]:
        """No-mark probabilities a[w] for windows lo..hi given sum(w) = s, plus queue statistics."""
        p = self.p
        rho = s / self.nct
        out: Dict[str, Any] = {"rho": rho}
        nw = hi - lo + 1
        if p.queue == "fluid":
            qf = max(s - self.nct, 0.0)
            pm = float(self.mf(np.array([qf / self.scale]))[0])
            out.update(
                a=(1.0 - pm) ** np.arange(lo, hi + 1, dtype=float),
                mark=pm,
                overflow=float(qf >= self.B),
                overflow_small=float(qf >= self.Bs),
                mean_queue=qf,
                pi=None,
                overloaded=False,
                fluid_q=qf,
            )
            return out
        if rho >= 1:
            out.update(a=np.zeros(nw), mark=1.0, overflow=1.0, overflow_small=1.0, mean_queue=math.inf,
                       pi=None, overloaded=True)
            return out
        length = self._length(rho)
        if p.queue == "mm1k":
            pi = mm1k_pmf(rho, self.B)
            tail = 0.0
        else:
            pi = mm1_pmf(rho, length) if p.queue == "mm1" else md1_pmf(rho, length)
            tail = float(max(0.0, 1.0 - pi.sum()))
        u = self.u[: pi.size]
        # a[w] = sum_q pi_q u_q^w, plus the truncated tail bounded by tail * u(L)^w (p is non-decreasing)
        ws = np.arange(lo, hi + 1, dtype=float)
        a = tail * self.u_tail**ws
        chunk = max(1, 1_000_000 // pi.size)
        for start in range(0, nw, chunk):
            a[start : start + chunk] += np.power(u[None, :], ws[start : start + chunk, None]) @ pi
        mark = float(np.dot(pi, self.pq[: pi.size]) + tail)
        if p.queue == "mm1k":
            overflow = float(pi[-1])
            overflow_small = float(pi[self.Bs:].sum())
            mean_q = float(np.dot(pi, np.arange(pi.size)))
        else:
            overflow = float(pi[self.B:].sum() + tail) if p.queue == "md1" else rho**self.B
            overflow_small = float(pi[self.Bs:].sum() + tail) if p.queue == "md1" else rho**self.Bs
            mean_q = rho / (1 - rho) if p.queue == "mm1" else rho + rho * rho / (2 * (1 - rho))
        out.update(a=np.clip(a, 0.0, 1.0), mark=mark, overflow=overflow, overflow_small=overflow_small,
                   mean_queue=mean_q, pi=pi, overloaded=False)
        return out

    def initial_counts(self) -> np.ndarray:
        """Initial histogram: 'pipe' = all flows at round(CT); 'spread' = evenly over 1..max(floor(CT), 1);
        'sawtooth' = evenly over [0.45 CT, 0.9 CT], close to the desynchronised AIMD sawtooth."""
        counts = np.zeros(self.wmax, dtype=np.int64)
        if self.p.init == "pipe":
            w0 = int(min(max(round(self.p.ct), 1), self.wmax))
            counts[w0 - 1] = self.n
            return counts
        if self.p.init == "spread":
            bottom, top = 1, int(min(max(math.floor(self.p.ct), 1), self.wmax))
        else:
            top = int(min(max(math.floor(0.9 * self.p.ct), 1), self.wmax))
            bottom = int(min(max(math.ceil(0.45 * self.p.ct), 1), top))
        width = top - bottom + 1
        base, rem = divmod(self.n, width)
        counts[bottom - 1 : top] = base
        counts[bottom - 1 : bottom - 1 + rem] += 1
        return counts


def _quantile_from_pmf(pmf: np.ndarray, q: float) -> float:
    c = np.cumsum(pmf)
    idx = np.flatnonzero(c >= q - 1e-12)
    return float(idx[0]) if idx.size else math.inf


def _run(
    params: EunWangParams,
    rounds: int,
    burn_in: int | None,
    seed: int | None,
    mode: str,
) -> EunWangResult:
    rounds = check_integer("rounds", rounds, 2, MAX_ROUNDS)
    burn_in = rounds // 4 if burn_in is None else check_integer("burn_in", burn_in, 0, rounds - 1)
    t0 = time.perf_counter()
    chain = _Chain(params)
    rng = np.random.default_rng(seed)
    n = chain.n
    wvals = np.arange(1, chain.wmax + 1, dtype=float)
    if mode == "per_flow":
        if n > 10**6:
            raise BufferLabError(f"the per-flow reference simulation is limited to N <= 10^6, got {n}")
        windows = np.repeat(wvals.astype(np.int64), chain.initial_counts())
        counts = None
    else:
        counts = chain.initial_counts()
        if mode == "mean_field":
            counts = counts.astype(float)
        windows = None
    keep = rounds - burn_in
    s_tr = np.empty(keep)
    m2_tr = np.empty(keep)
    mark_tr = np.empty(keep)
    nomark_tr = np.empty(keep)
    over_tr = np.empty(keep)
    overs_tr = np.empty(keep)
    meanq_tr = np.empty(keep)
    qacc = np.zeros(chain.report_len)
    for k in range(rounds):
        if windows is not None:
            occ_counts = np.bincount(windows - 1, minlength=chain.wmax)
        else:
            occ_counts = counts
        occ = np.flatnonzero(occ_counts)
        lo, hi = int(occ[0]) + 1, int(occ[-1]) + 1
        s = float(np.dot(occ_counts[lo - 1 : hi], wvals[lo - 1 : hi]))
        info = chain.step_probs(s, lo, hi)
        a = info["a"]
        if k >= burn_in:
            j = k - burn_in
            s_tr[j] = s
            m2_tr[j] = float(np.dot(occ_counts[lo - 1 : hi], wvals[lo - 1 : hi] ** 2)) / n
            mark_tr[j] = info["mark"]
            nomark_tr[j] = float(np.dot(occ_counts[lo - 1 : hi], a)) / n
            over_tr[j] = info["overflow"]
            overs_tr[j] = info["overflow_small"]
            meanq_tr[j] = info["mean_queue"]
            pi = info["pi"]
            if pi is not None:
                m = min(pi.size, chain.report_len)
                qacc[:m] += pi[:m]
            elif info.get("fluid_q") is not None and info["fluid_q"] < chain.report_len:
                qacc[int(info["fluid_q"])] += 1.0
        if windows is not None:
            probs = a[windows - lo]
            ok = rng.random(n) < probs
            windows = np.where(ok, chain.up[windows - 1], chain.down[windows - 1]) + 1
        else:
            idx = occ
            c = counts[idx]
            pa = a[idx - (lo - 1)]
            k_up = c * pa if mode == "mean_field" else rng.binomial(c, pa)
            new = np.zeros_like(counts)
            np.add.at(new, chain.up[idx], k_up)
            np.add.at(new, chain.down[idx], c - k_up)
            counts = new
    rho_tr = s_tr / chain.nct
    var_s = float(np.var(s_tr))
    var_w1 = float(np.mean(m2_tr) - np.mean(s_tr / n) ** 2)
    qpmf = qacc / keep
    finite = np.isfinite(meanq_tr)
    final = counts if counts is not None else np.bincount(windows - 1, minlength=chain.wmax)
    return EunWangResult(
        params=params,
        seed=seed,
        rounds=rounds,
        burn_in=burn_in,
        utilization=float(np.mean(np.minimum(rho_tr, 1.0))),
        rho_eq13=float(np.mean(rho_tr)),
        mark_prob=float(np.mean(mark_tr)),
        no_mark_flow=float(np.mean(nomark_tr)),
        p_overload=float(np.mean(rho_tr >= 1.0)),
        std_ratio=math.sqrt(var_s / n),
        h=var_s / (n * var_w1) if var_w1 > 0 else math.nan,
        mean_window=float(np.mean(s_tr) / n),
        mean_queue=float(np.mean(meanq_tr[finite])) if finite.any() else math.inf,
        overflow=float(np.mean(over_tr)),
        overflow_small_buffer=float(np.mean(overs_tr)),
        queue_q95=_quantile_from_pmf(qpmf, 0.95),
        queue_q99=_quantile_from_pmf(qpmf, 0.99),
        queue_pmf=qpmf,
        buffer=chain.B,
        small_buffer=chain.Bs,
        final_state=np.asarray(final),
        trace_rho=rho_tr,
        elapsed_s=time.perf_counter() - t0,
    )


def simulate(
    params: EunWangParams,
    rounds: int = 4000,
    burn_in: int | None = None,
    seed: int | None = 0,
) -> EunWangResult:
    """Run the chain on the window histogram (Eun & Wang 2008, eq. 1-8; outputs eq. 13, 20, 21, Sec. V-C).

    Each RTT: load rho = sum(w)/(NCT) (eq. 1); no-mark probability a(w) = E[(1 - p^N(Q))^w] over the
    stationary queue (eq. 4), 0 if rho >= 1 (footnote 4); the number of flows with window w that are not
    marked is Binomial(n_w, a(w)) (Assumption 1 and eq. 7-8, by exchangeability).  Cost per RTT is
    independent of N.
    """
    return _run(params, rounds, burn_in, seed, "histogram")


def simulate_per_flow(
    params: EunWangParams,
    rounds: int = 2000,
    burn_in: int | None = None,
    seed: int | None = 0,
) -> EunWangResult:
    """Reference per-flow simulation of eq. (7)-(8) (Eun & Wang 2008): one Bernoulli draw per flow per RTT.

    Same law as :func:`simulate`; O(N) per RTT, for validating the histogram chain at small N.
    """
    return _run(params, rounds, burn_in, seed, "per_flow")


def mean_field(params: EunWangParams, rounds: int = 3000, burn_in: int | None = None) -> EunWangResult:
    """Deterministic N -> infinity limit of the window histogram (Eun & Wang 2008, eq. 7-8 in expectation).

    The fraction of flows at each window evolves by its expected transition, with the marking scale N^alpha
    and B(N) of the given N.  If this map does not settle to a fixed point, the stochastic chain at large N
    oscillates with amplitude Theta(N): the flows synchronise and std(sum W)/sqrt(N) grows like sqrt(N).
    ``trace_rho`` holds the deterministic load sequence; ``std_ratio`` is meaningless here (use
    ``oscillation``).
    """
    return _run(params, rounds, burn_in, None, "mean_field")


def oscillation(result: EunWangResult) -> float:
    """Standard deviation of sum(W)/(NCT) over the recorded rounds (0 at a stable fixed point).

    Applied to :func:`mean_field`, a positive value means the N -> infinity chain of Eun & Wang 2008
    (eq. 7-8) does not settle, i.e. Assumption 2 (eq. 15) fails for large N.
    """
    return float(np.std(result.trace_rho))


# ---------------------------------------------------------------------------------------------------
# Seeds, sweeps, fits
# ---------------------------------------------------------------------------------------------------

_METRICS = (
    "utilization", "rho_eq13", "mark_prob", "no_mark_flow", "p_overload", "std_ratio", "h", "mean_window",
    "mean_queue", "overflow", "overflow_small_buffer", "queue_q99",
)


def run_seeds(
    params: EunWangParams,
    seeds: Union[int, Sequence[int]] = 5,
    rounds: int = 4000,
    burn_in: int | None = None,
    confidence: float = 0.95,
) -> Dict[str, Any]:
    """Independent replications with Student-t confidence intervals (Eun & Wang 2008, eq. 13, 20, 21).

    Returns ``{"runs": [...], "metrics": {name: {"mean", "std", "ci_low", "ci_high", "half_width"}}}``.
    """
    seed_list = list(range(seeds)) if isinstance(seeds, (int, np.integer)) else [int(s) for s in seeds]
    if len(seed_list) < 1:
        raise BufferLabError(f"seeds must be >= 1, got {seeds}")
    check_real("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    runs = [simulate(params, rounds, burn_in, s) for s in seed_list]
    metrics: Dict[str, Dict[str, float]] = {}
    for name in _METRICS:
        vals = np.array([getattr(r, name) for r in runs], dtype=float)
        mean = float(np.mean(vals))
        if len(vals) > 1 and np.all(np.isfinite(vals)):
            sd, hw = float(np.std(vals, ddof=1)), mean_interval(vals, confidence).half
        else:
            sd, hw = math.nan, math.nan
        metrics[name] = {"mean": mean, "std": sd, "ci_low": mean - hw, "ci_high": mean + hw, "half_width": hw}
    return {"runs": runs, "metrics": metrics, "seeds": seed_list, "confidence": confidence}


def sweep(
    flows_values: Sequence[int],
    ct: float,
    alpha: float = 0.2,
    marking: MarkingLike = "red1",
    seeds: Union[int, Sequence[int]] = 1,
    rounds: int = 4000,
    burn_in: int | None = None,
    **kwargs: Any,
) -> List[Dict[str, Any]]:
    """rho(N) and the other outputs over a range of N (Eun & Wang 2008, Theorem 1, Remark 3, Lemma 1).

    Each row is the summary of the first seed plus ``<metric>_mean`` / ``<metric>_ci`` over all seeds.
    """
    rows = []
    for n in flows_values:
        params = EunWangParams(flows=int(n), ct=ct, alpha=alpha, marking=marking, **kwargs)
        rs = run_seeds(params, seeds, rounds, burn_in)
        row = rs["runs"][0].summary()
        for name, m in rs["metrics"].items():
            row[f"{name}_mean"] = m["mean"]
            row[f"{name}_ci"] = m["half_width"]
        row["synchronised"] = bool(row["std_ratio_mean"] > 3.0 * _independent_std_ratio(rs["runs"][0]))
        rows.append(row)
    return rows


def _independent_std_ratio(result: EunWangResult) -> float:
    """std(W_1) from the run: what std(sum W)/sqrt(N) would be with independent windows (h = 1)."""
    h = result.h
    if not (h > 0 and math.isfinite(h)):
        return math.inf
    return result.std_ratio / math.sqrt(h)


def fit_log_slope(flows_values: Sequence[float], utilization: Sequence[float]) -> Dict[str, float]:
    """Least-squares slope of log(1 - rho) against log N (Eun & Wang 2008, Remark 3: slope ~ -alpha).

    Also returns kappa = exp(intercept), i.e. 1 - rho(N) ~ kappa N^slope.
    """
    x = np.log(np.asarray(flows_values, dtype=float))
    one_minus = 1.0 - np.asarray(utilization, dtype=float)
    if x.size < 2 or np.any(one_minus <= 0):
        raise BufferLabError("fit needs >= 2 values of N with utilization < 1")
    y = np.log(one_minus)
    res = stats.linregress(x, y)
    return {
        "slope": float(res.slope),
        "intercept": float(res.intercept),
        "kappa": float(math.exp(res.intercept)),
        "stderr": float(res.stderr),
        "r2": float(res.rvalue**2),
    }


# ---------------------------------------------------------------------------------------------------
# CLT-only ablation (Sec. VI-A, eq. 27)
# ---------------------------------------------------------------------------------------------------


def clt_marking_probability(
    flows: float,
    alpha: float,
    marking: MarkingLike = "red1",
    sigma_per_flow: float = 3.5,
    offset: float = 0.0,
) -> float:
    """Marking probability of the CLT-only model, eq. (27) of Eun & Wang 2008 (Sec. VI-A, Fig. 9).

    Without sub-RTT Poisson arrivals the queue is the fluid backlog (sum W - NCT)^+, and sum W is Gaussian
    with mean NCT + offset*N^alpha and standard deviation sigma_per_flow*sqrt(N).  Returns
    E[p((sum W - NCT)^+ / N^alpha) ; sum W inside the marking region], i.e. the integral of eq. (27) over
    the region where 0 < p < 1 (RED types: N^alpha [q_min, q_max]; for functions without a level where
    p = 1, over all x > 0).  It decays like N^(alpha - 1/2).
    """
    _check_flows(flows)
    _check_alpha(alpha)
    check_real("sigma_per_flow", sigma_per_flow, 0.0, low_open=True)
    mf = get_marking(marking)
    na = float(flows) ** alpha
    sd = sigma_per_flow * math.sqrt(float(flows)) / na  # std of (sum W - NCT)/N^alpha
    x_hi = mf.x_one if mf.x_one is not None else offset + 40.0 * sd + 1e3
    x = np.linspace(0.0, x_hi, 20001)
    dens = stats.norm.pdf(x, loc=offset, scale=sd)
    vals = mf(x) * dens
    if mf.x_one is not None:
        vals[-1] = 0.0  # p = 1 beyond the region (not part of the integral over I)
    return float(integrate.trapezoid(vals, x))


def clt_marking_bound(flows: float, alpha: float, width: float = 8.0, sigma_per_flow: float = 3.5) -> float:
    """Upper bound of eq. (27): |I| / (sqrt(2 pi) std) = width N^alpha / (sqrt(2 pi) sigma sqrt(N))."""
    _check_flows(flows)
    _check_alpha(alpha)
    return width * float(flows) ** alpha / (math.sqrt(2 * math.pi) * sigma_per_flow * math.sqrt(float(flows)))


# ---------------------------------------------------------------------------------------------------
# Advisor hook
# ---------------------------------------------------------------------------------------------------


def predict_for_advisor(
    flows: int,
    capacity_pkts_per_s: float,
    rtt_s: float,
    packet_size_bytes: int,
    alpha: float = 0.2,
    epsilon: float = 0.1,
    marking: MarkingLike = "red1",
    time_budget_s: float = 0.8,
    seed: int = 0,
) -> Dict[str, Any]:
    """Eun-Wang buffer, the model's utilisation and loss, for the advisor (Eun & Wang 2008, Table I, Thm 1-2).

    ``capacity_pkts_per_s`` is the link capacity N*C.  The buffer is the paper's simulation rule
    B(N) = ceil(12 N^(alpha+epsilon)) packets with alpha = 0.2, epsilon = 0.1 (Table I, Sec. V), RED1
    marking with thresholds scaled by N^alpha.  ``utilization`` is rho(N) of the M/M/1 chain (eq. 13) and
    ``loss`` the time-averaged overflow probability P{Q >= B(N)} of that buffer (footnote 5: an upper bound
    on the finite-buffer loss).  The chain runs on the window histogram within ``time_budget_s``.
    The AIMD cycle lasts about CT/2 rounds, so for per-flow bandwidth-delay products beyond roughly 100
    packets the budget does not cover enough cycles: ``converged`` is then False and ``warning`` says so.
    """
    _check_flows(flows)
    check_real("capacity_pkts_per_s", capacity_pkts_per_s, 0.0, low_open=True)
    check_real("rtt_s", rtt_s, 0.0, low_open=True)
    check_integer("packet_size_bytes", packet_size_bytes, 1)
    ct = capacity_pkts_per_s * rtt_s / flows
    params = EunWangParams(flows=int(flows), ct=ct, alpha=alpha, epsilon=epsilon, marking=marking,
                           init="sawtooth")
    params.validate()
    t0 = time.perf_counter()
    # calibrate the per-round cost, then use the budget (at least 200 rounds, at most 40 CT + 600)
    probe = simulate(params, rounds=30, burn_in=0, seed=seed)
    per_round = max(probe.elapsed_s / 30, 1e-6)
    budget_rounds = int((time_budget_s - (time.perf_counter() - t0)) / per_round)
    rounds = int(max(200, min(budget_rounds, 40 * max(ct, 1.0) + 600)))
    res = simulate(params, rounds=rounds, burn_in=rounds // 3, seed=seed)
    # the AIMD cycle lasts about CT/2 rounds: ask for several cycles after burn-in
    mixing_ok = (rounds - rounds // 3) >= 4 * max(ct, 1.0) + 100
    return {
        "buffer_pkts": int(res.buffer),
        "buffer_bytes": int(res.buffer) * int(packet_size_bytes),
        "utilization": float(res.utilization),
        "loss": float(res.overflow),
        "rule": f"Eun-Wang 2008: B = 12*N^(alpha+epsilon), alpha={alpha}, epsilon={epsilon}",
        "marking": get_marking(marking).name,
        "marking_thresholds_pkts": _thresholds(marking, flows, alpha),
        "per_flow_bdp_pkts": ct,
        "mark_prob": float(res.mark_prob),
        "std_ratio": float(res.std_ratio),
        "h": float(res.h),
        "rounds": rounds,
        "converged": bool(mixing_ok),
        "model": "M/M/1 doubly-stochastic chain (eq. 1-8)",
        "warning": None if mixing_ok else (
            f"per-flow BDP {ct:.3g} pkts: {rounds} RTT rounds are too few for the chain to mix; "
            "utilization and loss are rough"
        ),
    }


def _thresholds(marking: MarkingLike, flows: float, alpha: float) -> List[float] | None:
    mf = get_marking(marking)
    if mf is RED1:
        return [2 * flows**alpha, 10 * flows**alpha]
    if mf is RED2:
        return [4 * flows**alpha, 11 * flows**alpha]
    return None


# ---------------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------------


def plot_sweep(rows: Sequence[Dict[str, Any]], directory: str, stem: str = "eun_wang") -> List[str]:
    """Plot rho(N), 1-rho(N) with the fitted slope, std(sum W)/sqrt(N) and P{sum W >= NCT} against N.

    Eun & Wang 2008, Theorem 1 / Remark 3 (rho -> 1, 1 - rho ~ N^-alpha), Assumption 2, Lemma 1 (eq. 21).
    Saves PNG and SVG; returns the paths.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ensure_directory(directory)
    ns = np.array([r["flows"] for r in rows], dtype=float)
    rho = np.array([r.get("utilization_mean", r["utilization"]) for r in rows])
    rci = np.array([r.get("utilization_ci", np.nan) for r in rows])
    sr = np.array([r.get("std_ratio_mean", r["std_ratio"]) for r in rows])
    sci = np.array([r.get("std_ratio_ci", np.nan) for r in rows])
    po = np.array([r.get("p_overload_mean", r["p_overload"]) for r in rows])
    title = (f"Eun-Wang chain: {rows[0]['marking'].upper()}, alpha={rows[0]['alpha']}, CT={rows[0]['ct']:g}, "
             f"{rows[0]['queue']}")
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5))
    ax = axes[0, 0]
    ax.errorbar(ns, rho, yerr=np.nan_to_num(rci), marker="o", capsize=3)
    ax.set_xscale("log")
    ax.set_xlabel("N (flows)")
    ax.set_ylabel("utilization rho(N)  (eq. 13)")
    ax.grid(True, which="both", alpha=0.3)
    ax = axes[0, 1]
    ax.loglog(ns, 1 - rho, "o", label="1 - rho(N)")
    ok = (1 - rho) > 0
    if ok.sum() >= 2:
        fit = fit_log_slope(ns[ok], rho[ok])
        ax.loglog(ns, fit["kappa"] * ns ** fit["slope"], "-", label=f"fit slope {fit['slope']:.3f}")
        ax.loglog(ns, (1 - rho[0]) * (ns / ns[0]) ** (-rows[0]["alpha"]), ":",
                  label=f"N^-alpha (slope {-rows[0]['alpha']})")
    ax.set_xlabel("N (flows)")
    ax.set_ylabel("1 - rho(N)")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    ax = axes[1, 0]
    ax.errorbar(ns, sr, yerr=np.nan_to_num(sci), marker="o", capsize=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (flows)")
    ax.set_ylabel("std(sum W) / sqrt(N)")
    ax.grid(True, which="both", alpha=0.3)
    ax = axes[1, 1]
    ax.semilogx(ns, po, "o-", label="P{sum W >= NCT} (eq. 21)")
    ax.semilogx(ns, [r.get("overflow_mean", r["overflow"]) for r in rows], "s-", label="P{Q >= 12 N^(a+e)}")
    ax.semilogx(ns, [r.get("mark_prob_mean", r["mark_prob"]) for r in rows], "^-", label="E[p^N(Q)] (eq. 20)")
    ax.set_xlabel("N (flows)")
    ax.set_ylabel("probability")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return save_figure(fig, directory, stem)
