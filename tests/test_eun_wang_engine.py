"""The engine's `eun-wang` discipline against the Eun & Wang model (Table I, eq. 2); its examples."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bufferlab
from bufferlab import _engine
from bufferlab.errors import BufferLabError
from bufferlab.models import eun_wang as ew

SHORT = ["duration=12s", "warmup=4s"]


def describe(table: dict, flows: int, queues) -> dict:
    return json.loads(_engine.eun_wang_describe(json.dumps(table), flows, [float(q) for q in queues]))


@pytest.mark.parametrize("profile", ["red1", "red2", "exp"])
@pytest.mark.parametrize("flows", [1, 10, 100, 1300, 100_000])
@pytest.mark.parametrize("alpha", [0.1, 0.2, 0.3, 0.45])
def test_marking_probability_is_the_models_scaled_function(profile: str, flows: int, alpha: float) -> None:
    queues = np.arange(0.0, 400.0, 0.25)
    d = describe({"profile": profile, "alpha": alpha}, flows, queues)
    want = ew.scaled_marking(profile, flows, alpha)(queues)
    np.testing.assert_allclose(d["probabilities"], want, rtol=0, atol=1e-12)
    assert d["scale"] == pytest.approx(flows**alpha, rel=1e-14)
    assert d["limit"] == ew.buffer_size(flows, alpha, 0.1, 12.0)


def test_thresholds_and_buffer_at_n_100() -> None:
    # The note's table (alpha = 0.2, epsilon = 0.1): RED1 (5.0, 25.1), RED2 (10.0, 27.6), EXP gamma N^a = 113,
    # B = 12 N^0.3 = 47.8 -> 48 packets.
    red1 = describe({}, 100, [])
    red2 = describe({"profile": "red2"}, 100, [])
    exp = describe({"profile": "exp"}, 100, [])
    assert (round(red1["min_th"], 1), round(red1["max_th"], 1)) == (5.0, 25.1)
    assert (round(red2["min_th"], 1), round(red2["max_th"], 1)) == (10.0, 27.6)
    assert round(exp["exp_scale"]) == 113
    assert red1["limit"] == 48
    assert describe({"limit": 30, "flows": 7}, 100, [])["limit"] == 30
    with pytest.raises(_engine.ScenarioError, match=r"queue\.alpha"):
        describe({"alpha": 2}, 100, [])


def test_dumbbell_example_marks_and_conserves() -> None:
    r = bufferlab.run("eun-wang", overrides=SHORT, progress=False)
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    port = r.ports.iloc[0]
    assert port["discipline"] == "eun-wang"
    assert port["marks"] > 0 and port["mark_rate"] > 10 * port["loss_rate"]
    assert "forced" not in port["drop_reasons"]
    assert port["queue_max_pkts"] <= 48
    assert s["utilization"] > 0.7


def test_multihop_example_has_droptail_then_the_scaled_aqm() -> None:
    r = bufferlab.run("eun-wang-multihop", overrides=SHORT, progress=False)
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert list(r.ports["discipline"]) == ["droptail", "eun-wang"]
    assert list(r.groups["name"]) == ["group1", "group2"]
    assert list(r.groups["route"]) == [["hop1", "hop2"], ["hop2"]]
    hop2 = r.ports.iloc[1]
    assert hop2["marks"] > 0 and r.ports.iloc[0]["marks"] == 0
    assert hop2["queue_max_pkts"] <= ew.buffer_size(200, 0.2)


def test_resolved_table_and_named_errors() -> None:
    spec = bufferlab.resolve("eun-wang")
    assert spec["links"][0]["queue"] == {
        "discipline": "eun-wang", "profile": "red1", "alpha": 0.2, "flows": "configured", "weight": 1.0,
        "limit": "auto", "epsilon": 0.1, "buffer_constant": 12.0, "mode": "marking", "ecn": True,
        "gentle": True, "wait": True}
    with pytest.raises(BufferLabError, match=r"bottleneck\.queue\.alpha"):
        bufferlab.resolve("eun-wang", overrides=["bottleneck.queue.alpha=1.5"])
    with pytest.raises(BufferLabError, match=r"bottleneck\.queue\.flows"):
        bufferlab.resolve("eun-wang", overrides=["bottleneck.queue.flows=some"])
    with pytest.raises(BufferLabError, match=r"parking_lot\.queue\[1\]\.mode"):
        bad = bufferlab.load_scenario("eun-wang-multihop")
        bad["parking_lot"]["queue"][1]["mode"] = "ns3"
        bufferlab.resolve(bad)
