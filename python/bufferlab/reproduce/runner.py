"""Many engine runs, in parallel, each kept on disk as it finishes so an interrupted reproduction resumes.

A :class:`Task` is a scenario (a dict) and a seed; its key is a hash of both and of the engine's version, so a
finished run is reused whenever the same task comes again. :func:`run_tasks` runs what is missing in a pool of
worker processes (:mod:`bufferlab.batch`; one engine run each, bit-identical to a serial run: the engine is
deterministic), writes each result to ``<cache>/<key>.json`` atomically (a
:class:`bufferlab.batch.RecordCache`) and returns every result in the order of the tasks. A task whose
scenario the engine refuses fails the whole call with the
engine's message: reproductions are fixed designs, not user sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from bufferlab.batch import Pool, RecordCache, Serial, content_key, engine_version
from bufferlab.errors import BufferLabError
from bufferlab.jsonout import json_ready

#: What a task keeps of a run: the summary, the first port's row, each group's row, and what ``extract``
#: (a module-level function, so workers can import it) adds.
Extract = Callable[[Any], Dict[str, Any]]


@dataclass(frozen=True)
class Task:
    """One engine run: ``scenario`` with ``seed``; ``labels`` say what it stands for (series, x value ...)."""

    scenario: Dict[str, Any]
    seed: int
    labels: Dict[str, Any] = field(default_factory=dict)
    extract: Optional[str] = None  # "module:function" returning extra values from the Results

    def key(self, version: str) -> str:
        return content_key({"scenario": self.scenario, "seed": self.seed, "extract": self.extract,
                            "engine": version})


def _resolve_extract(spec: Optional[str]) -> Optional[Extract]:
    if not spec:
        return None
    import importlib  # noqa: PLC0415

    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def run_one(task: Task) -> Dict[str, Any]:
    """Run a task in this process; the record kept for it."""
    import bufferlab  # noqa: PLC0415

    scenario = {**task.scenario, "seed": task.seed}
    res = bufferlab.run(scenario, progress=False)
    record: Dict[str, Any] = {"labels": task.labels, "seed": task.seed, "summary": dict(res.summary),
                              "wall_s": res.wall_s}
    if len(res.ports):
        port = res.ports.iloc[0].to_dict()
        record["port"] = {k: v for k, v in port.items() if not isinstance(v, (dict, list))}
    extract = _resolve_extract(task.extract)
    if extract is not None:
        record["extra"] = extract(res)
    return json_ready(record)


def run_tasks(tasks: Sequence[Task], cache: Path, *, workers: int = 1,
              progress: Optional[Callable[[int, int], None]] = None,
              known: Optional[Dict[str, Dict[str, Any]]] = None) -> List[Dict[str, Any]]:
    """Every task's record, running only those not in ``cache`` yet; ``progress(done, total)`` after each.
    ``known`` (records by key, from an earlier call on the same cache) spares reading those files again;
    it receives every record of this call."""
    cache.mkdir(parents=True, exist_ok=True)
    stored = RecordCache(cache)
    version = engine_version()
    keys = [t.key(version) for t in tasks]
    records: Dict[str, Dict[str, Any]] = known if known is not None else {}
    for k in set(keys) - set(records):
        record = stored.get(k)  # a damaged record is run again
        if record is not None:
            records[k] = record
    todo = {k: t for k, t in zip(keys, tasks) if k not in records}
    total = len(set(keys))
    done = total - len(set(todo))
    if progress:
        progress(done, total)

    def keep(k: str, rec: Dict[str, Any]) -> None:
        nonlocal done
        stored.put(k, rec)
        records[k] = rec
        done += 1
        if progress:
            progress(done, total)

    backend = Serial() if workers <= 1 or len(todo) <= 1 else Pool(workers)
    try:
        with backend:
            for k, rec in backend.imap(run_one, todo.items()):
                keep(k, rec)
    except BufferLabError as exc:
        raise BufferLabError(f"a reproduction run failed: {exc}") from exc
    return [{**records[k], "labels": t.labels} for k, t in zip(keys, tasks)]
