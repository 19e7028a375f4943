"""Parameter sweeps: every combination of swept scenario keys over seeds, run on a local pool or a Dask
cluster, each run kept as it ends, resumable, one Parquet dataset (``docs/sweeps.md``).

``bufferlab.sweep(scenario, grid={...}, seeds=K, out=DIR)`` returns the rows as a DataFrame;
``bufferlab sweep`` is the command. The grammar of values is in :mod:`bufferlab.sweeps.grid`, the
directory's layout in :mod:`bufferlab.sweeps.store`, where runs execute in :mod:`bufferlab.batch`.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from bufferlab.batch import Backend, content_key, engine_version, make_backend
from bufferlab.errors import BufferLabError, OutputError
from bufferlab.jsonout import json_ready
from bufferlab.simulate import ScenarioLike, apply_overrides, load_scenario, resolve, set_field
from bufferlab.sweeps.grid import Axis, check_runs, column_kind, make_axis, points, typed_column, zip_axes
from bufferlab.sweeps.store import UNREADABLE, Store

__all__ = ["sweep", "load", "run_job", "Plan", "Specs", "plan"]

#: Wall seconds spent checking combinations with the engine's resolver before the runs start; the
#: combinations not reached by then are checked when they run (a refused one is a failed row either way).
VALIDATE_BUDGET_S = 10.0

#: Finished runs between two compactions of ``runs/`` into the dataset during a long sweep.
COMPACT_EVERY = 10_000

#: Group and port columns that are labels or lists, not figures.
_NOT_FIGURES = frozenset(["group", "name", "congestion_control", "route", "ack_route", "port", "discipline",
                          "drop_reasons", "mark_reasons", "queue_state"])


@dataclass
class Plan:
    """A sweep, expanded: the base scenario, axes, points (combinations), seeds and every run's job."""

    base: Dict[str, Any]
    axes: List[Axis]
    points: List[Dict[str, Any]]
    seeds: List[int]
    jobs: List[Dict[str, Any]] = field(default_factory=list)  # run_key, point, seed, params, scenario_hash
    specs: Sequence[Dict[str, Any]] = field(default_factory=list)  # each point's scenario (without its seed)
    invalid: Dict[int, str] = field(default_factory=dict)  # point -> the resolver's message
    checked: int = 0  # points checked before the runs


class Specs(Sequence):
    """Each point's scenario (without its seed), built when asked for (``specs[i]``): a copy of the base with
    the point's values set. Nothing is kept, so a sweep of a million combinations holds one at a time."""

    def __init__(self, base: Dict[str, Any], pts: List[Dict[str, Any]]) -> None:
        self.base, self.points = base, pts

    def __len__(self) -> int:
        return len(self.points)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.build(i)[0]

    def build(self, i: int) -> Tuple[Dict[str, Any], Optional[str]]:
        """Point ``i``'s scenario and, when a value cannot be set (``--grid flows[3].count`` with two
        groups), the message; the scenario then holds the values set before it."""
        spec = copy.deepcopy(self.base)
        try:
            for key, value in self.points[i].items():
                set_field(spec, _path(key), copy.deepcopy(value), f"--grid {key}")
        except BufferLabError as exc:
            return spec, str(exc)
        return spec, None


def _seeds(seeds: Union[int, Sequence[int]], base: Dict[str, Any]) -> List[int]:
    if isinstance(seeds, bool):
        raise BufferLabError(f"--seeds: expected a whole number >= 1, got {seeds!r}")
    if isinstance(seeds, int):
        if not 1 <= seeds <= 1_000_000:
            raise BufferLabError(f"--seeds: expected a whole number in [1, 1,000,000], got {seeds}")
        first = base.get("seed", 1)
        if not isinstance(first, int) or isinstance(first, bool) or first < 0:
            first = 1
        return [first + i for i in range(seeds)]
    out = list(seeds)
    if not out or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in out):
        raise BufferLabError(f"seeds: expected a count or a list of whole numbers >= 0, got {seeds!r}")
    if len(set(out)) != len(out):
        raise BufferLabError("seeds: a seed is given twice")
    return out


