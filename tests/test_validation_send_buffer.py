"""The engine runs beside ns-3 held to the send buffer the translator gives ns-3's sockets
(``translate.engine_held_to_send_buffer``): a window of that many segments on every group without one."""

from __future__ import annotations

import copy
from pathlib import Path

import bufferlab
from bufferlab.commands.validate import load_file
from bufferlab.validation import compare, ns3sim
from bufferlab.validation.translate import engine_held_to_send_buffer

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "validation" / "scenarios"


def held(name: str):
    sc = load_file(SCENARIOS / f"{name}.toml")
    cfg = ns3sim.translate(sc)
    return sc, cfg, engine_held_to_send_buffer(sc, cfg)


def windows(sc) -> list:
    return [g["tcp"]["max_window"] for g in bufferlab.resolve(sc)["groups"]]


def segments(cfg) -> list:
    return [g["tcp"]["snd_buf_bytes"] // g["tcp"]["segment_size"] for g in cfg["groups"]]


def test_every_group_gets_its_own_send_buffer_as_its_window_and_the_scenario_is_not_changed():
    # One table of flows; two groups in a list, one with its own [tcp]; a parking lot's cross traffic.
    for name in ("v50-4flows-bbr-droptail-quarter-bdp", "v16-two-groups-rtt-delack",
                 "v14-parking-lot-2hops-cross"):
        sc, cfg, out = held(name)
        before = copy.deepcopy(sc)
        assert windows(out) == segments(cfg), name
        assert sc == before, f"{name}: the scenario itself is left as written"
    # v16's second group keeps its own TCP settings beside the window.
    _, _, out = held("v16-two-groups-rtt-delack")
    assert out["flows"][1]["tcp"]["delayed_ack"] is True
    assert windows(out) == [977, 1602]


def test_cross_groups_on_hops_of_different_rates_share_the_largest_buffer():
    sc = load_file(SCENARIOS / "v14-parking-lot-2hops-cross.toml")
    sc["parking_lot"] = {**sc["parking_lot"], "rate": ["20Mbps", "40Mbps"]}
    cfg = ns3sim.translate(sc)
    cross = segments(cfg)[1:]
    assert len(set(cross)) == 2, "the two hops' cross groups get different ns-3 buffers"
    assert windows(engine_held_to_send_buffer(sc, cfg))[1:] == [max(cross)] * 2


def test_a_window_the_scenario_sets_is_kept():
    sc, cfg, out = held("v11-1000flows-droptail-2bdp-spread")
    assert cfg["groups"][0]["tcp"]["max_window"] == 320
    assert out == sc and windows(out) == [320]


def test_the_limit_changes_nothing_where_ns3_never_reaches_it_and_binds_where_it_does():
    # One NewReno flow through a BDP of buffer: never near its 665 segments.
    sc, _, out = held("v01-1flow-droptail-1bdp")
    assert bufferlab.run(out).summary == bufferlab.run(sc).summary
    # Four BBR flows behind a quarter BDP keep sending while their oldest segment stays lost: ns-3 stalls
    # them at 561 segments outstanding, and so does the engine's window (docs/validation/ns3-mapping.md,
    # item 38); unheld, the engine's queue stays fuller.
    sc, _, out = held("v50-4flows-bbr-droptail-quarter-bdp")
    free, bound = bufferlab.run(sc).summary, bufferlab.run(out).summary
    assert bound["queue_mean_pkts"] < free["queue_mean_pkts"] - 3


def test_the_comparison_runs_the_held_scenario_and_says_so():
    sc, cfg, out = held("v50-4flows-bbr-droptail-quarter-bdp")
    assert compare._engine_run(sc).summary == bufferlab.run(out).summary
    comp = compare.compare_scenario(sc, ns3_runner=lambda s: _ns3_stub(cfg))
    assert any("held to the send buffer" in n and "flows: 561 segments" in n for n in comp.notes)


def _ns3_stub(cfg):
    """An ns-3 result with the engine's fields, enough for the comparison's rows."""
    return {"wall_s": 1.0, "ns3_config": cfg, "flows": [], "utilization": 1.0, "loss_rate": 0.1,
            "queue_mean_pkts": 30.0, "jain_index": 1.0, "goodput_bps": 4e7, "timeouts": 0,
            "window_timeouts": 0, "delay_mean_s": 0.01, "groups": [], "ports": []}
