"""One unit grammar: bufferlab.units reads strings exactly as the engine reads scenario files."""

from __future__ import annotations

import copy
import json

import pytest

from bufferlab import _engine
from bufferlab.cli import main
from bufferlab.errors import BufferLabError
from bufferlab.units import parse_rate, parse_size, parse_time

# (kind, text, value in SI base units, or None where the engine rejects the text)
TABLE = [
    ("rate", "100Mbps", 100e6),
    ("rate", "1.5 Gbps", 1.5e9),
    ("rate", " 100Mbps ", 100e6),
    ("rate", "64kbps", 64e3),
    ("rate", "64Kbps", 64e3),
    ("rate", "1Tbps", 1e12),
    ("rate", "2e6", 2e6),
    ("rate", "+2Mbps", 2e6),
    ("rate", ".5Mbps", 5e5),
    ("rate", "1_000bps", 1e3),
    ("rate", "10 kb/s", 1e4),
    ("rate", "1Gbit/s", 1e9),
    ("rate", "3Mbits/s", 3e6),
    ("rate", "1MBps", 8e6),
    ("rate", "1.25GB/s", 10e9),
    ("rate", "3mbps", None),
    ("rate", "3MBPS", None),
    ("rate", "10gbps", None),
    ("rate", "100 Mbit", None),
    ("rate", "1Pbps", None),
    ("rate", "100Mbps/s", None),
    ("rate", "1,000bps", None),
    ("rate", "bps", None),
    ("rate", "fast", None),
    ("rate", "inf", None),
    ("rate", "", None),
    ("time", "100ms", 0.1),
    ("time", "2s", 2.0),
    ("time", "2 sec", 2.0),
    ("time", "50us", 50e-6),
    ("time", "50µs", 50e-6),
    ("time", "10ns", 10e-9),
    ("time", "250ps", 250e-12),
    ("time", "1min", 60.0),
    ("time", "1.5e-3s", 1.5e-3),
    ("time", "5", 5.0),
    ("time", "10MS", None),
    ("time", "2 secs", None),
    ("time", "1h", None),
    ("time", "1m", None),
    ("time", "50μs", None),  # Greek mu; the engine takes the micro sign or "us"
    ("time", "10 parsecs", None),
    ("time", "ms", None),
    ("size", "1500B", 1500.0),
    ("size", "1500", 1500.0),
    ("size", "1.5KB", 1500.0),
    ("size", "1kB", 1000.0),
    ("size", "2MB", 2e6),
    ("size", "1GB", 1e9),
    ("size", "64KiB", 65536.0),
    ("size", "1MiB", 2.0**20),
    ("size", "1GiB", 2.0**30),
    ("size", "1500b", None),
    ("size", "64kib", None),
    ("size", "3 bytes", None),
    ("size", "1TB", 1e12),
    ("size", "1PB", 1e15),
    ("size", "1EB", None),
    ("size", "1Kb", None),
    ("size", "big", None),
]

PARSERS = {"rate": parse_rate, "time": parse_time, "size": parse_size}
ENGINE = {"rate": _engine.parse_rate, "time": _engine.parse_time, "size": _engine.parse_size}
# Where each kind sits in a scenario, and the word the engine's loader uses for it.
SCENARIO_FIELD = {"rate": (("bottleneck", "rate"), "rate"), "time": (("duration",), "duration"),
                  "size": (("tcp", "packet_size"), "size")}
BASE = {
    "duration": "1s",
    "bottleneck": {"rate": "10Mbps", "queue": {"discipline": "droptail", "limit": 10}},
    "flows": {"count": 1, "rtt": "10ms"},
}


@pytest.mark.parametrize("kind, text, value", TABLE, ids=[f"{k}:{t!r}" for k, t, _ in TABLE])
def test_python_parsers_agree_with_the_engine(kind, text, value):
    assert ENGINE[kind](text) == (None if value is None else pytest.approx(value))
    if value is None:
        with pytest.raises(BufferLabError, match=f"^{kind}: cannot read"):
            PARSERS[kind](text)
    else:
        assert PARSERS[kind](text) == pytest.approx(value)


@pytest.mark.parametrize("kind, text, value", TABLE, ids=[f"{k}:{t!r}" for k, t, _ in TABLE])
def test_scenario_loader_agrees(kind, text, value):
    """A scenario field accepts a string exactly when bufferlab.units does."""
    path, word = SCENARIO_FIELD[kind]
    scenario = copy.deepcopy(BASE)
    table = scenario
    for key in path[:-1]:
        table = table.setdefault(key, {})
    table[path[-1]] = text
    try:
        _engine.Simulation(json.dumps(scenario))
        message = ""
    except _engine.ScenarioError as exc:
        message = str(exc)
    quoted = (json.dumps(text, ensure_ascii=False), text)
    unreadable = f"expected a {word} such as" in message and message.endswith(quoted)
    assert unreadable == (value is None), message


@pytest.mark.parametrize(
    "parse, text, fixed",
    [(parse_rate, "3mbps", "3Mbps"), (parse_rate, "10 GBPS", "10 Gbps"), (parse_time, "10MS", "10ms"),
     (parse_size, "1500b", "1500B"), (parse_size, "64kib", "64KiB")],
)
def test_wrong_case_names_the_right_spelling(parse, text, fixed):
    with pytest.raises(BufferLabError) as info:
        parse(text, "--field")
    assert str(info.value) == (
        f"--field: cannot read {text!r} as a {parse.__name__[6:]}: units are case-sensitive SI: "
        f"{fixed!r}, not {text!r}"
    )


@pytest.mark.parametrize(
    "parse, text, example",
    [(parse_rate, "10 parsecs", "'100Mbps'"), (parse_time, "soon", "'100ms'"),
     (parse_size, "big", "'1500B'")],
)
def test_unreadable_text_shows_valid_syntax(parse, text, example):
    with pytest.raises(BufferLabError, match=f"^--x: cannot read .* e.g. {example} .*case-sensitive SI"):
        parse(text, "--x")


def test_ranges_and_types():
    assert parse_time("0s", allow_zero=True) == 0.0
    with pytest.raises(BufferLabError, match="time must be > 0"):
        parse_time("0s")
    with pytest.raises(BufferLabError, match=r"rtt: time must be > 0, got '-3ms'"):
        parse_time("-3ms", "rtt")  # the grammar reads it; the range check refuses it
    with pytest.raises(BufferLabError, match="rate must be finite"):
        parse_rate("1e400bps")
    with pytest.raises(BufferLabError, match="whole number of bytes"):
        parse_size("1.5B")
    assert isinstance(parse_size("1.5KB"), int)
    with pytest.raises(BufferLabError, match="expected a rate"):
        parse_rate(None)
    with pytest.raises(BufferLabError, match="expected a size"):
        parse_size(True)


def test_advise_rejects_lowercase_units(capsys):
    assert main(["advise", "--capacity", "10gbps", "--flows", "10", "--rtt", "100ms"]) == 2
    err = capsys.readouterr().err
    assert "--capacity" in err and "'10Gbps', not '10gbps'" in err


def test_the_ns3_translator_has_no_unit_grammar_of_its_own():
    """It consumes the engine's resolved scenario (numbers in SI units), so it never parses a unit."""
    import inspect

    from bufferlab.validation import ns3sim

    source = inspect.getsource(ns3sim)
    assert "parse_rate" not in source and "_RATE_UNITS" not in source
