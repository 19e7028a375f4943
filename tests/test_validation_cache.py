"""ns-3 runs kept on disk (`<out>/runs/`): an interrupted `bufferlab validate` resumes without running them
again, and gives the report an uninterrupted one gives."""

from __future__ import annotations

import argparse
import json

import pytest

from bufferlab.commands import validate
from bufferlab.errors import BufferLabError
from bufferlab.validation import cache as cache_mod
from bufferlab.validation import compare, ns3sim
from bufferlab.validation.cache import Ns3RunCache

pytest.importorskip("pandas")
from test_validation_verdicts import SCENARIO, FakeSimulators, _alternating  # noqa: E402


class Counting(FakeSimulators):
    """The fake simulators, counting ns-3 runs and able to stop (as Ctrl-C would) at one seed."""

    def __init__(self, stop_at=None):
        super().__init__(_alternating(0.01), lambda seed: 0.95)
        self.ns3_seeds, self.stop_at = [], stop_at

    def ns3(self, sc):
        if sc["seed"] == self.stop_at:
            raise KeyboardInterrupt
        self.ns3_seeds.append(sc["seed"])
        return {**super().ns3(sc), "undefined": float("nan")}


def rows(comp):
    return [(r.metric, r.bufferlab, r.ns3, r.ci_low, r.ci_high, r.verdict, r.n_ns3) for r in comp.rows]


def test_an_interrupted_comparison_resumes_from_the_stored_runs(tmp_path):
    whole = compare.compare_replicated(SCENARIO, 4, **Counting().kwargs())
    assert whole.replications == 8  # four seeds, then two batches of two (test_validation_verdicts)

    store = Ns3RunCache(tmp_path / "runs")
    first = Counting(stop_at=6)
    with pytest.raises(KeyboardInterrupt):
        compare.compare_replicated(SCENARIO, 4, cache=store, **first.kwargs())
    assert first.ns3_seeds == [1, 2, 3, 4, 5]
    assert len(list((tmp_path / "runs" / "fake").glob("seed-*.json"))) == 5

    again = Counting()
    resumed = compare.compare_replicated(SCENARIO, 4, cache=Ns3RunCache(tmp_path / "runs"), **again.kwargs())
    assert again.ns3_seeds == [6, 7, 8] and again.seeds == list(range(1, 9))  # the engine always runs
    assert rows(resumed) == rows(whole) and resumed.verdict == whole.verdict
    stored = json.loads(next((tmp_path / "runs" / "fake").glob("seed-1-*.json")).read_text())
    assert stored["seed"] == 1 and stored["result"]["undefined"] is None  # strict JSON: no NaN


def test_a_changed_scenario_or_translator_runs_again(tmp_path, monkeypatch):
    store = Ns3RunCache(tmp_path / "runs")
    compare.compare_replicated(SCENARIO, 2, max_replications=2, cache=store, **Counting().kwargs())
    deeper = {**SCENARIO, "bottleneck": {**SCENARIO["bottleneck"],
                                         "queue": {"discipline": "droptail", "limit": 101}}}
    sims = Counting()
    compare.compare_replicated(deeper, 2, max_replications=2, cache=store, **sims.kwargs())
    assert sims.ns3_seeds == [1, 2]
    monkeypatch.setattr(cache_mod, "runner_fingerprint", lambda: "another translator")
    sims = Counting()
    compare.compare_replicated(SCENARIO, 2, max_replications=2, cache=store, **sims.kwargs())
    assert sims.ns3_seeds == [1, 2]


def test_fresh_runs_again_and_a_damaged_file_is_run_again(tmp_path):
    store = Ns3RunCache(tmp_path / "runs")
    compare.compare_replicated(SCENARIO, 2, max_replications=2, cache=store, **Counting().kwargs())
    sims = Counting()
    compare.compare_replicated(SCENARIO, 2, max_replications=2,
                               cache=Ns3RunCache(tmp_path / "runs", reuse=False), **sims.kwargs())
    assert sims.ns3_seeds == [1, 2]
    next((tmp_path / "runs" / "fake").glob("seed-2-*.json")).write_text('{"key": "')  # cut short
    sims = Counting()
    store = Ns3RunCache(tmp_path / "runs")
    compare.compare_replicated(SCENARIO, 2, max_replications=2, cache=store, **sims.kwargs())
    assert sims.ns3_seeds == [2] and store.hits == 1


