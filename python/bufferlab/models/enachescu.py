"""Tiny-buffer theory of Enachescu, Ganjali, Goel, McKeown & Roughgarden, "Routers with very small buffers"
(ACM SIGCOMM CCR 35(3), July 2005). Section, theorem and figure numbers below are the paper's.

* Theorem 1 (Poisson sources, over-provisioned link, eq. (1)/(16)):
  ``B >= log_{1/rho}(W_max^2 / (2 (1 - theta)))`` packets give effective utilization ``theta``.
* Section IV-A: the TCP equation (2) ``rho = (N/(C tau)) sqrt(3/(2p))`` solved jointly with the M/M/1/B loss
  (3) ``p = rho^B (1-rho)/(1-rho^(B+1))``, in the under-provisioned (``C = N W_max/(2 tau)``, peak load 2) and
  over-provisioned (``C = 2 N W_max/tau``, peak load 1/2) regimes. Constant B drives the utilization to 0 as
  W_max grows (rho ~ W_max^(-2/(B+2))); ``B = beta ln W_max`` keeps it near ``exp(-2/beta)``.
* Appendix II / Theorem 2: a Monte Carlo of the slotted model (M = C*RTT slots per RTT, N flows sending W_max
  packets per RTT at least S slots apart, start times uniform over the M slots, drop-tail buffer B).

B (the paper's buffer) is the queue capacity including the packet in transmission: the paper's M/M/1/B is
M/M/1/K with K = B (see :mod:`bufferlab.models.queueing`; the engine's DropTail ``limit`` is B - 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

import numpy as np

from bufferlab.errors import BufferLabError, LimitError
from bufferlab.models._checks import (
    check_int,
    check_integer,
    check_open_interval,
    check_range,
    scalar_or_array,
)
from bufferlab.models.queueing import md1k_loss
from bufferlab.plots import ensure_directory, save_figure

__all__ = [
    "REGIME_PEAK_LOAD",
    "theorem1_buffer",
    "theorem1_effective_utilization",
    "fixed_point",
    "FixedPoint",
    "fixed_point_utilization",
    "log_buffer_limit",
    "constant_buffer_exponent",
    "slotted_loss",
    "SlottedLoss",
    "slotted_loss_sweep",
]

#: peak offered load N W_max / (C tau) of the two Section IV-A regimes
REGIME_PEAK_LOAD: Dict[str, float] = {"under": 2.0, "over": 0.5}


# --------------------------------------------------------------------------------------------------------
# Theorem 1


def theorem1_buffer(w_max: Any, rho: Any, theta: Any, integer: bool = True) -> Any:
    """Theorem 1, eq. (1): the smallest buffer with ``B >= log_{1/rho}(W_max^2 / (2(1-theta)))``.

    ``w_max >= 1`` packets, ``0 < rho < 1`` (peak load), ``0 <= theta < 1`` (effective utilization). With
    ``integer=True`` the bound is rounded up (and clipped at 0); the paper's example W_max = 64, rho = 0.5,
    theta = 0.9 gives 15 packets.
    """
    w = check_range("w_max", w_max, 1.0, None)
    r = check_open_interval("rho", rho, 0.0, 1.0)
    t = check_range("theta", theta, 0.0, 1.0, high_open=True)
    b = (2.0 * np.log(w) - np.log(2.0 * (1.0 - t))) / -np.log(r)
    if integer:
        # guard against 14.0000000001-style rounding noise before the ceiling
        b = np.maximum(np.ceil(b - 1e-9), 0.0).astype(np.int64)
        return int(b) if b.ndim == 0 else b
    return scalar_or_array(np.maximum(b, 0.0))


def theorem1_effective_utilization(buffer: Any, w_max: Any, rho: Any) -> Any:
    """Effective utilization guaranteed by Theorem 1 for a given buffer, eq. (15) solved for theta:
    ``theta = 1 - rho^B W_max^2 / 2`` (clipped at 0)."""
    b = check_range("buffer", buffer, 0.0, None)
    w = check_range("w_max", w_max, 1.0, None)
    r = check_open_interval("rho", rho, 0.0, 1.0)
    with np.errstate(under="ignore"):
        return scalar_or_array(np.maximum(1.0 - np.power(r, b) * w * w / 2.0, 0.0))


# --------------------------------------------------------------------------------------------------------
# Section IV-A fixed point


@dataclass(frozen=True)
class FixedPoint:
    """Solution of eqs. (2)+(3): utilization rho (capped at min(peak load, 1)), loss p, whether capped."""

    utilization: Any
    loss: Any
    capped: Any


def _peak(regime: Any, peak_load: Any) -> np.ndarray:
    if peak_load is not None:
        return check_range("peak_load", peak_load, 0.0, None, low_open=True)
    if regime not in REGIME_PEAK_LOAD:
        raise BufferLabError(f"regime must be one of {sorted(REGIME_PEAK_LOAD)}, got {regime!r}")
    return np.asarray(REGIME_PEAK_LOAD[regime])


def _log_mm1b_loss(u: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the M/M/1/B loss at rho = exp(u), u <= 0 (u = 0 is rho = 1, loss 1/(B+1))."""
    out = np.empty(np.broadcast(u, b).shape)
    u, b = np.broadcast_arrays(u, b)
    near = u > -1e-12
    uu, bb = u[~near], b[~near]
    out[~near] = bb * uu + np.log(-np.expm1(uu)) - np.log(-np.expm1((bb + 1.0) * uu))
    out[near] = -np.log(b[near] + 1.0)
    return out


