"""The engine through the Python API: determinism, conservation, closed-form queueing results, outputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bufferlab
from bufferlab.errors import BufferLabError
from bufferlab.models import queueing


def dumbbell(**overrides: object) -> dict:
    scenario = {
        "seed": 7,
        "duration": "12s",
        "warmup": "2s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 50}},
        "flows": {"count": 10, "rtt": {"uniform": ["40ms", "120ms"]}, "start": {"uniform": ["0s", "1s"]}},
        "monitor": {"sample_interval": "100ms", "cwnd": True},
    }
    return bufferlab.simulate.apply_overrides(scenario, [f"{k}={v}" for k, v in overrides.items()])


def test_same_scenario_and_seed_give_identical_results() -> None:
    a, b = bufferlab.run(dumbbell()), bufferlab.run(dumbbell())
    assert {k: v for k, v in a.summary.items()} == b.summary
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.cwnd_series, b.cwnd_series)
    c = bufferlab.run(dumbbell(seed=8))
    assert c.summary != a.summary


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"tcp.sack": "false"},
        {"tcp.delayed_ack": "true"},
        {"bottleneck.queue.discipline": '"red"', "bottleneck.queue.min_th": 5, "bottleneck.queue.max_th": 20},
        {"bottleneck.queue.discipline": '"red"', "bottleneck.queue.ecn": "true", "tcp.ecn": "true"},
        {"flows.stop": '{uniform = ["5s", "10s"]}'},
    ],
)
def test_conservation_sent_equals_delivered_plus_dropped_plus_in_flight(overrides: dict) -> None:
    s = bufferlab.run(dumbbell(**overrides)).summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert s["sent"] > 1000
    assert 0.0 < s["utilization"] <= 1.0 + 1e-9


def test_red_ecn_marks_instead_of_dropping_early() -> None:
    r = bufferlab.run(dumbbell(**{"bottleneck.queue.discipline": '"red"', "bottleneck.queue.min_th": 5,
                                  "bottleneck.queue.max_th": 20, "bottleneck.queue.ecn": "true",
                                  "tcp.ecn": "true"}))
    s = r.summary
    assert s["marks"] > 50 and s["drops_early"] == 0
    assert s["mark_rate"] == pytest.approx(s["marks"] / s["arrivals"], rel=0.01)  # + the queue at the warm-up
    assert r.flows["ecn_reductions"].sum() > 0
    # RED holds the average near the thresholds, far below the 50-packet limit.
    assert s["queue_mean_pkts"] < 25


def test_single_flow_is_window_limited_to_wmax_over_rtt() -> None:
    r = bufferlab.run({
        "duration": "30s", "warmup": "5s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 1000}},
        "flows": {"count": 1, "rtt": "100ms"}, "tcp": {"max_window": 20},
    })
    rtt = 0.1 + 1000 * 8 / 1e9 + 1000 * 8 / 10e6 + 2 * 40 * 8 / 10e6
    assert r.summary["throughput_bps"] == pytest.approx(20 * 8000 / rtt, rel=0.01)
    assert r.flows["goodput_bps"][0] == pytest.approx(20 * 960 * 8 / rtt, rel=0.01)


def poisson(rho: float, limit: int, duration: str = "1500s") -> dict:
    return {
        "duration": duration, "warmup": "10s",
        "bottleneck": {"rate": "10Mbps", "queue": {"discipline": "droptail", "limit": limit}},
        "udp": [{"pattern": "poisson", "rate": rho * 10e6, "packet_size": "1000B"}],
    }


@pytest.mark.parametrize("rho,limit", [(0.9, 9), (0.7, 4), (1.2, 19)])
def test_poisson_into_droptail_matches_exact_md1k_loss(rho: float, limit: int) -> None:
    """Poisson arrivals of fixed-size packets: the bottleneck is M/D/1/K with K = limit + 1."""
    r = bufferlab.run(poisson(rho, limit))
    exact = float(queueing.md1k_loss(rho, limit + 1))
    loss = r.udp["loss_rate"][0]
    # about 1.5e6 arrivals: a relative error of a few percent at these loss levels is several sigma
    assert loss == pytest.approx(exact, rel=0.05), (loss, exact)


def test_poisson_mean_wait_matches_pollaczek_khinchine() -> None:
    rho, service = 0.8, 1000 * 8 / 10e6
    s = bufferlab.run(poisson(rho, 100_000)).summary
    lq = rho**2 / (2 * (1 - rho))  # M/D/1 mean number waiting
    assert s["drops"] == 0
    assert s["queue_mean_pkts"] == pytest.approx(lq, rel=0.04)
    assert s["delay_mean_s"] == pytest.approx(lq / rho * service, rel=0.04)  # Little: Wq = Lq / lambda
    assert s["utilization"] == pytest.approx(rho, rel=0.01)


def test_cbr_below_capacity_never_queues() -> None:
    sc = poisson(0.5, 1, duration="20s")
    sc["udp"][0]["pattern"] = "cbr"
    s = bufferlab.run(sc).summary
    assert s["drops"] == 0 and s["queue_max_pkts"] == 0 and s["delay_p99_s"] == 0
    assert s["utilization"] == pytest.approx(0.5, rel=1e-3)


def test_time_series_and_saved_outputs(tmp_path) -> None:
    r = bufferlab.run(dumbbell())
    assert len(r.queue_series) == 121  # 0, 0.1, ..., 12.0 s
    assert list(r.cwnd_series.columns) == ["time_s"] + [f"flow_{i}" for i in range(10)]
    assert np.all(np.diff(r.queue_series["time_s"]) > 0)
    assert r.queue_series["queue_pkts"].max() <= 50
    written = r.save(tmp_path)
    names = {p.name for p in written}
    assert {"results.json", "flows.parquet", "queue_series.parquet", "cwnd_series.parquet"} <= names
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["summary"]["utilization"] == r.summary["utilization"]
    assert len(saved["flows"]) == 10
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "flows.parquet"), r.flows)


def test_fairness_and_percentiles_are_consistent() -> None:
    s = bufferlab.run(dumbbell()).summary
    assert 1 / 10 <= s["jain_index"] <= 1
    assert s["queue_p50_pkts"] <= s["queue_p90_pkts"] <= s["queue_p99_pkts"] <= s["queue_max_pkts"] <= 50
    assert s["delay_p50_s"] <= s["delay_p90_s"] <= s["delay_p99_s"]
    assert s["drops"] == s["drops_overflow"] + s["drops_early"] + s["drops_forced"]
    assert s["loss_rate"] == pytest.approx(s["drops"] / s["arrivals"], rel=0.01)  # + the queue at the warm-up


@pytest.mark.parametrize(
    "overrides,field",
    [
        ({"bottleneck.rate": '"-5Mbps"'}, "bottleneck.rate"),
        ({"bottleneck.queue.limit": 0}, "bottleneck.queue.limit"),
        ({"bottleneck.queue.discipline": '"nonesuch"'}, "nonesuch"),
        ({"tcp.colour": '"blue"'}, "colour"),
        ({"flows.count": 0}, "flows.count"),
        ({"flows.rtt": '"2ms"'}, "flows.rtt"),
        ({"warmup": '"20s"'}, "warmup"),
        ({"bottleneck.rate": '"fast"'}, "bottleneck.rate"),
        ({"tcp.ssthresh_from": '"sideways"'}, "tcp.ssthresh_from"),
        ({"tcp.rto_backoff": '"never"'}, "tcp.rto_backoff"),
        ({"tcp.ca_increase": '"bytes"'}, "tcp.ca_increase"),
        ({"tcp.recovery_timer": '"never"'}, "tcp.recovery_timer"),
        ({"tcp.partial_ack": '"two"'}, "tcp.partial_ack"),
        ({"tcp.recovery_exit": '"inflate"'}, "tcp.recovery_exit"),
        ({"tcp.ecn_states": '"all"'}, "tcp.ecn_states"),
        ({"tcp.full_ack": '"cwnd"'}, "tcp.full_ack"),
        ({"tcp.congestion_control": '{ kind = "cubic", growth = "integer" }'}, r"congestion_control.*growth"),
        ({"tcp.overhead": '"2s"'}, r"tcp.overhead.*\[0s, 1s\]"),
        ({"tcp.overhead": '"-1ms"'}, "tcp.overhead"),
        ({"tcp.handshake": '"yes"'}, "tcp.handshake"),
        ({"tcp.limited_transmit": '"yes"'}, "tcp.limited_transmit"),
        ({"udp": '[{pattern = "poisson", rate = "-1Mbps"}]'}, r"udp\[0\]\.rate"),
        ({"udp": '[{pattern = "bursty", rate = "1Mbps"}]'}, "bursty"),
    ],
)
def test_bad_input_names_the_field(overrides: dict, field: str) -> None:
    with pytest.raises(BufferLabError, match=field):
        bufferlab.run(dumbbell(**overrides))


def test_results_do_not_grow_with_simulated_time() -> None:
    short = bufferlab.run(dumbbell(duration='"5s"', **{"monitor.sample_interval": '"5s"'}))
    long = bufferlab.run(dumbbell(duration='"60s"', **{"monitor.sample_interval": '"60s"'}))
    assert len(long.queue_series) == len(short.queue_series) == 2
    assert len(json.dumps(long.to_dict())) < 2 * len(json.dumps(short.to_dict()))
