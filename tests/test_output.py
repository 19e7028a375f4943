"""`--out` and `Results.save`: checked before the run, written whole or not at all, never mixed with an
earlier run, strict JSON (`null` for undefined values); a closed standard output ends the command quietly."""

from __future__ import annotations

import errno
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bufferlab
from bufferlab.cli import main
from bufferlab.simulate import Results

TINY = """
name = "tiny"
duration = "1s"
warmup = "0.2s"
[bottleneck]
rate = "5Mbps"
delay = "2ms"
queue = { discipline = "droptail", limit = 20 }
[flows]
count = 2
rtt = "20ms"
"""

MONITORED = TINY.replace('name = "tiny"', 'name = "monitored"') + """
[monitor]
sample_interval = "100ms"
cwnd = true
"""


def strict_json(text: str) -> dict:
    """Parse as strict JSON: NaN, Infinity and -Infinity are errors, as in every non-Python parser."""
    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


@pytest.fixture()
def no_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a simulation starts: the output checks must come first."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the simulation ran before the output directory was checked")

    monkeypatch.setattr("bufferlab.commands.run.run", refuse)


def leftovers(parent: Path) -> list:
    """Temporary directories of the output writer left in ``parent``."""
    return sorted(p.name for p in parent.iterdir()
                  if p.name.startswith(".") and p.name.endswith((".tmp", ".old")))


def test_empty_out_is_refused_naming_the_option(tiny: Path, no_simulation: None, capsys) -> None:
    assert main(["run", str(tiny), "--out", "", "--quiet"]) == 2
    assert "--out: empty path" in capsys.readouterr().err


def test_force_without_out_is_refused(tiny: Path, no_simulation: None, capsys) -> None:
    assert main(["run", str(tiny), "--force", "--quiet"]) == 2
    assert "--force: only with --out DIR" in capsys.readouterr().err


def test_out_that_is_a_file_is_refused_before_the_run(tiny: Path, no_simulation: None, capsys) -> None:
    assert main(["run", str(tiny), "--out", str(tiny), "--quiet"]) == 2
    assert f"--out {tiny}: exists and is not a directory" in capsys.readouterr().err


