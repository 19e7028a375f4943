"""Enachescu et al. 2005 tiny-buffer models (bufferlab.models.enachescu)."""

from __future__ import annotations

import json
import math
from collections import deque

import numpy as np
import pytest
from scipy.optimize import brentq

from bufferlab.cli import main
from bufferlab.errors import BufferLabError
from bufferlab.models import enachescu as en

# --------------------------------------------------------------------------------------------- Theorem 1


def test_theorem1_paper_example():
    # Sec. "Theorem 1": W_max = 64, rho = 0.5, theta = 0.9 gives 15 packets; log2(20480) = 14.32
    assert en.theorem1_buffer(64, 0.5, 0.9) == 15
    assert en.theorem1_buffer(64, 0.5, 0.9, integer=False) == pytest.approx(math.log2(20480))


@pytest.mark.parametrize(
    "w,rho,theta,expected",
    # the note's [derived] table, each entry re-derived here from log(x)/log(1/rho)
    [
        (32, 0.5, 0.75, 11),
        (32, 0.5, 0.9, 13),
        (32, 0.75, 0.9, 30),
        (32, 0.8, 0.9, 39),
        (64, 0.75, 0.9, 35),
        (64, 0.8, 0.9, 45),
        (1000, 0.5, 0.75, 21),
        (1000, 0.8, 0.9, 70),
        (10000, 0.5, 0.9, 29),
        (10000, 0.75, 0.9, 70),
        (10000, 0.8, 0.9, 90),
    ],
)
def test_theorem1_table(w, rho, theta, expected):
    direct = math.ceil(math.log(w * w / (2 * (1 - theta))) / math.log(1 / rho) - 1e-9)
    assert direct == expected
    assert en.theorem1_buffer(w, rho, theta) == expected


def test_theorem1_vectorized_and_inverse():
    w = np.array([32, 64, 1000])
    b = en.theorem1_buffer(w[:, None], np.array([0.5, 0.8])[None, :], 0.9)
    assert b.shape == (3, 2)
    assert b[1, 0] == 15
    # eq. (15): theta guaranteed at the returned buffer is >= the target, and not at one packet less
    assert en.theorem1_effective_utilization(15, 64, 0.5) >= 0.9
    assert en.theorem1_effective_utilization(14, 64, 0.5) < 0.9
    # grows like 2 log_{1/rho} W_max
    b1, b2 = en.theorem1_buffer(1e3, 0.5, 0.9, False), en.theorem1_buffer(1e6, 0.5, 0.9, False)
    assert b2 - b1 == pytest.approx(2 * math.log2(1e3))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"w_max": 64, "rho": 1.0, "theta": 0.9}, r"rho must be in \(0, 1\)"),
        ({"w_max": 64, "rho": 0.5, "theta": 1.0}, r"theta must be in \[0, 1\)"),
        ({"w_max": 0.5, "rho": 0.5, "theta": 0.9}, "w_max must be in"),
    ],
)
def test_theorem1_bad_parameters(kwargs, match):
    with pytest.raises(BufferLabError, match=match):
        en.theorem1_buffer(**kwargs)


# -------------------------------------------------------------------------------- Sec. IV-A fixed point


def _brentq_fixed_point(w, b, peak):
    def p(r):
        return r**b * (1 - r) / (1 - r ** (b + 1))

    def g(r):
        return r - peak / w * math.sqrt(1.5 / p(r))

    cap = min(peak, 1.0 - 1e-12)
    if g(cap) <= 0:
        return cap
    return brentq(g, 1e-9, cap, xtol=1e-14)


@pytest.mark.parametrize("regime,peak", [("under", 2.0), ("over", 0.5)])
@pytest.mark.parametrize("w", [32, 100, 1000, 10000])
@pytest.mark.parametrize("b", [5, 10, 20])
def test_fixed_point_against_brentq(regime, peak, w, b):
    fp = en.fixed_point(w, b, regime)
    ref = _brentq_fixed_point(w, b, peak)
    assert fp.utilization == pytest.approx(ref, rel=1e-7)
    if not fp.capped:
        # the solution satisfies eq. (2) with the M/M/1/B loss of eq. (3)
        assert fp.utilization == pytest.approx(peak / w * math.sqrt(1.5 / fp.loss), rel=1e-9)