def fixed_point(w_max: Any, buffer: Any, regime: str = "under", peak_load: Any = None) -> FixedPoint:
    """Fixed point of the TCP equation (2) and the M/M/1/B loss (3), Enachescu et al. 2005, Sec. IV-A.

    ``rho = (L / W_max) sqrt(3 / (2 p(rho)))`` with ``L = N W_max/(C tau)`` the peak offered load (2 for
    ``regime="under"``, 1/2 for ``"over"``, or any ``peak_load``), ``p`` the M/M/1/B loss at load rho.
    The right-hand side falls and the left-hand side rises in rho, so the root is unique; it is capped at
    ``min(L, 1)`` (throughput cannot exceed the offered peak or the link). Broadcasts over all arguments;
    ``buffer`` may be fractional (e.g. ``beta ln W_max``).
    """
    w = check_range("w_max", w_max, 1.0, None)
    b = check_range("buffer", buffer, 0.0, None)
    peak = _peak(regime, peak_load)
    w, b, peak = np.broadcast_arrays(w, b, peak)
    logk = np.log(peak / w) + 0.5 * math.log(1.5)
    cap = np.minimum(peak, 1.0)
    ucap = np.log(cap)

    def h(u: np.ndarray) -> np.ndarray:
        return u - logk + 0.5 * _log_mm1b_loss(u, b)

    capped = h(ucap) <= 0.0
    lo = np.full(w.shape, -745.0)
    hi = ucap.copy()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        pos = h(mid) > 0.0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
        if np.all(hi - lo < 1e-15):
            break
    u = np.where(capped, ucap, 0.5 * (lo + hi))
    util = np.exp(u)
    loss = np.exp(_log_mm1b_loss(u, b))
    return FixedPoint(utilization=scalar_or_array(util), loss=scalar_or_array(loss),
                      capped=capped if capped.ndim else bool(capped))


def fixed_point_utilization(w_max: Any, buffer: Any, regime: str = "under", peak_load: Any = None) -> Any:
    """Utilization of :func:`fixed_point` only."""
    return fixed_point(w_max, buffer, regime, peak_load).utilization


def log_buffer_limit(beta: Any) -> Any:
    """Limit of the Sec. IV-A utilization for ``B = beta ln W_max`` as W_max -> infinity: ``exp(-2/beta)``.

    From ``rho^(1 + B/2) ~ const / W_max`` at small loss; independent of the regime (peak load).
    """
    bt = check_range("beta", beta, 0.0, None, low_open=True)
    return scalar_or_array(np.exp(-2.0 / bt))


def constant_buffer_exponent(buffer: Any) -> Any:
    """For constant B the Sec. IV-A utilization decays as ``W_max^(-2/(B+2))``; returns ``2/(B+2)``."""
    b = check_range("buffer", buffer, 0.0, None)
    return scalar_or_array(2.0 / (b + 2.0))


# --------------------------------------------------------------------------------------------------------
# Appendix II slotted model, Monte Carlo


#: Limits of the slotted Monte Carlo: packets per RTT (N W_max, memory) and slot steps (a Python loop of
#: about 10 us a step, replications side by side in batches of about 2e6 / (N W_max): 3e6 steps is 30 s).
SLOTTED_MAX_PACKETS = 10_000_000
SLOTTED_MAX_STEPS = 3_000_000


