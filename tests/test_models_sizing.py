"""Buffer-sizing rules (bufferlab.models.sizing) and unit parsing (bufferlab.units)."""

from __future__ import annotations

import math

import pytest

from bufferlab.errors import BufferLabError
from bufferlab.models import sizing
from bufferlab.units import parse_rate, parse_size, parse_time


def test_intro_example_of_enachescu():
    # 10 Gb/s, RTT 100 ms, 1 kB packets: 125 MB = 125,000 packets; /sqrt(1000) = 3953 (OCR "3958")
    bdp = sizing.rule_of_thumb(10e9, 0.1, 1000)
    assert bdp.packets == 125_000
    assert bdp.bytes == 125_000_000
    assert bdp.delay_ms == pytest.approx(100.0)
    assert bdp.droptail_limit == 124_999
    sq = sizing.sqrt_n_rule(10e9, 0.1, 1000, 1000)
    assert sq.exact_packets == pytest.approx(125_000 / math.sqrt(1000))
    assert sq.packets == 3953
    assert sq.delay_ms == pytest.approx(3953 * 1000 * 8 / 10e9 * 1e3)


def test_enachescu_rule_is_theorem1():
    r = sizing.enachescu_rule(10e9, 64, 0.5, 0.9, 1000)
    assert r.packets == 15
    assert r.bytes == 15_000
    assert r.delay_ms == pytest.approx(15_000 * 8 / 10e9 * 1e3)
    with pytest.raises(BufferLabError, match="rho"):
        sizing.enachescu_rule(10e9, 64, 1.2, 0.9)


@pytest.mark.parametrize(
    "flows,alpha,exact",
    # B = 12 N^(alpha + 0.1); the note's derived values 23.9, 47.8, 95.3, 103.1 and 75.7 (alpha = 0.3)
    [(10, 0.2, 23.9), (100, 0.2, 47.8), (1000, 0.2, 95.3), (1300, 0.2, 103.1), (100, 0.3, 75.7)],
)
def test_eun_wang_rule(flows, alpha, exact):
    r = sizing.eun_wang_rule(1e9, flows, alpha=alpha, epsilon=0.1, packet_size_bytes=500)
    assert r.exact_packets == pytest.approx(12 * flows ** (alpha + 0.1))
    assert r.exact_packets == pytest.approx(exact, abs=0.05)
    assert r.packets == math.ceil(r.exact_packets)
    assert r.bytes == r.packets * 500


def test_eun_wang_scaling_example():
    # Sec. II-B: N x10 grows the buffer 10^0.3 ~ 2x
    a = sizing.eun_wang_rule(1e9, 100).exact_packets
    b = sizing.eun_wang_rule(1e9, 1000).exact_packets
    assert b / a == pytest.approx(10**0.3)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"alpha": 0.5}, r"alpha must be in \(0, 0.5\)"),
        ({"alpha": 0.45, "epsilon": 0.1}, "alpha \\+ epsilon"),
        ({"flows": 0}, "flows must be an integer >= 1"),
    ],
)
def test_eun_wang_bad_parameters(kwargs, match):
    args = {"capacity_bps": 1e9, "flows": 100}
    args.update(kwargs)
    with pytest.raises(BufferLabError, match=match):
        sizing.eun_wang_rule(**args)


def test_bad_common_parameters():
    with pytest.raises(BufferLabError, match="flows"):
        sizing.sqrt_n_rule(1e9, 0.1, 0)
    with pytest.raises(BufferLabError, match="capacity_bps"):
        sizing.rule_of_thumb(0, 0.1)
    with pytest.raises(BufferLabError, match="rtt_s"):
        sizing.rule_of_thumb(1e9, -0.1)


def test_parse_rate():
    assert parse_rate("10Gbps") == 10e9
    assert parse_rate("100Mb/s") == 100e6
    assert parse_rate("2.5 kbps") == 2500.0
    assert parse_rate("1.25GBps") == 10e9
    assert parse_rate(1e6) == 1e6
    assert parse_rate("5e6") == 5e6
    with pytest.raises(BufferLabError, match="--capacity"):
        parse_rate("10 parsecs", "--capacity")
    with pytest.raises(BufferLabError, match="rate must be > 0"):
        parse_rate("0bps")


def test_parse_time():
    assert parse_time("100ms") == pytest.approx(0.1)
    assert parse_time("50us") == pytest.approx(50e-6)
    assert parse_time("2s") == 2.0
    assert parse_time(0.25) == 0.25
    assert parse_time("0", allow_zero=True) == 0.0
    with pytest.raises(BufferLabError, match="--rtt"):
        parse_time("fast", "--rtt")
    with pytest.raises(BufferLabError, match="rtt"):
        parse_time("-5ms", "rtt")


def test_parse_size():
    assert parse_size("1500B") == 1500
    assert parse_size("1.5KB") == 1500
    assert parse_size("64KiB") == 65536
    assert parse_size("2MB") == 2_000_000
    assert parse_size(1000) == 1000
    with pytest.raises(BufferLabError, match="whole number of bytes"):
        parse_size("1.5B")
    with pytest.raises(BufferLabError, match="packet_size"):
        parse_size("big", "packet_size")
    with pytest.raises(BufferLabError, match="size"):
        parse_size(True)
