"""Scenario input of every kind, from files and from Python: one BufferLabError (exit 2 from the CLI) that
names the field or the file, never a traceback."""

from __future__ import annotations

import datetime
import decimal
import os
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

import bufferlab
from bufferlab import BufferLabError
from bufferlab.cli import main


def tiny() -> Dict[str, Any]:
    return {
        "duration": "1s", "warmup": "0.2s",
        "bottleneck": {"rate": "5Mbps", "delay": "2ms", "queue": {"discipline": "droptail", "limit": 20}},
        "flows": {"count": 2, "rtt": "20ms"},
    }


def cli_error(argv: list, capsys: pytest.CaptureFixture) -> str:
    """Run the CLI in-process; assert exit 2 and a one-line message; return it."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


# --- files ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_a_file_that_is_not_utf8_is_named(encoding: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.toml"
    path.write_text('name = "réseau"\nduration = "1s"\n', encoding=encoding)
    err = cli_error(["run", str(path)], capsys)
    assert f"scenario file {path}: not UTF-8 text" in err and "save it as UTF-8" in err


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_text('name = "bom"\nduration = "1s"\n', encoding="utf-8-sig")
    assert bufferlab.load_scenario(path)["name"] == "bom"


@pytest.mark.parametrize("value", ["[" * 2000 + "]" * 2000, "{a=" * 2000 + "1" + "}" * 2000])
def test_deep_nesting_in_a_file_is_malformed_toml(value: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(f"name = {value}\n")
    err = cli_error(["run", str(path)], capsys)
    assert f"{path}: malformed TOML: tables or lists nested too deeply" in err


def test_a_path_that_is_too_long_is_named_shortened(capsys) -> None:
    err = cli_error(["run", "x" * 300], capsys)
    assert "scenario file " + "x" * 77 + "...: File name too long" in err


def test_a_huge_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("bufferlab.simulate.MAX_SCENARIO_BYTES", 1000)
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * 2000 + "\n")
    err = cli_error(["run", str(path)], capsys)
    # A long path is shortened in the message (pytest-xdist's temporary paths are long).
    assert "scenario file /" in err and "big" in err and ": larger than 0 MB" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused(capsys) -> None:
    assert "scenario file /dev/zero: larger than 16 MB" in cli_error(["run", "/dev/zero"], capsys)


def test_a_directory_is_refused(tmp_path: Path, capsys) -> None:
    err = cli_error(["run", str(tmp_path)], capsys)
    assert f"cannot read scenario file {tmp_path}: Is a directory" in err


@pytest.mark.parametrize("line,field,message", [
    ("rate = nan", "bottleneck.rate", "must be a finite number, got nan"),
    ("rate = -inf", "bottleneck.rate", "must be a finite number, got -inf"),
    ("rate = 1979-05-27T07:32:00Z", "bottleneck.rate", "dates and times are not scenario values"),
])
def test_toml_values_json_cannot_carry_name_their_field(line: str, field: str, message: str, tmp_path: Path,
                                                        capsys) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f'duration = "1s"\n[bottleneck]\n{line}\n')
    assert f"{field}: {message}" in cli_error(["run", str(path)], capsys)


@pytest.mark.parametrize("override,message", [
    ("bottleneck.rate=inf", "bottleneck.rate: must be a finite number, got inf"),
    ("bottleneck.rate=nan", "bottleneck.rate: must be a finite number, got nan"),
    ("duration=1e400", "duration: must be a finite number, got inf"),
    ("duration=1979-05-27", "duration: dates and times are not scenario values"),
])
def test_set_values_json_cannot_carry_name_their_field(override: str, message: str, capsys) -> None:
    assert message in cli_error(["run", "droptail", "--set", override], capsys)


# --- Python values ---------------------------------------------------------------------------------------


def test_numpy_scalars_are_numbers() -> None:
    """The audit's E3: numpy.int64 from a sweep over np.arange was rejected without a field."""
    scenario = tiny()
    scenario["flows"]["count"] = np.int64(3)
    scenario["bottleneck"]["queue"]["limit"] = np.int32(25)
    scenario["warmup"] = np.float64(0.25)
    scenario["tcp"] = {"ecn": np.bool_(False)}
    resolved = bufferlab.resolve(scenario)
    assert len(resolved["groups"][0]["flows"]) == 3
    assert bufferlab.run(scenario, progress=False).summary["flows"] == 3