@dataclass(frozen=True)
class SlottedLoss:
    """Per-packet loss of the App. II slotted model for each buffer in ``buffers``."""

    buffers: np.ndarray
    loss: np.ndarray
    loss_stderr: np.ndarray
    drops: np.ndarray
    packets: int
    flows: int
    w_max: int
    spacing: int
    slots_per_rtt: int
    load: float
    replications: int
    seed: int


def slotted_loss(
    flows: int,
    w_max: int,
    spacing: int,
    buffers: Any,
    load: float = 0.8,
    slots_per_rtt: int | None = None,
    replications: int = 200,
    seed: int = 0,
    starts: Any = None,
) -> SlottedLoss:
    """Monte Carlo of the Appendix II discrete-time model behind Theorem 2 (Enachescu et al. 2005).

    One RTT is ``M = slots_per_rtt`` slots (default ``round(flows * w_max / load)``, so the load
    ``rho = N W_max / M``); a slot is one packet time at the bottleneck. Flow i sends W_max packets per RTT at
    slots ``s_i + k*S (mod M)``, k = 0..W_max-1: consecutive packets exactly S slots apart, the burstiest
    pattern allowed by the spacing constraint (assumption 2; S = 1 is an unpaced burst). Start times s_i are
    independent and uniform on the M slots (assumption 3, random jitter), redrawn per replication. The
    drop-tail buffer holds B packets including the one sent in the slot: ``x = Q + a_t``; ``x - B`` packets
    are dropped if positive; ``Q <- max(min(x, B) - 1, 0)``. A packet is thus dropped exactly when an
    interval of l slots ending at its slot holds more than ``l + B - 1`` arrivals (the paper's
    "overpopulated" interval). The arrival pattern is M-periodic and the queue empties in every period, so
    one warm-up period gives the exact periodic steady state; loss is counted over the second period.
    All buffers share the same random arrivals (common random numbers). Seeded, deterministic. ``starts``
    (integer array, replications x flows) replaces the random start slots, for exact checks.
    """
    n = int(check_int("flows", flows, 1))
    w = int(check_int("w_max", w_max, 1))
    s = int(check_int("spacing", spacing, 1))
    bs = check_int("buffer", buffers, 1).reshape(-1)
    reps = int(check_int("replications", replications, 1))
    if slots_per_rtt is None:
        ld = float(check_open_interval("load", load, 0.0, 1.0))
        m = int(round(n * w / ld))
    else:
        m = int(check_int("slots_per_rtt", slots_per_rtt, 1))
    rho = n * w / m
    if rho >= 1.0:
        raise BufferLabError(f"load N*W_max/M must be in (0, 1), got {rho:g} (flows={n}, w_max={w}, M={m})")
    if s * (w - 1) >= m:
        raise BufferLabError(
            f"spacing must satisfy spacing*(w_max-1) < slots_per_rtt={m} so a flow's packets fit in one RTT, "
            f"got spacing={s}"
        )
    seed = check_integer("seed", seed, 0)
    given = None
    if starts is not None:
        given = check_int("starts", starts, 0, m - 1)
        if given.ndim != 2 or given.shape[1] != n:
            raise BufferLabError(f"starts must have shape (replications, flows={n}), got {given.shape}")
        reps = given.shape[0]
    chunk = max(1, min(reps, int(2_000_000 // max(1, n * w))))
    steps = -(-reps // chunk) * 2 * m
    if n * w > SLOTTED_MAX_PACKETS or steps > SLOTTED_MAX_STEPS:
        raise LimitError(f"flows, w_max and replications: the slotted model would send {n * w:,} packets "
                         f"per RTT over {m:,} slots, {steps:,} slot steps in all; the limits are "
                         f"{SLOTTED_MAX_PACKETS:,} packets per RTT and {SLOTTED_MAX_STEPS:,} slot steps")
    rng = np.random.default_rng(seed)
    offsets = np.arange(w) * s
    drops = np.zeros((bs.size, reps))
    bcol = bs[:, None].astype(np.int64)
    for c0 in range(0, reps, chunk):
        r = min(chunk, reps - c0)
        st = rng.integers(0, m, size=(r, n)) if given is None else given[c0 : c0 + r]
        slots = (st[:, :, None] + offsets[None, None, :]) % m
        flat = (slots + (np.arange(r) * m)[:, None, None]).ravel()
        arr = np.bincount(flat, minlength=r * m).reshape(r, m).T.copy()  # (m, r)
        q = np.zeros((bs.size, r), dtype=np.int64)
        for _period in range(2):
            d = np.zeros((bs.size, r), dtype=np.int64)
            for t in range(m):
                x = q + arr[t]
                over = x - bcol
                np.maximum(over, 0, out=over)
                d += over
                np.minimum(x, bcol, out=x)
                x -= 1
                np.maximum(x, 0, out=x)
                q = x
        drops[:, c0 : c0 + r] = d
    per_rep = drops / (n * w)
    return SlottedLoss(
        buffers=bs,
        loss=per_rep.mean(axis=1),
        loss_stderr=(per_rep.std(axis=1, ddof=1) / math.sqrt(reps)) if reps > 1 else np.full(bs.size, np.nan),
        drops=drops.sum(axis=1).astype(np.int64),
        packets=n * w * reps,
        flows=n,
        w_max=w,
        spacing=s,
        slots_per_rtt=m,
        load=rho,
        replications=reps,
        seed=int(seed),
    )


def slotted_loss_sweep(
    w_max_values: Sequence[int],
    spacing: Any,
    buffers: Any,
    flows: int = 16,
    load: float = 0.8,
    replications: int = 200,
    seed: int = 0,
) -> List[Dict[str, Any]]:
    """Sweep :func:`slotted_loss` over W_max. ``spacing`` and ``buffers`` are numbers or callables of W_max
    (e.g. ``lambda w: math.ceil(2*math.log(w))`` for the log scaling of Theorem 2). One row per (W_max, B)
    with ``loss``, ``loss_stderr``, ``loss_times_wmax2`` and the Poisson/M/D/1/B reference loss."""
    rows: List[Dict[str, Any]] = []
    for i, wv in enumerate(w_max_values):
        sv = spacing(wv) if callable(spacing) else spacing
        bv = buffers(wv) if callable(buffers) else buffers
        res = slotted_loss(flows, int(wv), int(sv), bv, load=load, replications=replications, seed=seed + i)
        ref = np.atleast_1d(md1k_loss(res.load, res.buffers))
        for j, b in enumerate(res.buffers):
            rows.append(
                {
                    "w_max": int(wv),
                    "spacing": int(sv),
                    "buffer": int(b),
                    "load": res.load,
                    "loss": float(res.loss[j]),
                    "loss_stderr": float(res.loss_stderr[j]),
                    "drops": int(res.drops[j]),
                    "packets": res.packets,
                    "loss_times_wmax2": float(res.loss[j]) * wv * wv,
                    "md1k_loss": float(ref[j]),
                }
            )
    return rows


def plot_tiny_buffers(directory: str, rho: float = 0.5, theta: float = 0.9) -> List[str]:
    """Figures: Theorem 1 buffer against W_max, and the Sec. IV-A fixed point for constant and log buffers.
    Saved as PNG and SVG in ``directory``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ensure_directory(directory)
    wm = np.unique(np.round(np.logspace(1, 5, 60)))
    paths: List[str] = []

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for r in sorted({0.5, 0.75, 0.9, float(rho)}):
        ax.semilogx(wm, theorem1_buffer(wm, r, theta), label=f"rho={r:g}")
    ax.set_xlabel("W_max (packets)")
    ax.set_ylabel("buffer B (packets)")
    ax.set_title(f"Theorem 1 buffer for effective utilization {theta:g}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    paths += save_figure(fig, directory, "tiny_buffers_theorem1")

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, regime in zip(axes, ("under", "over")):
        for bconst in (5, 10, 20):
            ax.semilogx(wm, fixed_point_utilization(wm, bconst, regime), label=f"B = {bconst}")
        for beta in (2.0, 4.0):
            ax.semilogx(wm, fixed_point_utilization(wm, beta * np.log(wm), regime), "--",
                        label=f"B = {beta:g} ln W_max")
        ax.set_title(f"{regime}-provisioned (peak load {REGIME_PEAK_LOAD[regime]:g})")
        ax.set_xlabel("W_max (packets)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("utilization (Sec. IV-A fixed point)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return paths + save_figure(fig, directory, "tiny_buffers_fixed_point")