def plan(scenario: ScenarioLike, grid: Optional[Mapping[str, Any]] = None,
         zip: Optional[Sequence[Any]] = None, seeds: Union[int, Sequence[int]] = 1,  # noqa: A002
         overrides: Iterable[str] = (), validate: bool = True, jobs: bool = True) -> Plan:
    """Expand a sweep without running it: axes, points, seeds, jobs, and the combinations the engine's
    resolver refuses (checked for up to :data:`VALIDATE_BUDGET_S` seconds). More than
    :data:`~bufferlab.sweeps.grid.MAX_RUNS` runs are refused before the combinations are enumerated.
    ``jobs=False`` (``--dry-run``) leaves the jobs out and looks only at the combinations it checks."""
    base = apply_overrides(load_scenario(scenario), overrides)
    axes: List[Axis] = []
    if grid is not None and not isinstance(grid, Mapping):
        raise BufferLabError(f"grid: expected a mapping key -> values, got {type(grid).__name__}")
    for n, (key, values) in enumerate((grid or {}).items()):
        axes.append(make_axis(key, values, group=n))
    for n, group in enumerate(zip or []):
        axes.extend(zip_axes(group, group=len(axes) + 1000 + n))
    traced = [a.key for a in axes if a.key.split(".")[0].split("[")[0] == "trace"]
    if base.get("trace") is not None or traced:
        raise BufferLabError(f"{traced[0] if traced else 'trace'}: a sweep keeps no traces (every run would "
                             "write the same pcap, and event records are not in its dataset); remove [trace] "
                             "and trace one combination with bufferlab run --pcap or --report")
    seed_list = _seeds(seeds, base)
    check_runs(axes, len(seed_list))
    pts = points(axes)
    specs = Specs(base, pts)
    p = Plan(base, axes, pts, seed_list, specs=specs)
    if validate:
        started = time.perf_counter()
        for i in range(len(pts)):
            if time.perf_counter() - started > VALIDATE_BUDGET_S:
                break
            p.checked = i + 1
            spec, error = specs.build(i)
            if error is not None:
                p.invalid[i] = error
                continue
            try:
                resolve({**spec, "seed": p.seeds[0]}, per_flow=False)
            except BufferLabError as exc:
                p.invalid[i] = str(exc)
        if pts and p.checked == len(pts) and len(p.invalid) == len(pts):
            first = p.invalid[0]
            raise BufferLabError(first if len(pts) == 1
                                 else f"every combination is refused; the first: {first}")
    if not jobs:
        return p
    kinds = {a.key: column_kind(a.values) for a in axes}
    version = engine_version()
    for i, point in enumerate(pts):
        spec, error = specs.build(i)
        if error is not None:
            p.invalid.setdefault(i, error)
        params = {k: typed_column(v, kinds[k]) for k, v in point.items()}
        for seed in p.seeds:
            scen = {**spec, "seed": seed}
            p.jobs.append({"run_key": content_key({"scenario": scen, "engine": version}), "point": i,
                           "seed": seed, "params": params, "scenario_hash": content_key(scen, 16)})
    return p


def _path(key: str) -> List[str]:
    return key.split(".")


def run_job(job: Dict[str, Any]) -> Dict[str, Any]:
    """Run one job (in a worker; a job of the plan with its ``scenario``, ``per_flow`` and ``series``): its
    record, ``status`` ``"ok"`` or ``"failed"`` with the error's
    message. Module-level so worker processes and Dask workers import it."""
    import bufferlab  # noqa: PLC0415

    record: Dict[str, Any] = {k: job[k] for k in ("run_key", "seed", "params", "scenario_hash")}
    record.update(status="ok", error=None, engine_version=engine_version())
    try:
        res = bufferlab.run(job["scenario"], progress=False)
    except BufferLabError as exc:
        return {**record, "status": "failed", "error": str(exc)}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # an engine fault (also a Rust panic) is this run's failure, not the sweep's
        return {**record, "status": "failed", "error": f"{type(exc).__name__}: {exc}"}
    record["summary"] = dict(res.summary)
    record["wall_s"] = res.wall_s
    for kind, frame, label in (("groups", res.groups, "name"), ("ports", res.ports, "name")):
        record[kind] = {str(row[label]): {k: v for k, v in row.items() if k not in _NOT_FIGURES
                                          and not isinstance(v, (list, dict))}
                        for row in frame.to_dict(orient="records")} if len(frame) else {}
    if job.get("per_flow"):
        record["flows"] = res.flows.to_dict(orient="list")
    if job.get("series"):
        series = res.queue_series
        if len(res.cwnd_series):
            series = pd.concat([series, res.cwnd_series.drop(columns=["time_s"])], axis=1)
        record["series"] = series.to_dict(orient="list")
    return json_ready(record)


