"""Sweep throughput and overhead (docs/benchmarks.md, "Sweeps"). Never run by the tests.

    python scripts/bench_sweep.py [--quick] [--tiny-runs 10000] [--out DIR]

1. A 40-run sweep of runs of about 1 s of engine time (``droptail``, 500 s simulated: a 10-point grid of
   ``bottleneck.queue.limit`` x 4 seeds), serially (one process) and on the local pool (one worker per core),
   alternately, in the same session: the throughput ratio, and each run's overhead (the sweep's wall time
   less the engine time of its runs, per run).
2. A sweep of tiny runs (``--tiny-runs``, 20 ms simulated each) on the pool: its wall time, runs per second,
   and the time to load its dataset with pandas and with a pyarrow filter.
3. The parts of a run's overhead, each timed alone: a pool round trip of a function that does nothing,
   writing one run's record, compacting one record, and what ``bufferlab.run`` adds to the engine's time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow.dataset as ds

import bufferlab
from bufferlab import batch
from bufferlab.sweeps import plan, run_job
from bufferlab.sweeps.store import Store

LIMIT = "bottleneck.queue.limit"


def one_second_sweep(out: Path, workers: int, quick: bool) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    duration = "50s" if quick else "500s"
    started = time.perf_counter()
    df = bufferlab.sweep("droptail", {LIMIT: "50..2500:log:10"}, seeds=4, out=out, workers=workers,
                         overrides=[f'duration="{duration}"'], progress=False)
    wall = time.perf_counter() - started
    engine = float(df["wall_s"].sum())
    return {"workers": workers, "runs": len(df), "wall_s": wall, "engine_s": engine,
            "engine_per_run_s": engine / len(df), "runs_per_s": len(df) / wall,
            "overhead_per_run_s": (wall * workers - engine) / len(df)}


def tiny_sweep(out: Path, runs: int) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    seeds = max(1, runs // 100)
    started = time.perf_counter()
    df = bufferlab.sweep("droptail", {LIMIT: f"10..1000:lin:{runs // seeds}"}, seeds=seeds, out=out,
                         overrides=['duration="20ms"', "warmup=0", "flows.start=0", "flows.count=2"],
                         progress=False)
    wall = time.perf_counter() - started
    t0 = time.perf_counter()
    full = pd.read_parquet(out / "results")
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    some = ds.dataset(out / "results").to_table(filter=(ds.field(LIMIT) == 10) & (ds.field("seed") <= 3))
    filter_s = time.perf_counter() - t0
    # The same rows ten times over (new keys) as two 50,000-row parts: what a 100,000-run sweep reads.
    big = out.parent / "tiny-x10"
    shutil.rmtree(big, ignore_errors=True)
    (big / "results").mkdir(parents=True)
    copies = [full.assign(run_key=full["run_key"] + f"-{i}", seed=full["seed"] + 1000 * i) for i in range(10)]
    rows = pd.concat(copies, ignore_index=True)
    for n in range(2):
        part = big / "results" / f"part-{n:05d}.parquet"
        rows.iloc[n * 50_000:(n + 1) * 50_000].to_parquet(part, index=False)
    t0 = time.perf_counter()
    big_rows = len(pd.read_parquet(big / "results"))
    big_load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    big_some = pd.read_parquet(big / "results", columns=["utilization", LIMIT],
                               filters=[(LIMIT, "==", 10), ("seed", "<", 3)])
    big_filter_s = time.perf_counter() - t0
    return {"runs": len(df), "ok": int((df["status"] == "ok").sum()), "wall_s": wall,
            "x10_rows": big_rows, "x10_load_s": big_load_s, "x10_filtered_read_s": big_filter_s,
            "x10_filtered_rows": len(big_some),
            "runs_per_s": len(df) / wall, "engine_s": float(df["wall_s"].sum()), "load_s": load_s,
            "rows_loaded": len(full), "columns": full.shape[1], "filtered_read_s": filter_s,
            "filtered_rows": some.num_rows,
            "parts": len(list((out / "results").glob("part-*.parquet"))),
            "dataset_mb": sum(p.stat().st_size for p in (out / "results").iterdir()) / 1e6}


def _noop(x: int) -> int:
    return x


def components(root: Path, n: int = 2000) -> dict:
    items = [(str(i), i) for i in range(n)]
    with batch.Pool() as pool:
        list(pool.imap(_noop, items[:100]))  # workers started
        t0 = time.perf_counter()
        list(pool.imap(_noop, items))
        pool_s = (time.perf_counter() - t0) / n
    tiny = ['duration="20ms"', "warmup=0", "flows.start=0", "flows.count=2"]
    p = plan("droptail", {LIMIT: [10]}, overrides=tiny)
    job = {**p.jobs[0], "scenario": {**p.specs[0], "seed": 1}}
    record = run_job(job)
    store = Store(root / "components")
    shutil.rmtree(store.path, ignore_errors=True)
    store.prepare({"scenario_hash": "bench"})
    t0 = time.perf_counter()
    for i in range(n):
        store.write_run({**record, "run_key": f"{i:024x}"})
    write_s = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    store.compact()
    compact_s = (time.perf_counter() - t0) / n
    store.unlock()
    added = []
    for _ in range(200):
        t0 = time.perf_counter()
        res = bufferlab.run(job["scenario"], progress=False)
        added.append(time.perf_counter() - t0 - res.wall_s)
    t0 = time.perf_counter()
    for _ in range(200):
        run_job(job)
    job_s = (time.perf_counter() - t0) / 200
    return {"pool_round_trip_s": pool_s, "write_record_s": write_s, "compact_per_record_s": compact_s,
            "run_python_overhead_s": sorted(added)[len(added) // 2], "tiny_run_job_s": job_s}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="0.1 s runs and 500 tiny runs")
    ap.add_argument("--tiny-runs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2, help="alternations of serial and pool")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", choices=("one-second", "tiny", "components"), default=None)
    args = ap.parse_args()
    root = Path(args.out or tempfile.mkdtemp(prefix="bench-sweep-"))
    workers = os.cpu_count() or 1
    print(json.dumps({"cpus": workers, "load_before": os.getloadavg()}))
    if args.only in (None, "one-second"):
        for _ in range(args.repeat):
            for w in (1, workers):
                r = one_second_sweep(root / f"one-{w}", w, args.quick)
                print(json.dumps({"sweep": "1-second runs", **r, "load": os.getloadavg()}), flush=True)
    if args.only in (None, "tiny"):
        tiny = tiny_sweep(root / "tiny", 500 if args.quick else args.tiny_runs)
        print(json.dumps({"sweep": "tiny runs", **tiny, "load": os.getloadavg()}), flush=True)
    if args.only in (None, "components"):
        print(json.dumps({"overhead parts": components(root), "load": os.getloadavg()}), flush=True)
    if args.out is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
