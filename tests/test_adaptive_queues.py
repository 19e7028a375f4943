"""The Optimal Drop-Tail and Optimal BLUE examples from Python: they run, conserve packets, report the adapted
parameter in `queue_state`, and save (the state stays out of ports.parquet)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import bufferlab

SHORT = ["duration=40s", "warmup=10s"]


@pytest.mark.parametrize("name,key,start", [("odt", "limit_bytes", 100e3), ("ob", "drop_probability", 0.002)])
def test_examples_adapt_their_parameter(name: str, key: str, start: float, tmp_path: Path) -> None:
    r = bufferlab.run(name, overrides=SHORT, progress=False)
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    state = r.ports.loc[0, "queue_state"]
    assert state["periods"] == 19  # 2 s periods from the first arrival
    assert state[key] != start
    # MIMD by 1.05 per period: within 19 steps of the start.
    assert start / 1.05**19 <= state[key] <= start * 1.05**19 * (1 + 1e-12)
    assert s["utilization"] > 0.9
    r.save(tmp_path)
    assert "queue_state" not in pd.read_parquet(tmp_path / "ports.parquet").columns
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["ports"][0]["queue_state"][key] == state[key]


def test_other_disciplines_report_nothing() -> None:
    r = bufferlab.run("droptail", overrides=["duration=3s", "warmup=1s"], progress=False)
    assert r.ports.loc[0, "queue_state"] == {}
