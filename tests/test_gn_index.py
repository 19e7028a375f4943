"""Global Notifier, the index policy and their senders through the Python API: the Whittle tables filled in
from ``bufferlab.models.whittle``, named errors, and the built-in examples."""

from __future__ import annotations

import copy
import warnings

import pytest

import bufferlab
from bufferlab.errors import BufferLabError
from bufferlab.index_tables import fill_index_tables
from bufferlab.models.whittle import index_table

WHITTLE = {"kind": "whittle", "gamma": 0.0, "max_window": 20, "index": "whittle", "alpha": 1.0, "beta": 0.9,
           "reward": "normalised"}


def two_users(user1: dict, user2: dict | None = None, **top: object) -> dict:
    scenario = {
        "duration": "20s",
        "bottleneck": {"rate": "1500kbps", "delay": "10ms", "queue": {"discipline": "index", "limit": 13}},
        "tcp": {"packet_size": "576B", "initial_window": 1},
        "flows": [
            {"name": "user1", "count": 1, "rtt": "60ms", "tcp": {"congestion_control": user1}},
            {"name": "user2", "count": 1, "rtt": "40ms", "tcp": {"congestion_control": user2 or
                                                                  {**WHITTLE, "gamma": 0.5}}},
        ],
    }
    scenario.update(top)
    return scenario


def test_tables_are_the_models_exactly() -> None:
    scenario = two_users(WHITTLE, {**WHITTLE, "gamma": 0.5, "alpha": 2.0, "reward": "alpha-fair",
                                   "max_window": 7})
    before = copy.deepcopy(scenario)
    filled = fill_index_tables(scenario)
    assert scenario == before, "the caller's scenario is left alone"
    cc1 = filled["flows"][0]["tcp"]["congestion_control"]
    cc2 = filled["flows"][1]["tcp"]["congestion_control"]
    assert cc1 == {"kind": "whittle", "gamma": 0.0, "max_window": 20,
                   "index": [float(x) for x in index_table(20, 1.0, 0.9, 0.0, "normalised")]}
    assert cc2["index"] == [float(x) for x in index_table(7, 2.0, 0.9, 0.5, "alpha-fair")]
    # Defaults: alpha 1, beta 0.99, normalised; gamma the controller's default 1/2.
    plain = {"kind": "whittle", "max_window": 12, "index": "whittle"}
    cc = fill_index_tables(two_users(plain))["flows"][0]["tcp"]["congestion_control"]
    assert cc["index"] == [float(x) for x in index_table(12, 1.0, 0.99, 0.5, "normalised")]
    # What the engine runs carries the same table (through JSON) and gamma.
    resolved = bufferlab.resolve(scenario)
    for group, (n, a, b, g, r) in zip(resolved["groups"], [(20, 1.0, 0.9, 0.0, "normalised"),
                                                          (7, 2.0, 0.9, 0.5, "alpha-fair")]):
        assert group["congestion_control"]["kind"] == "whittle"
        assert group["congestion_control"]["gamma"] == g
        assert group["congestion_control"]["index"] == pytest.approx(list(index_table(n, a, b, g, r)),
                                                                     rel=1e-15)


def test_a_tcp_table_is_filled_once_for_every_group() -> None:
    scenario = two_users(WHITTLE)
    for group in scenario["flows"]:
        del group["tcp"]
    scenario["tcp"]["congestion_control"] = {**WHITTLE, "gamma": 0.25}
    resolved = bufferlab.resolve(scenario)
    want = pytest.approx(list(index_table(20, 1.0, 0.9, 0.25)), rel=1e-15)
    assert [g["congestion_control"]["index"] for g in resolved["groups"]] == [want, want]


@pytest.mark.parametrize(
    "change,field",
    [
        ({"max_window": None}, r"flows\[0\]\.tcp\.congestion_control\.max_window"),
        ({"max_window": 0}, r"flows\[0\]\.tcp\.congestion_control\.max_window"),
        ({"alpha": -1}, r"flows\[0\]\.tcp\.congestion_control\.alpha"),
        ({"alpha": 1e308}, r"^flows\[0\]\.tcp\.congestion_control\.alpha: alpha \(fairness parameter\) must "
                           r"be in \[0, 100\] .*, got 1e\+308$"),
        ({"beta": 1.0}, r"flows\[0\]\.tcp\.congestion_control\.beta"),
        ({"gamma": 1.0}, r"flows\[0\]\.tcp\.congestion_control\.gamma"),
        ({"reward": "log"}, r"flows\[0\]\.tcp\.congestion_control\.reward"),
        ({"index": "optimal"}, r"flows\[0\]\.tcp\.congestion_control\.index"),
        ({"index": [0.5, 0.4]}, r"flows\[0\]\.tcp\.congestion_control\.alpha"),
        ({"index": [0.5, 0.4], "alpha": None, "beta": None, "reward": None},
         r"flows\[0\]\.tcp\.congestion_control\.index"),
    ],
)
def test_bad_index_settings_name_the_field(change: dict, field: str) -> None:
    cc = {k: v for k, v in {**WHITTLE, **change}.items() if v is not None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before numpy computes (and warns about) anything
        with pytest.raises(BufferLabError, match=field):
            bufferlab.resolve(two_users(cc))


def test_index_policy_example_runs_and_drops_by_index() -> None:
    r = bufferlab.run("index-policy", ["duration=\"60s\"", "warmup=\"10s\""])
    port = r.ports.iloc[0]
    assert port["discipline"] == "index"
    assert set(port["drop_reasons"]) == {"index"}
    assert list(r.groups["congestion_control"]) == ["whittle", "whittle"]
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert s["utilization"] > 0.9
    assert r.scenario["flows"][0]["tcp"]["congestion_control"]["index"] == "whittle", "results keep the input"


def test_global_notifier_example_runs_and_notifies() -> None:
    r = bufferlab.run("global-notifier", ["duration=\"6s\"", "warmup=\"2s\"", "monitor.cwnd=false"])
    port = r.ports.iloc[0]
    assert port["discipline"] == "global-notifier"
    assert port["mark_reasons"]["notify"] > 0
    assert "early" not in port["drop_reasons"]
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert list(r.groups["name"]) == ["reno", "gentle"]
    resolved = bufferlab.resolve("global-notifier")
    assert resolved["groups"][1]["congestion_control"]["ns2_halving"] is True
    assert resolved["groups"][0]["tcp"]["ecn_response"] == "once-per-rtt"
    assert resolved["links"][0]["queue"]["not_ect"] == "pass"


def test_ns3_comparison_refuses_per_signal_ecn() -> None:
    from bufferlab.validation import ns3sim

    scenario = bufferlab.load_scenario("red-ecn")
    scenario["tcp"]["ecn_response"] = "per-signal"
    with pytest.raises(BufferLabError, match="tcp.ecn_response"):
        ns3sim.translate(scenario)