def fake_validate(tmp_path, monkeypatch, **over):
    """`validate --ns3-only` arguments for a small scenario file, with ns-3 replaced by counting fakes."""
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: True)
    sims = Counting()
    monkeypatch.setattr(ns3sim, "run_ns3", sims.ns3)
    path = tmp_path / "fake.toml"
    path.write_text('name = "fake"\nseed = 1\nduration = "2s"\nwarmup = "1s"\n'
                    '[bottleneck]\nrate = "20Mbps"\ndelay = "5ms"\n'
                    'queue = { discipline = "droptail", limit = 100 }\n'
                    '[flows]\ncount = 4\nrtt = "100ms"\n')
    args = dict(scenarios=[str(path)], quick=False, out=str(tmp_path / "out"), ns3_only=True, isolate=False,
                replications=3, max_replications=None, time_budget=None, jobs=1, fresh=False, runs=None)
    return sims, argparse.Namespace(**{**args, **over})


def test_validate_reads_back_what_an_earlier_run_stored(tmp_path, monkeypatch, capsys):
    sims, args = fake_validate(tmp_path, monkeypatch)
    assert validate.handler(args) == 0
    assert sims.ns3_seeds == [1, 2, 3]
    report = (tmp_path / "out" / "report.md").read_text()
    assert validate.handler(args) == 0
    assert sims.ns3_seeds == [1, 2, 3] and "3 ns-3 runs read back" in capsys.readouterr().err
    strip = lambda text: [ln for ln in text.splitlines() if not ln.startswith("Generated ")]  # noqa: E731
    assert strip((tmp_path / "out" / "report.md").read_text()) == strip(report)
    assert validate.handler(argparse.Namespace(**{**vars(args), "fresh": True})) == 0
    assert sims.ns3_seeds == [1, 2, 3, 1, 2, 3]


def test_reports_that_share_a_runs_directory_share_their_runs(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared-runs"
    sims, args = fake_validate(tmp_path, monkeypatch, out=str(tmp_path / "a"), replications=2,
                               runs=str(shared))
    assert validate.handler(args) == 0
    more = argparse.Namespace(**{**vars(args), "out": str(tmp_path / "b"), "replications": 4})
    assert validate.handler(more) == 0
    assert sims.ns3_seeds == [1, 2, 3, 4]  # seeds 1 and 2 came from the first report's runs
    assert f"2 ns-3 runs read back from {shared}" in capsys.readouterr().err
    assert not (tmp_path / "a" / "runs").exists() and len(list(shared.glob("fake/seed-*.json"))) == 4


def test_a_runs_path_that_is_a_file_is_refused_and_a_failed_store_only_warns(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    with pytest.raises(BufferLabError, match=r"--runs: .*file is not a directory"):
        Ns3RunCache(tmp_path / "file")
    blocked = Ns3RunCache(tmp_path / "runs")
    (tmp_path / "runs").write_text("now a file")  # every store fails
    sims = Counting()
    comp = compare.compare_replicated(SCENARIO, 2, max_replications=2, cache=blocked, **sims.kwargs())
    assert comp.replications == 2 and sims.ns3_seeds == [1, 2] and blocked.store_failed
    assert capsys.readouterr().err.count("cannot store ns-3 runs") == 1


def test_the_key_covers_the_runner_and_ns3_not_the_translator_source():
    """A stored run's key holds its configuration and what turns it into a result: the runner's sources, the
    C++ monitor and ns-3's version, each of which changes it; the translator's source does not."""
    import ast
    from pathlib import Path

    from bufferlab.validation import ns3checks, ns3run

    sources = {"ns3run.py": Path(ns3run.__file__).read_bytes(),
               "ns3checks.py": Path(ns3checks.__file__).read_bytes(),
               "monitor.cc": ns3run.monitor_source().encode()}
    base = cache_mod.runner_fingerprint_of(sources, cache_mod.ns3_version())
    assert cache_mod.runner_fingerprint() == base
    for name in cache_mod.RUNNER_SOURCES:
        assert cache_mod.runner_fingerprint_of({**sources, name: sources[name] + b" "},
                                               cache_mod.ns3_version()) != base
    assert cache_mod.runner_fingerprint_of(sources, "3.45") != base
    # The runner takes from the translator only the translation itself (whose output the key holds).
    for module in (ns3run, ns3checks):
        tree = ast.parse(Path(module.__file__).read_text())
        used = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "bufferlab.validation.translate" for alias in node.names}
        assert used <= {"ScenarioLike", "load", "translate"}, module.__name__
