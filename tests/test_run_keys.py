"""The keys and files under which finished runs are kept (validate's ns-3 runs, the reproductions' and the
sweeps' engine runs) stay the same, so the runs stored by earlier versions are found again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bufferlab import batch
from bufferlab.reproduce import runner
from bufferlab.validation import cache
from bufferlab.validation.cache import Ns3RunCache

#: A small scenario whose ns-3 run key is pinned below (with a fixed translator fingerprint).
NS3_SCENARIO = {
    "name": "pinned run", "seed": 3, "duration": "10s", "warmup": "2s",
    "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 100}},
    "flows": {"count": 4, "rtt": "100ms"},
}
#: (Its configuration gained the translator's notes on tcp.recovery_exit and tcp.ecn_states, which this
#: scenario leaves at the RFCs' values; the validation scenarios set ns-3's and kept their keys.)
NS3_KEY = "9a94a9be4f1c602f6e7a98c994928891ea0541abea1741262bcf1f958b462567"


@pytest.fixture
def fixed_translator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "runner_fingerprint", lambda: "fixed translator")


def test_an_ns3_run_key_and_its_file(fixed_translator: None, tmp_path: Path) -> None:
    assert cache.run_key(NS3_SCENARIO) == NS3_KEY
    store = Ns3RunCache(tmp_path)
    assert store.entry(NS3_SCENARIO) == (NS3_KEY, tmp_path / "pinned_run" / f"seed-3-{NS3_KEY[:16]}.json")


def test_an_ns3_run_stored_before_is_read_back(fixed_translator: None, tmp_path: Path) -> None:
    path = tmp_path / "pinned_run" / f"seed-3-{NS3_KEY[:16]}.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"key": NS3_KEY, "scenario": "pinned run", "seed": 3,
                                "result": {"utilization": 0.9, "undefined": None}}))
    store = Ns3RunCache(tmp_path)
    assert store.get(NS3_SCENARIO) == {"utilization": 0.9, "undefined": None} and store.hits == 1
    path.write_text(json.dumps({"key": "another", "result": {}}))
    assert store.get(NS3_SCENARIO) is None
    assert store.put(NS3_SCENARIO, {"utilization": float("nan")}) == {"utilization": None}
    assert json.loads(path.read_text()) == {"key": NS3_KEY, "scenario": "pinned run", "seed": 3,
                                            "result": {"utilization": None}}


def test_a_reproduction_task_key_and_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = runner.Task(scenario={"duration": "1s", "flows": {"count": 2}}, seed=7, labels={"x": 1},
                       extract="m:f")
    assert task.key("1.0+abc") == "d50525274a86f4ea3dd22ca2"
    monkeypatch.setattr(runner, "engine_version", lambda: "1.0+abc")
    monkeypatch.setattr(runner, "run_one", lambda t: pytest.fail("a stored run ran again"))
    (tmp_path / "d50525274a86f4ea3dd22ca2.json").write_text(json.dumps({"seed": 7, "summary": {"sent": 5}}))
    assert runner.run_tasks([task], tmp_path) == [{"seed": 7, "summary": {"sent": 5}, "labels": {"x": 1}}]


def test_a_sweep_run_key_and_its_file(tmp_path: Path) -> None:
    from bufferlab.sweeps.store import Store  # noqa: PLC0415

    assert batch.content_key({"scenario": {"duration": "1s", "seed": 2}, "engine": "1.0+abc"}) == \
        "bfb944595649a8fb737c3c23"
    assert batch.content_key({"duration": "1s", "seed": 2}, 16) == "c5dc011a125f44fc"
    store = Store(tmp_path)
    store.runs.mkdir()
    record = {"run_key": "bfb944595649a8fb737c3c23", "status": "ok", "seed": 2, "params": {"a": 1},
              "summary": {"sent": 5}, "engine_version": "1.0+abc", "scenario_hash": "c5dc011a125f44fc"}
    (store.runs / "bfb944595649a8fb737c3c23.json").write_text(json.dumps(record))
    (store.runs / ".tmp-x.json").write_text("{")
    assert store.pending() == ["bfb944595649a8fb737c3c23"]
    assert store.done() == {"bfb944595649a8fb737c3c23": "pending"}
    store.write_run({**record, "run_key": "another"})
    assert json.loads((store.runs / "another.json").read_text())["run_key"] == "another"
    assert store.compact() == 2 and store.done() == {"bfb944595649a8fb737c3c23": "ok", "another": "ok"}