def test_unwritable_place_is_refused_before_the_run(tiny: Path, tmp_path: Path, no_simulation: None,
                                                     monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def denied(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("bufferlab.output.tempfile.mkdtemp", denied)
    out = tmp_path / "ro" / "out"
    assert main(["run", str(tiny), "--out", str(out), "--quiet"]) == 2
    assert f"--out {out}: cannot write in {out.parent}: Permission denied" in capsys.readouterr().err
    assert not out.exists()


def test_results_json_that_is_a_directory_is_refused_before_the_run(tiny: Path, tmp_path: Path,
                                                                     no_simulation: None, capsys) -> None:
    out = tmp_path / "out"
    (out / "results.json").mkdir(parents=True)
    for args in ([], ["--force"]):
        assert main(["run", str(tiny), "--out", str(out), "--quiet", *args]) == 2
        assert "holds more than a BufferLab run (results.json)" in capsys.readouterr().err
    assert (out / "results.json").is_dir()


def test_a_directory_with_other_files_is_never_replaced(tiny: Path, tmp_path: Path, no_simulation: None,
                                                        capsys) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main(["run", str(tiny), "--out", str(out), "--force", "--quiet"]) == 2
    assert "not empty and holds more than a BufferLab run (notes.txt)" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "keep me"


def test_an_earlier_run_is_refused_then_replaced_whole_with_force(tiny: Path, tmp_path: Path, capsys) -> None:
    monitored = tmp_path / "monitored.toml"
    monitored.write_text(MONITORED)
    out = tmp_path / "out"
    assert main(["run", str(monitored), "--out", str(out), "--quiet"]) == 0
    assert {"queue_series.parquet", "cwnd_series.parquet"} <= {p.name for p in out.iterdir()}
    capsys.readouterr()

    assert main(["run", str(tiny), "--out", str(out), "--quiet"]) == 2
    assert "holds an earlier run's results; give --force" in capsys.readouterr().err
    assert strict_json((out / "results.json").read_text())["summary"]["name"] == "monitored"

    assert main(["run", str(tiny), "--out", str(out), "--force", "--quiet"]) == 0
    names = {p.name for p in out.iterdir()}
    assert "queue_series.parquet" not in names and "cwnd_series.parquet" not in names
    assert strict_json((out / "results.json").read_text())["summary"]["name"] == "tiny"
    assert leftovers(tmp_path) == []


def test_an_empty_directory_is_filled(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    assert main(["run", str(tiny), "--out", str(out), "--quiet"]) == 0
    assert (out / "results.json").is_file()


@pytest.mark.parametrize("failing", ["results.json", "flows.parquet"])
def test_a_full_disk_leaves_nothing_behind(failing: str, tiny: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A write that fails half-way (here: the disk fills up) removes everything; an earlier run replaced
    with --force stays as it was."""
    out = tmp_path / "out"
    assert main(["run", str(tiny), "--out", str(out), "--quiet"]) == 0
    before = (out / "results.json").read_text()
    write_text, to_parquet = Path.write_text, pd.DataFrame.to_parquet

    def full_text(self: Path, data: str, *args: object, **kwargs: object) -> int:
        if self.name == failing:
            write_text(self, data[: len(data) // 2])  # a truncated file, then the error
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_text(self, data, *args, **kwargs)

    def full_parquet(frame: pd.DataFrame, path: object, *args: object, **kwargs: object) -> None:
        if Path(str(path)).name == failing:
            raise OSError(errno.ENOSPC, "No space left on device")
        to_parquet(frame, path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_text)
    monkeypatch.setattr(pd.DataFrame, "to_parquet", full_parquet)
    fresh = tmp_path / "fresh"
    assert main(["run", str(tiny), "--out", str(fresh), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"--out {fresh}: cannot write {failing}: No space left on device; nothing was written" in err
    assert "Traceback" not in err
    assert not fresh.exists()

    assert main(["run", str(tiny), "--out", str(out), "--force", "--quiet"]) == 1
    assert (out / "results.json").read_text() == before
    assert leftovers(tmp_path) == []


def test_save_from_python_refuses_an_earlier_run_unless_forced(tmp_path: Path) -> None:
    r = bufferlab.run(TINY_DICT, progress=False)
    r.save(tmp_path / "a")
    with pytest.raises(bufferlab.BufferLabError, match="out_dir .*holds an earlier run's results"):
        r.save(tmp_path / "a")
    assert {p.name for p in r.save(tmp_path / "a", force=True)} >= {"results.json", "flows.parquet"}


TINY_DICT = {
    "duration": "1s", "warmup": "0.2s",
    "bottleneck": {"rate": "5Mbps", "delay": "2ms", "queue": {"discipline": "droptail", "limit": 20}},
    "flows": {"count": 2, "rtt": "20ms"},
}


def test_a_flow_without_an_rtt_sample_is_null_in_results_json(tmp_path: Path) -> None:
    """The audit's D4: a flow that starts at the end never gets an RTT sample; its srtt_s was a bare NaN."""
    scenario = {**TINY_DICT, "flows": {"count": 2, "rtt": "20ms", "start": ["0s", "1s"]}}
    r = bufferlab.run(scenario, progress=False)
    assert math.isnan(r.flows["srtt_s"][1])
    r.save(tmp_path / "out")
    data = strict_json((tmp_path / "out" / "results.json").read_text())
    assert data["flows"][1]["srtt_s"] is None and data["flows"][0]["srtt_s"] > 0


def test_every_undefined_value_is_null_in_every_table(tmp_path: Path) -> None:
    nan, inf = float("nan"), float("inf")
    frame = pd.DataFrame({"a": [1.0, nan], "b": [np.float64(inf), -inf], "c": [{"x": nan}, {"x": 1}]})
    r = Results(summary={"utilization": nan, "loss_rate": np.float64(nan), "n": np.int64(3)},
                flows=frame, udp=frame, queue_series=pd.DataFrame(), cwnd_series=pd.DataFrame(),
                scenario={"x": [nan]}, ports=frame, groups=frame, fct=frame)
    r.save(tmp_path / "out")
    data = strict_json((tmp_path / "out" / "results.json").read_text())
    assert data["summary"] == {"utilization": None, "loss_rate": None, "n": 3, "wall_s": 0.0}
    for table in ("ports", "groups", "flows", "fct", "udp"):
        assert data[table] == [{"a": 1.0, "b": None, "c": {"x": None}}, {"a": None, "b": None, "c": {"x": 1}}]
    assert data["scenario"] == {"x": [None]}


def test_json_summary_on_stdout_is_strict(tiny: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = bufferlab.simulate.run

    def undefined(*args: object, **kwargs: object) -> Results:
        r = real_run(*args, **kwargs)
        r.summary["utilization"] = float("nan")
        return r

    monkeypatch.setattr("bufferlab.commands.run.run", undefined)
    assert main(["run", str(tiny), "--json", "--quiet"]) == 0
    assert strict_json(capsys.readouterr().out)["utilization"] is None


def test_the_text_summary_shows_undefined_metrics_as_a_dash(tiny: Path, capsys,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's A3: an empty measurement window gave None metrics and a TypeError in the CLI."""
    real_run = bufferlab.simulate.run

    def empty_window(*args: object, **kwargs: object) -> Results:
        r = real_run(*args, **kwargs)
        for key in ("utilization", "throughput_bps", "goodput_bps", "jain_index", "delay_mean_s"):
            r.summary[key] = None
        r.summary["loss_rate"] = float("nan")
        return r

    monkeypatch.setattr("bufferlab.commands.run.run", empty_window)
    assert main(["run", str(tiny), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text.lower()
    lines = {line.split("  ")[1].strip(): line.rsplit("  ", 1)[-1].strip()
             for line in text.splitlines()[1:] if line.startswith("  ")}
    assert lines["utilization"] == "-" and lines["loss rate"] == "-" and lines["Jain's fairness index"] == "-"


# --- closed standard output ------------------------------------------------------------------------------


class ClosedPipe:
    """A standard output whose reader has gone away (``bufferlab run X --json | head -1``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise OSError("no file descriptor")


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_closed_stdout_ends_quietly_and_still_writes_out(json_flag: list, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    out = tmp_path / "out"
    argv = ["run", "droptail", "--set", "duration=2.5s", "--set", "warmup=2s", "--quiet", "--out", str(out)]
    assert main(argv + json_flag) == 141
    assert capsys.readouterr().err == ""
    assert (out / "results.json").is_file()


def test_a_closed_pipe_in_a_real_process_is_quiet(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "bufferlab", "run", "droptail", "--set", "duration=2.5s",
                             "--set", "warmup=2s", "--json", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader goes away before the first line is written
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141
    assert err == b""
