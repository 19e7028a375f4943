"""`bufferlab validate --jobs N`: ns-3 runs in worker processes give the numbers of runs in this process."""

from __future__ import annotations

import argparse

import pytest

from bufferlab.commands import validate
from bufferlab.errors import BufferLabError
from bufferlab.validation import compare, ns3sim
from bufferlab.validation.cache import Ns3RunCache
from bufferlab.validation.pool import Ns3Pool, check_jobs

#: What differs between two runs of one scenario: how long they took.
TIMINGS = ("wall_s", "cpu_s", "setup_s")


def small(seed: int = 1, **over):
    """A short RED scenario (RED and the start times draw random numbers, so seeds and streams matter)."""
    sc = {
        "name": "pool", "seed": seed, "duration": "3s", "warmup": "1s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms",
                       "queue": {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 15}},
        "flows": {"count": 3, "rtt": {"uniform": ["20ms", "80ms"]}, "start": {"uniform": ["0s", "0.5s"]}},
        "tcp": {"packet_size": "1000B", "header_size": "40B", "overhead": "0.8ms"},
    }
    sc.update(over)
    return sc


def same_run(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key not in TIMINGS and key != "ns3_config":
            assert a[key] == b[key], key


@pytest.mark.parametrize("jobs", [0, -2, True, 1.5, "2"])
def test_jobs_must_be_a_whole_number_of_at_least_one(jobs):
    with pytest.raises(BufferLabError, match=r"--jobs must be a whole number >= 1"):
        check_jobs(jobs)
    with pytest.raises(BufferLabError, match=r"--jobs"):
        Ns3Pool(jobs)
    assert check_jobs(3) == 3


def test_validate_rejects_bad_jobs_before_running(tmp_path, monkeypatch):
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: True)
    args = argparse.Namespace(scenarios=[], quick=True, out=str(tmp_path), ns3_only=False, isolate=False,
                              replications=None, max_replications=None, time_budget=None, jobs=0)
    with pytest.raises(BufferLabError, match=r"--jobs must be a whole number >= 1 \(got 0\)"):
        validate.handler(args)
    assert not (tmp_path / "report.md").exists()


@pytest.mark.slow
def test_workers_give_the_numbers_of_this_process_in_any_order():
    pytest.importorskip("ns")
    seeds = [1, 2, 3, 4]
    with Ns3Pool(2) as pool:
        futures = {s: pool.submit(small(s)) for s in reversed(seeds)}
        pooled = {s: f.result() for s, f in futures.items()}
        assert len(pool._workers) == 2  # reused: one per job, not one per run
    here = {s: ns3sim.run_ns3(small(s)) for s in seeds}
    for s in seeds:
        same_run(pooled[s], here[s])
    assert pooled[1]["drops_early"] > 0 and pooled[1]["events"] != pooled[2]["events"]


@pytest.mark.slow
def test_a_failed_run_names_its_cause_and_the_pool_goes_on():
    pytest.importorskip("ns")
    with Ns3Pool(1) as pool:
        bad = pool.submit(small(bottleneck={"rate": "10Mbps", "delay": "5ms",
                                            "queue": {"discipline": "blue", "limit": 60}}))
        with pytest.raises(BufferLabError, match="blue"):
            bad.result()
        first = pool.submit(small(1)).result()
        dead = pool._workers[-1].proc
        dead.kill()  # a worker that died between runs is replaced
        dead.wait()
        again = pool.submit(small(1)).result()
        same_run(first, again)
    with pytest.raises(BufferLabError, match="closed"):
        pool.submit(small(1))


@pytest.mark.slow
def test_replicated_comparison_is_the_same_with_a_pool_and_with_stored_runs(tmp_path):
    pytest.importorskip("ns")
    sc = small(5)
    alone = compare.compare_replicated(sc, 3, max_replications=3)
    with Ns3Pool(2) as pool:
        pooled = compare.compare_replicated(sc, 3, max_replications=3, pool=pool,
                                            cache=Ns3RunCache(tmp_path))
    store = Ns3RunCache(tmp_path)
    read_back = compare.compare_replicated(sc, 3, max_replications=3, cache=store)
    assert store.hits == 3 and len(list(tmp_path.glob("pool/seed-*.json"))) == 3
    assert pooled.replications == alone.replications == read_back.replications == 3
    for comp in (pooled, read_back):
        assert [(r.metric, r.bufferlab, r.ns3, r.ci_low, r.ci_high, r.verdict) for r in comp.rows] == \
            [(r.metric, r.bufferlab, r.ns3, r.ci_low, r.ci_high, r.verdict) for r in alone.rows]
        assert comp.ns3_goodput == alone.ns3_goodput


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_keeps_finished_runs_and_a_second_run_resumes(tmp_path):
    pytest.importorskip("ns")
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "pool.toml"
    path.write_text(
        'name = "pool"\nseed = 1\nduration = "20s"\nwarmup = "1s"\n'
        '[bottleneck]\nrate = "10Mbps"\ndelay = "5ms"\n'
        'queue = { discipline = "red", limit = 60, min_th = 5, max_th = 15 }\n'
        '[flows]\ncount = 3\nrtt = { uniform = ["20ms", "80ms"] }\nstart = { uniform = ["0s", "0.5s"] }\n')
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "bufferlab", "validate", str(path), "--out", str(out), "--jobs", "2",
           "--replications", "8", "--ns3-only"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    runs = out / "runs" / "pool"
    deadline = time.monotonic() + 300
    while not list(runs.glob("seed-*.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C at a terminal: the validate process and its workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and not (out / "report.md").exists()
    kept = sorted(runs.glob("seed-*.json"))
    assert 1 <= len(kept) < 8
    assert all(json.loads(p.read_text())["result"]["events"] > 0 for p in kept)
    # No worker outlived it: nothing of the process group is left.
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} ns-3 runs read back" in again.stderr
    assert len(list(runs.glob("seed-*.json"))) == 8 and (out / "report.md").exists()
