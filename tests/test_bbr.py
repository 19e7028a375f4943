"""The `bbr-vs-cubic` example: the buffer decides between BBR and CUBIC (Hock et al. 2017), through the
Python API and the CLI's overrides."""

from __future__ import annotations

import bufferlab


def _bbr_share(limit: int) -> float:
    r = bufferlab.run("bbr-vs-cubic", overrides=[f"bottleneck.queue.limit={limit}"], progress=False)
    goodput = r.groups.set_index("name")["goodput_bps"]
    assert list(r.groups["congestion_control"]) == ["bbr", "cubic"]
    return float(goodput["bbr"] / goodput.sum())


def test_bbr_takes_most_of_a_shallow_buffer_and_cubic_most_of_a_deep_one() -> None:
    shallow, deep = _bbr_share(84), _bbr_share(1336)
    assert shallow > 0.85, shallow
    assert deep < 0.45, deep


def test_the_example_resolves_with_bbr_parameters_and_no_pacing_switch() -> None:
    res = bufferlab.resolve("bbr-vs-cubic")
    bbr = res["groups"][0]
    assert bbr["congestion_control"]["kind"] == "bbr"
    assert bbr["congestion_control"]["aggregation"] == "ns-3"
    assert bbr["tcp"]["pacing"] in (False, "off")