def test_resolve_without_per_flow_draws_gives_counts_and_the_same_rest() -> None:
    """``per_flow=False`` leaves out every flow's draws (a Python object per flow) and gives the count; the
    rest of the resolved scenario, the estimate and limits included, is the same; a bad field is refused
    the same way."""
    scenario = tiny()
    whole = bufferlab.resolve(scenario)
    brief = bufferlab.resolve(scenario, per_flow=False)
    assert brief["groups"][0]["flow_count"] == len(whole["groups"][0]["flows"]) == scenario["flows"]["count"]
    for group in whole["groups"]:
        del group["flows"]
    for group in brief["groups"]:
        del group["flow_count"]
    assert brief == whole
    scenario["flows"]["count"] = -1
    with pytest.raises(bufferlab.BufferLabError, match="flows.count"):
        bufferlab.resolve(scenario, per_flow=False)


@pytest.mark.parametrize("value,message", [
    ({1, 2}, "flows.rtt: expected a number, string, boolean, list or table, got set {1, 2}"),
    (b"50ms", "flows.rtt: expected a number, string, boolean, list or table, got bytes b'50ms'"),
    (decimal.Decimal("0.05"), "flows.rtt: expected a number, string, boolean, list or table, got Decimal"),
    (datetime.timedelta(milliseconds=50), "flows.rtt: expected a number, string, boolean, list or table, "
                                          "got timedelta"),
    (float("nan"), "flows.rtt: must be a finite number, got nan"),
    (np.float64("inf"), "flows.rtt: must be a finite number, got inf"),
    ([0.05, float("nan")], "flows.rtt[1]: must be a finite number, got nan"),
    (datetime.date(2026, 1, 1), "flows.rtt: dates and times are not scenario values"),
])
def test_values_a_scenario_cannot_hold_are_named(value: Any, message: str) -> None:
    scenario = tiny()
    scenario["flows"]["rtt"] = value
    for call in (bufferlab.run, bufferlab.resolve):
        with pytest.raises(BufferLabError) as info:
            call(scenario)
        assert message in str(info.value)


def test_a_key_that_is_not_a_string_is_named() -> None:
    scenario = tiny()
    scenario["flows"][("count", 1)] = 3
    with pytest.raises(BufferLabError, match=r"^flows: keys must be strings, got tuple \('count', 1\)$"):
        bufferlab.run(scenario)


def test_a_circular_reference_is_named() -> None:
    scenario = tiny()
    scenario["flows"]["again"] = scenario["flows"]
    with pytest.raises(BufferLabError, match=r"^flows.again: refers to itself \(a circular reference\)$"):
        bufferlab.run(scenario)


def test_deep_nesting_in_a_dict_is_named() -> None:
    scenario = tiny()
    node = scenario["flows"]
    for _ in range(100):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(BufferLabError, match=r"^flows(\.x)+: tables or lists nested more than 64 levels "
                                             r"deep$"):
        bufferlab.run(scenario)


@pytest.mark.parametrize("scenario,shown", [([1, 2], "list [1, 2]"), (None, "NoneType None"), (5, "int 5"),
                                            (b"droptail", "bytes b'droptail'")])
def test_a_scenario_of_the_wrong_type_is_named(scenario: Any, shown: str) -> None:
    for call in (bufferlab.run, bufferlab.resolve, bufferlab.load_scenario):
        with pytest.raises(BufferLabError, match=r"^scenario: expected a TOML file path, a built-in example "
                                                 r"name or a dict, got " + shown.replace("[", r"\[")
                                                 .replace("]", r"\]") + "$"):
            call(scenario)


def test_an_empty_scenario_name_is_named() -> None:
    with pytest.raises(BufferLabError, match="^scenario: empty name"):
        bufferlab.run("")


@pytest.mark.parametrize("overrides,message", [
    ([5], 'overrides[0]: expected a "key=value" string, got int 5'),
    (["flows.count=3", None], 'overrides[1]: expected a "key=value" string, got NoneType None'),
    (5, 'overrides: expected a list of "key=value" strings, got int 5'),
    ({"flows.count": 3}, 'overrides: expected a list of "key=value" strings, got dict'),
])
def test_overrides_of_the_wrong_type_are_named(overrides: Any, message: str) -> None:
    with pytest.raises(BufferLabError) as info:
        bufferlab.run(tiny(), overrides=overrides)
    assert str(info.value).startswith(message)


def test_a_single_override_string_is_one_override() -> None:
    assert bufferlab.run(tiny(), overrides="flows.count=3", progress=False).summary["flows"] == 3


def test_an_integer_beyond_any_float_is_named() -> None:
    scenario = tiny()
    scenario["seed"] = 10**400
    with pytest.raises(BufferLabError, match=r"^seed: must be a finite number, got an integer of 401 digits"):
        bufferlab.run(scenario)
    scenario["seed"] = 10**40  # read as the float 1e40, named by the engine's range check
    with pytest.raises(BufferLabError, match=r"^seed: "):
        bufferlab.run(scenario)
