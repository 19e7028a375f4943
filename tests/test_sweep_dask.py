"""Sweeps on a real ``dask.distributed`` cluster of worker processes: the same rows as a serial sweep, and a
worker killed in the middle of a sweep loses nothing."""

from __future__ import annotations

import os
import signal
import threading
import time

import pandas as pd
import pytest
from dask.distributed import Client, LocalCluster

import bufferlab

TINY = ['duration="0.5s"', 'warmup="0.1s"', 'bottleneck.rate="10Mbps"', "flows.count=5", "flows.start=0"]
LIMIT = "bottleneck.queue.limit"

#: Both tests start a cluster of worker processes (several seconds each).
pytestmark = pytest.mark.slow


def test_dask_local_rows_equal_serial_rows(tmp_path):
    grid = {LIMIT: "5..80:log:3", "tcp.sack": "true,false"}
    serial = bufferlab.sweep("droptail", grid, seeds=2, out=tmp_path / "serial", overrides=TINY, workers=1,
                             progress=False)
    on_dask = bufferlab.sweep("droptail", grid, seeds=2, out=tmp_path / "dask", overrides=TINY, workers=2,
                              dask="local", progress=False)
    assert len(serial) == 12 and on_dask.attrs["counts"]["ran"] == 12
    pd.testing.assert_frame_equal(serial.drop(columns="wall_s"), on_dask.drop(columns="wall_s"))


def test_a_killed_dask_worker_loses_nothing(tmp_path):
    out = tmp_path / "s"
    # About 0.1-0.3 s of engine time per run, so that runs are under way when the worker dies.
    slow = ['duration="60s"', 'warmup="1s"', "flows.start=0", "flows.count=20"]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        killed = []

        def kill_one_worker() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if (out / "runs").is_dir() and len(list((out / "runs").glob("*.json"))) >= 3:
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])
                    return
                time.sleep(0.01)

        killer = threading.Thread(target=kill_one_worker, daemon=True)
        killer.start()
        df = bufferlab.sweep("droptail", {LIMIT: "10..400:log:8"}, seeds=2, out=out, overrides=slow,
                             dask=cluster.scheduler_address, progress=False)
        killer.join(5)
        assert killed, "the sweep ended before a worker could be killed"
        # that worker process is gone (its nanny started another)
        assert pids[0] not in client.run(os.getpid).values()
    assert df.attrs["counts"]["ran"] == 16 and df.attrs["counts"]["failed"] == 0
    rows = pd.read_parquet(out / "results")
    assert len(rows) == 16 and rows["run_key"].is_unique and (rows["status"] == "ok").all()
    again = bufferlab.sweep("droptail", {LIMIT: "10..400:log:8"}, seeds=2, out=out, overrides=slow, workers=1,
                            progress=False)
    assert again.attrs["counts"]["ran"] == 0 and again.attrs["counts"]["skipped"] == 16
    pd.testing.assert_frame_equal(again.drop(columns="wall_s"), df.drop(columns="wall_s"))
