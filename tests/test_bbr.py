"""The `bbr-vs-cubic` example: the buffer decides between BBR and CUBIC (Hock et al. 2017), through the
Python API and the CLI's overrides."""

from __future__ import annotations

import pytest

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


def _bbr_incast(rule: str) -> bufferlab.Results:
    """Eight BBR servers answering 40 requests of 200 KB each, half a second apart, on persistent
    connections: every response starts with nothing in flight."""
    sc = bufferlab.load_scenario("incast")
    sc["duration"] = "30s"
    sc["bottleneck"] = {"rate": "1Gbps", "delay": "10us", "queue": {"discipline": "droptail", "limit": 200}}
    sc["flows"] = {**sc["flows"], "count": 8, "size": "200KB", "incast": {"rounds": 40, "gap": "500ms"}}
    sc["tcp"] = {**sc["tcp"], "sack": True,
                 "congestion_control": {"kind": "bbr", "idle_restart": rule, "min_rtt_window": 2.0}}
    return bufferlab.run(sc, progress=False)


def test_a_restart_after_idle_follows_the_chosen_rule() -> None:
    runs = {rule: _bbr_incast(rule) for rule in ("off", "ns-3", "linux")}
    for rule, r in runs.items():
        s = r.summary
        assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"], rule
        assert r.groups.iloc[0].incast_rounds == 40, rule
    # Linux restarts every response (each one begins application-limited) at the estimated bandwidth: no
    # burst at the probing gain, no loss here; ns-3 restarts only once a flow has been in PROBE_RTT.
    assert runs["linux"].summary["drops"] == 0 < runs["off"].summary["drops"]
    assert runs["ns-3"].summary["sent"] != runs["off"].summary["sent"]
    with pytest.raises(bufferlab.BufferLabError, match="idle_restart"):
        bad = bufferlab.load_scenario("bbr-vs-cubic")
        bad["flows"][0]["tcp"] = {"congestion_control": {"kind": "bbr", "idle_restart": "sometimes"}}
        bufferlab.run(bad, progress=False)


def test_an_unknown_rtt_sample_is_refused_by_name() -> None:
    bad = bufferlab.load_scenario("bbr-vs-cubic")
    bad["flows"][0]["tcp"] = {"congestion_control": {"kind": "bbr", "rtt_sample": "newest"}}
    with pytest.raises(bufferlab.BufferLabError, match=r"rtt_sample.*ns-3.*linux"):
        bufferlab.run(bad, progress=False)
