"""``bufferlab advise`` (bufferlab.commands.advise / bufferlab.models.advisor)."""

from __future__ import annotations

import json

import pytest

from bufferlab.cli import build_parser, main
from bufferlab.models import advisor, eun_wang
from bufferlab.models.enachescu import fixed_point, theorem1_buffer
from bufferlab.models.queueing import md1k_loss, mm1k_loss

ARGS = ["advise", "--capacity", "10Gbps", "--flows", "5000", "--rtt", "100ms"]


@pytest.fixture
def fake_eun_wang(monkeypatch):
    """A stand-in for bufferlab.models.eun_wang.predict_for_advisor (keeps these tests fast)."""
    calls = []

    def predict_for_advisor(flows, capacity_pkts_per_s, rtt_s, packet_size_bytes):
        calls.append((flows, capacity_pkts_per_s, rtt_s, packet_size_bytes))
        return {"buffer_pkts": 154.0, "utilization": 0.987, "loss": 1.5e-4}

    monkeypatch.setattr(eun_wang, "predict_for_advisor", predict_for_advisor)
    return calls


def _rules(data):
    return {r["rule"]: r for r in data["rules"]}


def test_advise_json(capsys, fake_eun_wang):
    assert main(ARGS + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = _rules(data)
    bdp = 10e9 * 0.1 / (8 * 1500)
    assert data["derived"]["bdp_pkts"] == pytest.approx(bdp)
    assert rules["bdp"]["packets"] == 83334
    assert rules["bdp"]["delay_ms"] == pytest.approx(83334 * 1500 * 8 / 10e9 * 1e3)
    assert rules["bdp/sqrt(N)"]["packets"] == 1179  # 83333.3 / sqrt(5000) = 1178.5
    assert rules["eun-wang"]["packets"] == 155  # 12 * 5000^0.3 = 154.9
    for r in rules.values():
        assert r["bytes"] == r["packets"] * 1500
        assert r["droptail_limit"] == r["packets"] - 1
    # predictions are the models evaluated at the rule's buffer
    k = rules["bdp/sqrt(N)"]["packets"]
    preds = {p["model"]: p for p in rules["bdp/sqrt(N)"]["predictions"]}
    assert preds["M/M/1/K"]["loss"] == pytest.approx(mm1k_loss(0.95, k))
    assert preds["M/D/1/K"]["loss"] == pytest.approx(md1k_loss(0.95, k))
    assert preds["M/M/1/K"]["utilization"] == pytest.approx(0.95 * (1 - mm1k_loss(0.95, k)))
    # W_max = 64 by default: peak load 5000*64/BDP = 3.84 >= 1, so the log rule is the fixed-point buffer
    peak = 5000 * 64 / bdp
    kb = rules["enachescu-log"]["packets"]
    assert fixed_point(64, kb, peak_load=peak).utilization >= 0.95
    assert fixed_point(64, kb - 1, peak_load=peak).utilization < 0.95
    # the Eun-Wang model was asked once with the link in packets/s
    assert fake_eun_wang == [(5000, pytest.approx(10e9 / 12000), pytest.approx(0.1), 1500)]
    ew = {p["model"]: p for p in rules["eun-wang"]["predictions"]}["Eun-Wang chain"]
    assert ew["utilization"] == 0.987 and ew["loss"] == 1.5e-4


def test_advise_table(capsys, fake_eun_wang):
    assert main(ARGS + ["--target-utilization", "0.9", "--packet-size", "1.5KB"]) == 0
    out = capsys.readouterr().out
    for word in ("bdp", "bdp/sqrt(N)", "enachescu-log", "eun-wang", "M/D/1/K", "TCP fixed point", "83334"):
        assert word in out
    assert "0.9870 / 1.50e-04" in out


def test_advise_without_eun_wang_function(capsys, monkeypatch):
    monkeypatch.delattr(eun_wang, "predict_for_advisor")
    assert main(ARGS + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    models = [p["model"] for p in _rules(data)["eun-wang"]["predictions"]]
    assert "Eun-Wang chain" not in models


def test_advise_theorem1_branch(fake_eun_wang):
    # 100 Mb/s, 100 ms, 1500 B: BDP 833.3 packets; 10 flows of W_max 64: peak load 0.768 < 1
    adv = advisor.advise(100e6, 10, 0.1, target_utilization=0.7, w_max=64)
    peak = 10 * 64 / (100e6 * 0.1 / 12000)
    r = _rules(adv)["enachescu-log"]
    assert r["packets"] == theorem1_buffer(64, peak, 0.7 / peak)
    assert "Theorem 1" in r["notes"][0]


def test_advise_window_limited(fake_eun_wang):
    adv = advisor.advise(10e9, 10, 0.1, target_utilization=0.95, w_max=64)
    r = _rules(adv)["enachescu-log"]
    assert r["packets"] is None
    assert "window-limited" in r["notes"][0]


def test_fixed_point_buffer_errors():
    with pytest.raises(advisor.BufferLabError, match="exceeds the peak load"):
        advisor.fixed_point_buffer(0.9, 64, 0.5)


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--capacity", "10 parsecs", "--flows", "10", "--rtt", "1ms"], "--capacity"),
        (["--capacity", "1Gbps", "--flows", "0", "--rtt", "1ms"], "--flows: must be an integer >= 1"),
        (["--capacity", "1Gbps", "--flows", "many", "--rtt", "1ms"], "--flows"),
        (["--capacity", "1Gbps", "--flows", "10", "--rtt", "soon"], "--rtt"),
        (["--capacity", "1Gbps", "--flows", "10", "--rtt", "1ms", "--target-utilization", "1.5"],
         "--target-utilization: must be in (0, 1)"),
        (["--capacity", "1Gbps", "--flows", "10", "--rtt", "1ms", "--packet-size", "1.5B"], "--packet-size"),
        (["--capacity", "1Gbps", "--flows", "10", "--rtt", "1ms", "--alpha", "0.7"],
         "alpha must be in (0, 0.5)"),
    ],
)
def test_advise_errors_exit_2(capsys, extra, needle):
    assert main(["advise"] + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("bufferlab: error:")
    assert needle in err


def test_model_subcommands_registered():
    parser = build_parser()
    args = parser.parse_args(["model", "queueing", "--rho", "0.5", "--buffer", "3"])
    assert callable(args.func)
    args = parser.parse_args(["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5"])
    assert callable(args.func)


def test_model_without_subcommand_prints_help(capsys):
    assert main(["model"]) == 2
