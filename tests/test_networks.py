"""Engine v2 from Python: the built-in network examples, the resolved scenario, per-port/group/FCT results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import bufferlab
from bufferlab.cli import main
from bufferlab.errors import BufferLabError

SHORT = ["duration=8s", "warmup=2s"]


@pytest.mark.parametrize("name", ["parking-lot", "two-way", "mixed-groups", "short-flows"])
def test_examples_run_and_conserve_packets(name: str) -> None:
    r = bufferlab.run(name, overrides=SHORT, progress=False)
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert len(r.ports) == s["ports"] and len(r.groups) == s["groups"]
    assert (r.ports["utilization"] <= 1.0 + 1e-9).all()
    assert (r.groups["goodput_bps"] > 0).all()
    assert r.ports.loc[0, "utilization"] == s["utilization"]


def test_parking_lot_has_a_port_per_hop_and_a_cross_group_per_hop() -> None:
    r = bufferlab.run("parking-lot", overrides=SHORT, progress=False)
    assert list(r.ports["name"]) == ["hop1", "hop2", "hop3"]
    assert list(r.groups["name"]) == ["long", "cross1", "cross2", "cross3"]
    assert r.groups.loc[0, "route"] == ["hop1", "hop2", "hop3"]
    assert r.groups.loc[2, "route"] == ["hop2"]
    assert {"queue_hop1", "queue_hop2", "queue_hop3"} <= set(r.queue_series.columns)
    # Long flows cross three queues and have longer RTTs: less per flow than the cross flows.
    per_flow = r.flows.groupby("group")["goodput_bps"].mean()
    assert per_flow[0] < per_flow[1:].min()


def test_mixed_groups_run_different_controllers() -> None:
    r = bufferlab.run("mixed-groups", overrides=SHORT, progress=False)
    assert list(r.groups["congestion_control"]) == ["newreno", "aimd"]
    assert (r.groups["ecn_reductions"] > 0).all()
    assert set(r.flows["group"]) == {0, 1}


def test_short_flows_report_completion_times_by_size() -> None:
    r = bufferlab.run("short-flows", overrides=["duration=20s", "warmup=2s"], progress=False)
    web = r.groups.set_index("name").loc["web"]
    assert web["flows_completed"] > 100 and web["fct_count"] > 100
    assert len(r.fct) >= 2 and (r.fct["count"] > 0).all()
    assert (r.fct["mean_s"].diff().dropna() > 0).all(), "larger flows take longer"
    assert (r.fct["slowdown_mean"] >= 1.0).all()
    assert len(r.fct_records) == r.fct["count"].sum()
    assert (r.fct_records["fct_s"] >= r.fct_records["rtt_s"]).all()
    assert r.summary["flows"] == 10, "only the long flows have rows"


def test_resolve_is_the_scenario_as_run() -> None:
    spec = bufferlab.resolve("mixed-groups", overrides=["seed=7"])
    assert spec["seed"] == 7
    assert spec["links"][0]["queue"] == {
        "discipline": "red", "limit": 400, "limit_bytes": None, "min_th": 30.0, "max_th": 90.0, "max_p": 0.1,
        "weight": 0.002, "gentle": True, "wait": True, "ecn": True, "hard_drop": True, "mean_pktsize": None}
    gentle = spec["groups"][1]
    assert gentle["congestion_control"] == {"kind": "aimd", "increase": 0.9, "decrease": 0.675,
                                            "reduce_from": "cwnd", "ns2_halving": False}
    assert gentle["tcp"]["ecn"] is True and gentle["tcp"]["payload"] == 960
    rtts = [f["rtt"] for f in gentle["flows"]]
    assert len(rtts) == 20 and all(0.08 <= x <= 0.16 for x in rtts)
    # The flows' RTTs are the engine's own draws: the run reports the same ones.
    r = bufferlab.run("mixed-groups", overrides=["seed=7", "duration=3s", "warmup=0s"], progress=False)
    assert list(r.flows[r.flows.group == 1]["rtt_s"]) == pytest.approx(rtts, abs=1e-12)
    bad = {**bufferlab.load_scenario("mixed-groups"),
           "flows": [{"count": 1, "rtt": "100ms"},
                     {"count": 1, "rtt": "100ms",
                      "tcp": {"congestion_control": {"kind": "aimd", "decrease": 2}}}]}
    with pytest.raises(BufferLabError, match=r"flows\[1\].tcp.congestion_control.decrease"):
        bufferlab.resolve(bad)


def test_cdf_sizes_from_a_file_beside_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "sizes.txt").write_text("# bytes probability\n2KB 0.5\n20KB 1.0\n")
    (tmp_path / "s.toml").write_text("""
duration = "10s"
[bottleneck]
rate = "10Mbps"
queue = { discipline = "droptail", limit = 100 }
[flows]
rtt = "50ms"
size = { cdf = "sizes.txt" }
arrival = { rate = 20 }
""")
    spec = bufferlab.resolve(tmp_path / "s.toml")
    assert spec["groups"][0]["size"] == {"cdf": [[2000.0, 0.5], [20000.0, 1.0]]}
    r = bufferlab.run(tmp_path / "s.toml", progress=False)
    sizes = r.fct_records["size_bytes"]
    assert sizes.min() >= 2000 and sizes.max() <= 20000


@pytest.mark.parametrize("patch, field", [
    ({"flows": [{"count": 0, "rtt": "100ms"}]}, "flows[0].count"),
    ({"flows": [{"count": 1, "rtt": "100ms", "route": ["nowhere"]}]}, "flows[0].route[0]"),
    ({"flows": [{"rtt": "100ms", "size": {"pareto": "10KB", "shape": 1.0}, "arrival": {"rate": 1}}]},
     "flows[0].size.shape"),
    ({"flows": [{"rtt": "100ms", "size": "10KB", "arrival": {"load": 1.2}}]}, "flows[0].arrival.load"),
    ({"flows": [{"count": 2, "rtt": "100ms", "tcp": {"pacing": "yes"}}]}, "flows[0].tcp.pacing"),
])
def test_bad_groups_name_the_field(patch: dict, field: str) -> None:
    spec = {**bufferlab.load_scenario("droptail"), **patch}
    with pytest.raises(BufferLabError) as e:
        bufferlab.run(spec, progress=False)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_saved_results_have_the_new_tables_and_valid_json(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", "short-flows", "--set", "duration=6s", "--set", "warmup=1s", "--quiet",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "groups:" in text and "flow completion times by size" in text
    data = json.loads((out / "results.json").read_text(), parse_constant=lambda c: pytest.fail(c))
    assert {"ports", "groups", "fct", "flows"} <= set(data)
    assert all(g["jain_index"] is None or not math.isnan(g["jain_index"]) for g in data["groups"])
    for name in ("ports", "groups", "fct", "fct_records", "flows"):
        assert len(pd.read_parquet(out / f"{name}.parquet")) > 0, name


def test_multi_port_summary_prints_a_port_table(capsys) -> None:
    assert main(["run", "two-way", "--set", "duration=5s", "--set", "warmup=1s", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "ports (the summary above is the first):" in text
    assert "left-to-right" in text and "westbound" in text
