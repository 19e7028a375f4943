"""The `leaf-spine` example through the Python API: per-flow hosts, spines and routes in the flow table,
per-port rows for every fabric port, shared buffers over its ports, the resolved scenario, field-named
errors, and the ns-3 translator's refusal."""

from __future__ import annotations

import pandas as pd
import pytest

import bufferlab
from bufferlab.errors import BufferLabError
from bufferlab.validation.translate import translate


def test_the_example_reports_each_flows_path_and_every_port() -> None:
    r = bufferlab.run("leaf-spine", progress=False)
    assert len(r.ports) == 2 * 32 + 2 * 4 * 4
    assert {"src", "dst", "spine", "route"} <= set(r.flows.columns)
    for f in r.flows.itertuples():
        src_leaf, dst_leaf = f.src // 8, f.dst // 8
        assert f.route[0] == f"h{f.src}-up" and f.route[-1] == f"leaf{dst_leaf}-h{f.dst}"
        if src_leaf == dst_leaf:
            assert len(f.route) == 2 and f.spine != f.spine  # NaN: no spine within a leaf
        else:
            spine = int(f.spine)
            assert f.route[1:3] == [f"leaf{src_leaf}-spine{spine}", f"spine{spine}-leaf{dst_leaf}"]
    long = r.flows[r.flows.group == 0]
    assert sorted(long.dst) == list(range(32)) and (long.src // 8 != long.dst // 8).all()
    assert set(long.spine.astype(int)) == {0, 1, 2, 3}
    assert list(r.groups.route) == [[], []]
    assert r.groups.loc[0, "goodput_bps"] > 0.8 * 32 * 10e9
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    # The resolved scenario carries the same paths.
    flows = bufferlab.resolve("leaf-spine")["groups"][0]["flows"]
    assert [f["spine"] for f in flows] == list(long.spine.astype(int))
    assert flows[0]["rtt"] == pytest.approx(8e-6) and flows[0]["access_delay"] == 0


def test_the_seed_moves_the_spines() -> None:
    spines = [[f["spine"] for f in bufferlab.resolve("leaf-spine", [f"seed={seed}"])["groups"][0]["flows"]]
              for seed in (1, 2)]
    assert spines[0] != spines[1]


def test_shared_buffers_name_fabric_ports() -> None:
    scenario = bufferlab.load_scenario("leaf-spine")
    ports = [f"leaf0-h{i}" for i in range(8)]
    scenario["shared_buffers"] = [{"name": "leaf0", "ports": ports, "size": "1MB"}]
    scenario["flows"][1]["start"] = {"uniform": ["0s", "5ms"]}
    r = bufferlab.run(scenario, ["duration=0.01s", "warmup=0.002s"], progress=False)
    ports = r.ports.set_index("name")
    assert ports.loc["leaf0-h3", "shared_buffer"] == "leaf0"
    assert pd.isna(ports.loc["leaf1-h8", "shared_buffer"])


@pytest.mark.parametrize("override, field", [
    ("leaf_spine.leaves=0", "leaf_spine.leaves"),
    ("leaf_spine.oversubscription=2", "leaf_spine.oversubscription"),
    ("flows[0].pattern=\"ring\"", "flows[0].pattern"),
    ("flows[1].rtt=\"1us\"", "flows[1].rtt"),
])
def test_errors_name_the_field(override: str, field: str) -> None:
    with pytest.raises(BufferLabError, match=f"^{field.replace('[', '.').replace(']', '.')}"):
        bufferlab.resolve("leaf-spine", [override])


def test_the_ns3_translator_refuses_a_leaf_spine() -> None:
    with pytest.raises(BufferLabError, match="^leaf_spine: not translated to ns-3"):
        translate(bufferlab.load_scenario("leaf-spine"))