def test_fixed_point_table_values():
    # values confirmed by the brentq solve above; the note's [derived] table rounds two of them differently
    W = np.array([32, 100, 1000, 10000])[:, None]
    B = np.array([5, 10, 20])[None, :]
    under = np.array(
        [[0.533, 0.724, 0.865], [0.370, 0.579, 0.762], [0.185, 0.382, 0.604], [0.094, 0.256, 0.484]]
    )
    over = np.array([[0.343, 0.5, 0.5], [0.243, 0.450, 0.5], [0.123, 0.300, 0.5], [0.063, 0.202, 0.425]])
    assert en.fixed_point_utilization(W, B, "under") == pytest.approx(under, abs=6e-4)
    assert en.fixed_point_utilization(W, B, "over") == pytest.approx(over, abs=6e-4)


def test_constant_buffer_drives_utilization_to_zero():
    w = np.logspace(2, 30, 15)
    for b in (5, 10):
        for regime in ("under", "over"):
            u = en.fixed_point_utilization(w, b, regime)
            assert np.all(np.diff(u) < 0)
            assert u[-1] < 1e-4
            # asymptotic decay W^(-2/(B+2))
            slope = np.polyfit(np.log(w[-5:]), np.log(u[-5:]), 1)[0]
            assert slope == pytest.approx(-en.constant_buffer_exponent(b), rel=0.02)


def test_log_buffer_keeps_utilization_away_from_zero():
    beta = 5 / math.log(10)  # B = 5 log10 W_max, the note's example: limit about 0.40
    assert en.log_buffer_limit(beta) == pytest.approx(math.exp(-2 / beta))
    assert en.log_buffer_limit(beta) == pytest.approx(0.40, abs=0.005)
    w = np.logspace(2, 100, 20)
    for regime in ("under", "over"):
        u = en.fixed_point_utilization(w, beta * np.log(w), regime)
        assert np.all(u > 0.3)
        assert u[-1] == pytest.approx(math.exp(-2 / beta), rel=0.01)


def test_fixed_point_bad_parameters():
    with pytest.raises(BufferLabError, match="regime"):
        en.fixed_point(32, 5, "sideways")
    with pytest.raises(BufferLabError, match="buffer must be"):
        en.fixed_point(32, -1)
    with pytest.raises(BufferLabError, match="beta"):
        en.log_buffer_limit(0)


# ------------------------------------------------------------------------------ App. II slotted model


def _reference_slotted(flows, w, s, b, m, starts):
    """Plain FIFO queue, one packet at a time, two periods, drops counted in the second."""
    arrivals = [0] * m
    for st in starts:
        for k in range(w):
            arrivals[(st + k * s) % m] += 1
    buf = deque()
    drops = 0
    for period in range(2):
        for t in range(m):
            for _ in range(arrivals[t]):
                if len(buf) >= b:
                    drops += period
                else:
                    buf.append(t)
            if buf:
                buf.popleft()
    return drops


def test_slotted_hand_example():
    # 3 flows bursting 4 packets each in slots 0..3, B = 2: drops 1 + 2 + 2 + 2 = 7 of 12
    r = en.slotted_loss(3, 4, 1, [2], slots_per_rtt=20, starts=[[0, 0, 0]])
    assert r.drops[0] == 7
    assert r.loss[0] == pytest.approx(7 / 12)


def test_slotted_matches_reference_queue():
    rng = np.random.default_rng(11)
    flows, w, s, m = 6, 5, 2, 50
    starts = rng.integers(0, m, size=(8, flows))
    buffers = [1, 2, 3, 5]
    r = en.slotted_loss(flows, w, s, buffers, slots_per_rtt=m, starts=starts)
    for j, b in enumerate(buffers):
        ref = sum(_reference_slotted(flows, w, s, b, m, st) for st in starts)
        assert r.drops[j] == ref