def _failed_record(job: Dict[str, Any], error: str) -> Dict[str, Any]:
    return {**{k: job[k] for k in ("run_key", "seed", "params", "scenario_hash")},
            "status": "failed", "error": error, "engine_version": engine_version()}


class _Progress:
    """A tqdm bar over the runs to do (done, failed, ETA), on a terminal unless turned off."""

    def __init__(self, total: int, enabled: Optional[bool]) -> None:
        from tqdm import tqdm  # noqa: PLC0415

        show = enabled if enabled is not None else sys.stderr.isatty()
        self.bar = tqdm(total=total, unit="run", desc="sweep", disable=not show, leave=False,
                        dynamic_ncols=True)

    def update(self, failed: int) -> None:
        self.bar.set_postfix_str(f"{failed} failed", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def sweep(scenario: ScenarioLike, grid: Optional[Mapping[str, Any]] = None, *,
          out: Union[str, Path], zip: Optional[Sequence[Any]] = None,  # noqa: A002
          seeds: Union[int, Sequence[int]] = 1, workers: Optional[int] = None, dask: Optional[str] = None,
          overrides: Iterable[str] = (), per_flow: bool = False, series: bool = False,
          progress: Optional[bool] = None, force: bool = False, retry_failed: bool = False,
          validate: bool = True, report: Optional[Callable[[str], None]] = None,
          out_field: str = "--out") -> pd.DataFrame:
    """Run every combination of ``grid`` (key → values: a list, or a string in the grammar of
    :mod:`bufferlab.sweeps.grid` such as ``"10..200:log:8"``) and of each ``zip`` group (keys varied
    together) over ``seeds`` (a count from the scenario's seed, or a list), keeping each run in ``out`` as it
    ends; runs already there are skipped, so the same call resumes an interrupted sweep. ``workers`` local
    processes (default one per core), or ``dask``: a scheduler address or ``"local"``. Returns one row per
    run of this sweep (columns: ``docs/sweeps.md``), in the order of the combinations, then seeds;
    ``df.attrs["counts"]`` says how many ran, were skipped as done, and failed. A run that fails (a refused
    combination, an engine error) is a row with ``status = "failed"`` and its ``error``; the others go on.
    Ctrl-C keeps every finished run. ``out_field`` is how messages name ``out`` (``--verify-out`` when
    ``bufferlab advise --verify`` sweeps).
    """
    p = plan(scenario, grid, zip, seeds, overrides, validate)
    store = Store(Path(out), field=out_field)
    definition = {
        "scenario_hash": content_key(p.base, 16), "engine_version": engine_version(),
        "per_flow": bool(per_flow), "series": bool(series), "base": p.base, "seeds": p.seeds,
        "axes": [{"key": a.key, "values": a.values, "log": a.log, "zip": a.group >= 1000,
                  "kind": column_kind(a.values), "ranges": a.ranges} for a in p.axes],
    }
    store.prepare(json_ready(definition), force=force)
    try:
        counts = _execute(p, store, workers=workers, dask=dask, per_flow=per_flow, series=series,
                          progress=progress, retry_failed=retry_failed, say=report or (lambda text: None))
        order = {j["run_key"]: n for n, j in enumerate(p.jobs)}
        df = store.load(keys=order)
    finally:
        store.unlock()
    if len(df):
        df = df.iloc[df["run_key"].map(order).argsort(kind="stable")].reset_index(drop=True)
    df.attrs["counts"] = counts
    return df


def _execute(p: Plan, store: Store, *, workers: Optional[int], dask: Optional[str], per_flow: bool,
             series: bool, progress: Optional[bool], retry_failed: bool,
             say: Callable[[str], None]) -> Dict[str, Any]:
    """Run what ``store`` lacks of ``p``; the counts (ran, skipped, failed ...)."""
    store.compact()
    if retry_failed:
        store.drop_failed()
    done = store.done()
    todo = [j for j in p.jobs if j["run_key"] not in done]
    counts: Dict[str, Any] = {
        "ran": 0, "skipped": len(p.jobs) - len(todo), "failed": 0, "total": len(p.jobs),
        "failed_before": sum(1 for j in p.jobs if done.get(j["run_key"]) == "failed")}
    for job in (j for j in todo if j["point"] in p.invalid):
        _keep(store, _failed_record(job, p.invalid[job["point"]]))
        counts["failed"] += 1
    todo = [j for j in todo if j["point"] not in p.invalid]
    backend: Optional[Backend] = None
    bar = None
    started = time.perf_counter()
    try:
        if todo:
            backend = make_backend(min(workers or _cpus(), len(todo)) if dask is None else workers, dask)
            say(f"sweep: {counted(len(p.points), 'point')} x {counted(len(p.seeds), 'seed')} = "
                f"{counted(len(p.jobs), 'run')}; "
                f"{len(todo)} to run on {backend.name} ({backend.workers} worker"
                f"{'s' if backend.workers != 1 else ''}), {counts['skipped']} done already -> {store.path}")
            bar = _Progress(len(todo), progress)
            mine = engine_version()
            since = 0
            work = ((j["run_key"], {**j, "scenario": {**p.specs[j["point"]], "seed": j["seed"]},
                                    "per_flow": per_flow, "series": series}) for j in todo)
            for _, record in backend.imap(run_job, work):
                if record.get("engine_version") != mine:
                    raise BufferLabError(f"--dask: a worker runs engine {record.get('engine_version')}, this "
                                         f"process {mine}: install the same BufferLab build on every worker")
                _keep(store, record)
                counts["ran"] += 1
                counts["failed"] += record["status"] != "ok"
                bar.update(counts["failed"])
                since += 1
                if since >= COMPACT_EVERY:
                    store.compact()
                    since = 0
    except KeyboardInterrupt:
        _finish(backend, bar, store)
        n = counts["ran"]
        raise KeyboardInterrupt(f"interrupted: {n} run{'s' if n != 1 else ''} finished now and every earlier "
                                f"one kept in {store.path}; the same command resumes the sweep") from None
    except BaseException:
        _finish(backend, bar, store)
        raise
    _finish(backend, bar, store)
    counts["wall_s"] = time.perf_counter() - started
    return counts


def _keep(store: Store, record: Dict[str, Any]) -> None:
    """Write a finished run; a failed write (a full disk) ends the sweep with exit status 1."""
    try:
        store.write_run(record)
    except OSError as exc:
        raise OutputError(f"{store.field} {store.path}: cannot write run {record['run_key']}: "
                          f"{exc.strerror or exc}; every run finished before it is kept") from None


def _finish(backend: Optional[Backend], bar: Optional[_Progress], store: Store) -> None:
    """Close the bar and the workers, and compact what finished (also after Ctrl-C)."""
    if bar is not None:
        bar.close()
    if backend is not None:
        backend.close()
    try:
        store.compact()
    except OSError as exc:
        raise OutputError(f"{store.field} {store.path}: cannot write the dataset: {exc.strerror or exc}; the "
                          "finished runs stay in runs/ and the same command compacts them") from None


def counted(count: int, noun: str) -> str:
    """``"3 runs"``, ``"1 run"``."""
    return f"{count:,} {noun}{'s' if count != 1 else ''}"


def _cpus() -> int:
    return os.cpu_count() or 1


def load(out: Union[str, Path], table: str = "results", filters: Any = None) -> pd.DataFrame:
    """A sweep's dataset (``results``, ``flows`` or ``series``) from its directory, finished runs not yet
    compacted included; ``filters`` as in ``pandas.read_parquet`` (e.g. ``[("seed", "==", 1)]``)."""
    store = Store(Path(out), field="out")
    if store.definition(remedy=UNREADABLE) is None:
        raise BufferLabError(f"{out}: not a sweep directory (no sweep.json)")
    if table not in ("results", "flows", "series"):
        raise BufferLabError(f"table: expected results, flows or series, got {table!r}")
    return store.load(table, filters=filters)
