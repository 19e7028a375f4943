"""Ctrl-C: a run stops between two engine steps, says what was kept (nothing), exits 130 and writes
nothing; the steps do not change results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import bufferlab
from bufferlab import simulate

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

LONG = ["duration=100000s", "warmup=1s"]


def test_stepped_runs_equal_one_engine_call() -> None:
    """The steps sized by events (simulate._advance) give the results of a single advance to the end."""
    from bufferlab import _engine

    for name in ("droptail", "short-flows", "parking-lot"):
        spec = simulate.apply_overrides(simulate.load_scenario(name), ["duration=12s"])
        sim = _engine.Simulation(simulate._to_json(spec))
        sim.advance(sim.duration_s())
        text, flows, *_ = sim.finish()
        stepped = bufferlab.run(spec, progress=False)
        assert stepped.summary == json.loads(text)["summary"]
        pd.testing.assert_frame_equal(stepped.flows, simulate.engine_table(flows))


def interrupt_when_running() -> None:
    """SIGINT to this process once the engine's worker thread runs."""
    for _ in range(2000):
        if simulate.engine_running():
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGINT)
            return
        time.sleep(0.01)


def test_ctrl_c_in_python_raises_interrupted_and_stops_the_engine() -> None:
    threading.Thread(target=interrupt_when_running, daemon=True).start()
    with pytest.raises(simulate.Interrupted) as info:
        bufferlab.run("droptail", overrides=LONG, progress=False)
    assert isinstance(info.value, KeyboardInterrupt)
    assert 0 < info.value.simulated_s < info.value.duration_s == 100000
    assert "the run is discarded" in str(info.value)
    for _ in range(600):  # the worker stops after its current step (a guard, not a measurement)
        if not simulate.engine_running():
            break
        time.sleep(0.05)
    assert not simulate.engine_running()


@pytest.mark.slow
def test_ctrl_c_on_the_command_line_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["run", "droptail", "--quiet", "--out", str(out), *(a for kv in LONG for a in ("--set", kv))]
    proc = subprocess.Popen([sys.executable, "-m", "bufferlab", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(1200):  # the temporary directory appears just before the run starts
            if any(p.name.startswith(".out.") for p in tmp_path.iterdir()) or proc.poll() is not None:
                break
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bufferlab: interrupted at ")
    assert lines[0].endswith(f"of 100000 simulated s: the run is discarded; nothing was written to {out}")
    assert list(tmp_path.iterdir()) == []