def test_slotted_no_loss_when_spacing_exceeds_flows():
    # an interval of l slots holds at most N*ceil(l/S) <= l + N arrivals when S >= N: B > N never drops
    r = en.slotted_loss(8, 10, 8, [9, 12], load=0.5, replications=20, seed=2)
    assert np.all(r.drops == 0)


def test_slotted_deterministic_and_validated():
    a = en.slotted_loss(16, 8, 3, [2, 4], load=0.8, replications=10, seed=5)
    b = en.slotted_loss(16, 8, 3, [2, 4], load=0.8, replications=10, seed=5)
    assert np.array_equal(a.drops, b.drops)
    assert a.loss[0] >= a.loss[1]  # common random numbers: loss falls with B
    with pytest.raises(BufferLabError, match="load"):
        en.slotted_loss(16, 8, 1, [4], load=1.0)
    with pytest.raises(BufferLabError, match="spacing"):
        en.slotted_loss(4, 8, 20, [4], load=0.8)
    with pytest.raises(BufferLabError, match="buffer"):
        en.slotted_loss(4, 8, 2, [0], load=0.8)


def test_theorem2_loss_scaling():
    """Theorem 2: with S and B ~ log W_max the per-packet loss is O(1/W_max^2); without spacing it is not.

    N = 128 flows at load 0.5, W_max = 8 and 64, S = ceil(4 ln W), B = ceil(2 ln W).
    """
    ws = [8, 64]
    log_s = lambda w: math.ceil(4 * math.log(w))  # noqa: E731
    log_b = lambda w: math.ceil(2 * math.log(w))  # noqa: E731
    paced = en.slotted_loss_sweep(ws, log_s, log_b, flows=128, load=0.5, replications=100, seed=1)
    burst = en.slotted_loss_sweep(ws, 1, log_b, flows=128, load=0.5, replications=100, seed=1)
    const = en.slotted_loss_sweep(ws, log_s, 5, flows=128, load=0.5, replications=100, seed=1)
    # log-scaled S and B: W^2 * loss stays bounded (grows by less than 5x while W^2 grows 64x)
    assert paced[1]["loss_times_wmax2"] < 5 * paced[0]["loss_times_wmax2"]
    assert paced[1]["loss"] < paced[0]["loss"] / 10
    # and is of the order of the Poisson (M/D/1/B) loss at the same buffer, as the paper remarks
    assert paced[0]["loss"] < 10 * paced[0]["md1k_loss"]
    # unpaced bursts (S = 1): the loss stays above 10 % and W^2 * loss explodes
    assert min(r["loss"] for r in burst) > 0.1
    assert burst[1]["loss_times_wmax2"] > 20 * burst[0]["loss_times_wmax2"]
    # constant B = 5: the loss does not fall like 1/W^2
    assert const[1]["loss"] > const[0]["loss"] / 10


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_tiny_buffers(capsys, tmp_path):
    assert main(["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5", "--theta", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "Theorem 1 buffer B = 15 packets" in out
    rc = main(["model", "tiny-buffers", "--wmax", "64", "--rho", "0.8", "--theta", "0.5", "--json",
               "--plot", str(tmp_path)])
    assert rc == 0
    text = capsys.readouterr().out
    data = json.loads(text.splitlines()[0])
    assert data["theorem1_buffer"] == en.theorem1_buffer(64, 0.8, 0.5)
    for name in ("tiny_buffers_theorem1", "tiny_buffers_fixed_point"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0
        assert (tmp_path / f"{name}.svg").stat().st_size > 0


def test_cli_tiny_buffers_error(capsys):
    assert main(["model", "tiny-buffers", "--wmax", "64", "--rho", "1.0"]) == 2
    err = capsys.readouterr().err
    assert "rho must be in (0, 1)" in err
