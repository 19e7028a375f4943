"""`bufferlab run`: the summary, the files it writes, and one clear message for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bufferlab.cli import main

SMALL = """
name = "cli-small"
duration = "6s"
warmup = "1s"
[bottleneck]
rate = "10Mbps"
delay = "5ms"
[bottleneck.queue]
discipline = "droptail"
limit = 30
[flows]
count = 4
rtt = "60ms"
[monitor]
sample_interval = "50ms"
"""


@pytest.fixture()
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def test_run_prints_a_summary_and_writes_results(scenario: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "cli-small: 4 flows" in text and "utilization" in text and "conservation" in text
    data = json.loads((out / "results.json").read_text())
    assert data["scenario"]["name"] == "cli-small"
    assert (out / "queue_series.parquet").exists() and (out / "flows.parquet").exists()


def test_set_overrides_fields_and_json_output(scenario: Path, capsys) -> None:
    assert main(["run", str(scenario), "--set", "flows.count=2", "--set", "tcp.delayed_ack=true",
                 "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["flows"] == 2


def test_builtin_examples_resolve_by_name() -> None:
    from bufferlab.simulate import examples, load_scenario

    assert {"droptail", "red-ecn", "red-drop"} <= set(examples())
    for name in examples():
        assert load_scenario(name)["duration"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["run", "no/such/file.toml"], "scenario file not found"),
        (["run", "{scenario}", "--set", "bottleneck.queue.discipline=bogus"], "unknown discipline \"bogus\""),
        (["run", "{scenario}", "--set", "bottleneck.rate=-1"], "bottleneck.rate: must be in"),
        (["run", "{scenario}", "--set", "bottleneck.queue.limit=0"], "queue.limit: must be in [1, 2^40]"),
        (["run", "{bad_toml}"], "malformed TOML"),
        (["run", "{scenario}", "--set", "novalue"], "--set expects key=value"),
        (["run", "{scenario}", "--set", "tcp.speed=1"], "unknown field \"speed\""),
        (["run", "{scenario}", "--set", "flows[0].count=5"],
         "--set flows[0].count=5: flows is a table ([flows]), not a list of tables ([[flows]]); name its "
         "field as flows.count"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_clear_line_and_exit_2(args, message, scenario: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = \n[bottleneck")
    argv = [a.format(scenario=scenario, bad_toml=bad) for a in args]
    proc = subprocess.run([sys.executable, "-m", "bufferlab", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_bench_reports_speed(capsys) -> None:
    assert main(["bench", "--duration", "1s", "--flows", "50", "--repeat", "1", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["bottleneck_packets"] > 0 and m["s_per_million_packets"] > 0 and m["peak_rss_mb"] > 0
