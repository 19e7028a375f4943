"""A sweep's directory: one record per finished run, compacted into a Parquet dataset.

Layout of ``DIR``::

    sweep.json                 what was swept (base scenario, axes, seeds, options, engine)
    runs/<run_key>.json        one finished run (written atomically as it ends; tables first, JSON last)
    runs/<run_key>.flows.parquet, runs/<run_key>.series.parquet   its per-flow table and time series
    results/part-NNNNN.parquet one row per run (what the runs/ records held, compacted)
    flows/part-NNNNN.parquet   per-flow rows of every run (--per-flow)
    series/part-NNNNN.parquet  sampled time series of every run (--series)

A run is done once its ``runs/<key>.json`` exists or its row is in ``results/``. :meth:`Store.compact`
moves the records of ``runs/`` into new part files (at most :data:`PART_ROWS` rows each), written
atomically, and only then deletes the records; a record whose key is already in a part (a compaction
killed between the two steps) is dropped, so rows are never lost or doubled. Every part of a table has
one schema (new columns are added to old parts as nulls, an integer column that meets fractions becomes a
float column), so ``pandas.read_parquet(DIR / "results")`` and pyarrow datasets with filters read them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bufferlab.batch import RecordCache, write_atomic
from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps

__all__ = ["Store", "flatten", "PART_ROWS", "TABLES", "UNREADABLE"]

#: Most rows in one part file of ``results/`` (per-flow and series parts hold the rows of as many runs).
PART_ROWS = 50_000

#: The datasets of a sweep: ``results`` and the optional per-run tables.
TABLES = ("results", "flows", "series")

#: Columns that are text even when every value of a part is missing.
TEXT_COLUMNS = frozenset(["run_key", "status", "error", "engine_version", "scenario_hash", "name"])

#: What a command that reads a sweep (``bufferlab plot``, ``bufferlab.sweeps.load``) suggests when its
#: sweep.json cannot be read.
UNREADABLE = ("not a sweep that can be read: run the sweep into this directory again with "
              "bufferlab sweep ... --force, or give another sweep's directory")

_PART = re.compile(r"^part-(\d+)\.parquet$")
_OWN = frozenset(["sweep.json", "runs", *TABLES])


def flatten(record: Dict[str, Any]) -> Dict[str, Any]:
    """One run's row: key, seed, the swept values, status and error, the summary, every group's and
    port's figures (``group.<name>.<metric>``, ``port.<name>.<metric>``), wall time, engine, scenario hash."""
    row: Dict[str, Any] = {"run_key": record["run_key"], "seed": record["seed"]}
    row.update(record["params"])
    row["status"], row["error"] = record["status"], record.get("error")
    for k, v in (record.get("summary") or {}).items():
        if k != "seed":
            row[k] = v
    for kind in ("group", "port"):
        for name, figures in (record.get(kind + "s") or {}).items():
            for metric, v in figures.items():
                row[f"{kind}.{name}.{metric}"] = v
    row["wall_s"] = record.get("wall_s")
    row["engine_version"] = record["engine_version"]
    row["scenario_hash"] = record["scenario_hash"]
    return row


def _typed(table: pa.Table) -> pa.Table:
    """Null-typed columns (every value missing in this part) as text or float, so parts unify."""
    fields = []
    for f in table.schema:
        if pa.types.is_null(f.type):
            f = f.with_type(pa.string() if f.name in TEXT_COLUMNS else pa.float64())
        fields.append(f)
    return table.cast(pa.schema(fields))


class Store:
    """The directory ``path`` of one sweep."""

    def __init__(self, path: Path, field: str = "--out") -> None:
        self.path = Path(path)
        self.field = field  # how messages name the directory (``--out``, ``--verify-out``, ``DIR``)
        self.runs = self.path / "runs"
        self.records = RecordCache(self.runs)
        self._keys: Optional[Dict[str, str]] = None  # run_key -> status, of the compacted rows

    # -- set-up ---------------------------------------------------------------------------------------
    def definition(self, remedy: str = "give another directory or --force") -> Optional[Dict[str, Any]]:
        """The ``sweep.json`` of an earlier sweep here, or None; one that cannot be read is an error naming
        the directory and ``remedy`` (what the command reading it lets the user do)."""
        p = self.path / "sweep.json"
        if not p.exists():
            return None
        try:
            found = json.loads(p.read_text())
            if not isinstance(found, dict):
                raise ValueError(f"expected a JSON object, got {type(found).__name__}")
            return found
        except (OSError, ValueError) as exc:
            raise BufferLabError(f"{self.field} {self.path}: sweep.json cannot be read ({exc}); "
                                 f"{remedy}") from None

    def prepare(self, definition: Dict[str, Any], force: bool = False) -> None:
        """Check that ``DIR`` is new, empty, or holds this same sweep (same base scenario, options and
        engine: more points or seeds may be added); write ``sweep.json``. ``force`` clears an earlier
        sweep's results first."""
        field = self.field
        if self.path.exists() and not self.path.is_dir():
            raise BufferLabError(f"{field} {self.path}: exists and is not a directory")
        if self.path.is_dir():
            foreign = sorted(e.name for e in os.scandir(self.path) if e.name not in _OWN
                             and not e.name.startswith(".") and e.name != "plots")
            if foreign:
                raise BufferLabError(f"{field} {self.path}: holds more than a sweep "
                                     f"({', '.join(foreign[:3])}); give a new or empty directory")
        self._lock(field)
        try:
            old = None if force else self.definition()
            if force:  # an earlier sweep's results go, also when its sweep.json cannot be read
                for name in ("runs", *TABLES):
                    shutil.rmtree(self.path / name, ignore_errors=True)
            if old is not None:
                for what, key in (("base scenario (file and --set)", "scenario_hash"),
                                  ("engine build", "engine_version"), ("--per-flow", "per_flow"),
                                  ("--series", "series")):
                    if old.get(key) != definition.get(key):
                        raise BufferLabError(
                            f"{field} {self.path}: holds a sweep with another {what} ({old.get(key)} here, "
                            f"{definition.get(key)} now); give another directory, or --force to replace it")
                known = {a["key"]: a for a in old.get("axes", [])}
                for a in definition.get("axes", []):
                    known[a["key"]] = {**known.get(a["key"], {}), **a}
                definition = {**definition, "axes": list(known.values())}
            try:
                self.runs.mkdir(parents=True, exist_ok=True)
                for stale in self.runs.glob(".tmp-*"):  # writes a kill interrupted before their rename
                    stale.unlink(missing_ok=True)
                write_atomic(self.path / "sweep.json", dumps(definition, indent=2) + "\n")
            except OSError as exc:
                raise BufferLabError(f"{field} {self.path}: cannot write: {exc.strerror or exc}") from None
        except BaseException:
            self.unlock()
            raise

    def _lock(self, field: str) -> None:
        """Hold ``DIR/.lock`` while this process sweeps: a second sweep into the same directory is refused
        (advisory ``flock``; where the system has none, nothing is locked)."""
        try:
            import fcntl  # noqa: PLC0415
        except ImportError:  # pragma: no cover - not POSIX
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise BufferLabError(f"{field} {self.path}: cannot write: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BufferLabError(f"{field} {self.path}: another sweep is running into this directory; "
                                 "wait for it or give another directory") from None
        self._lock_fd = fd

    def unlock(self) -> None:
        """Let another sweep use the directory."""
        fd, self._lock_fd = getattr(self, "_lock_fd", None), None
        if fd is not None:
            os.close(fd)

    # -- runs -----------------------------------------------------------------------------------------
    def write_run(self, record: Dict[str, Any]) -> None:
        """Keep one finished run: its tables, then its record (the record marks the run as done)."""
        key = record["run_key"]
        for name in ("flows", "series"):
            columns = record.pop(name, None)
            if columns is not None:
                table = _typed(pa.table(columns))
                write_atomic(self.runs / f"{key}.{name}.parquet", lambda p, t=table: pq.write_table(t, p))
        self.records.put(key, record)

    def _parts(self, table: str) -> List[Path]:
        d = self.path / table
        if not d.is_dir():
            return []
        return sorted((p for p in d.iterdir() if _PART.match(p.name)), key=lambda p: p.name)

    def compacted(self) -> Dict[str, str]:
        """``run_key → status`` of the rows in ``results/``."""
        if self._keys is None:
            self._keys = {}
            for part in self._parts("results"):
                t = pq.read_table(part, columns=["run_key", "status"])
                self._keys.update(zip(t.column("run_key").to_pylist(), t.column("status").to_pylist()))
        return self._keys

    def pending(self) -> List[str]:
        """Keys of the finished runs not compacted yet (not the temporary files of a write that a kill
        interrupted before its rename: those start with a dot)."""
        return self.records.keys()

    def done(self) -> Dict[str, str]:
        """``run_key → status`` of every finished run (compacted or not)."""
        out = dict(self.compacted())
        for key in self.pending():
            if key not in out:
                out[key] = "pending"
        return out

    def _drop_record(self, key: str) -> None:
        for suffix in (".json", ".flows.parquet", ".series.parquet"):
            (self.runs / f"{key}{suffix}").unlink(missing_ok=True)

    def compact(self) -> int:
        """Move every record of ``runs/`` into new part files; returns how many runs were moved."""
        keys = self.pending()
        if not keys:
            return 0
        known = self.compacted()
        moved = 0
        for start in range(0, len(keys), PART_ROWS):
            chunk = keys[start:start + PART_ROWS]
            rows: List[Dict[str, Any]] = []
            tables: Dict[str, List[pa.Table]] = {"flows": [], "series": []}
            taken: List[str] = []
            for key in chunk:
                if key in known:
                    self._drop_record(key)
                    continue
                record = self.records.get(key)
                try:
                    extra = {name: pq.read_table(self.runs / f"{key}.{name}.parquet")
                             for name in tables if (self.runs / f"{key}.{name}.parquet").exists()}
                except (OSError, ValueError, pa.ArrowException):
                    record = None
                if record is None:
                    self._drop_record(key)  # damaged: the run is missing and runs again
                    continue
                row = flatten(record)
                rows.append(row)
                taken.append(key)
                ident = {"run_key": key, "seed": record["seed"], **record["params"]}
                for name, t in extra.items():
                    tables[name].append(_with_ident(t, ident))
            if not rows:
                continue
            for name, parts in tables.items():
                if parts:
                    self._append(name, pa.concat_tables(parts, promote_options="permissive"))
            self._append("results", _table(rows))
            for key, row in zip(taken, rows):
                known[key] = row["status"]
                self._drop_record(key)
            moved += len(rows)
        return moved

    def _append(self, name: str, table: pa.Table) -> None:
        """Write ``table`` as the next part of ``name``, every part brought to one schema."""
        directory = self.path / name
        directory.mkdir(exist_ok=True)
        parts = self._parts(name)
        table = _typed(table)
        schemas = [pq.read_schema(p) for p in parts]
        unified = pa.unify_schemas([*schemas, table.schema], promote_options="permissive")
        for part, schema in zip(parts, schemas):
            if not schema.equals(unified):
                old = _conform(pq.read_table(part), unified)
                write_atomic(part, lambda p, t=old: pq.write_table(t, p))
        number = int(_PART.match(parts[-1].name).group(1)) + 1 if parts else 0
        new = _conform(table, unified)
        write_atomic(directory / f"part-{number:05d}.parquet", lambda p: pq.write_table(new, p))

    def drop_failed(self) -> int:
        """Remove the failed runs (rows and records), so they run again; returns how many."""
        gone = 0
        for key in self.pending():
            record = self.records.get(key)
            if record is None or record.get("status") != "ok":
                self._drop_record(key)
                gone += 1
        for part in self._parts("results"):
            t = pq.read_table(part)
            failed = pc.not_equal(t.column("status"), "ok")
            n = pc.sum(failed).as_py() or 0
            if n:
                kept = t.filter(pc.invert(failed))
                write_atomic(part, lambda p, k=kept: pq.write_table(k, p))
                gone += n
        self._keys = None
        return gone

    # -- reading --------------------------------------------------------------------------------------
    def load(self, table: str = "results", keys: Optional[Iterable[str]] = None,
             filters: Any = None) -> pd.DataFrame:
        """A table of the sweep (``results``, ``flows`` or ``series``) as a DataFrame, records not yet
        compacted included; only the runs in ``keys`` if given; ``filters`` as in ``pandas.read_parquet``."""
        frames = []
        if self._parts(table):
            frames.append(pd.read_parquet(self.path / table, filters=filters))
        pending = self._pending_table(table)
        if pending is not None:
            if filters is not None:
                pending = pending.filter(pq.filters_to_expression(filters))
            frames.append(pending.to_pandas())
        if not frames:
            return pd.DataFrame()
        df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        if keys is not None:
            df = df[df["run_key"].isin(set(keys))]
        return df.reset_index(drop=True)


    def _pending_table(self, table: str) -> Optional[pa.Table]:
        """The finished runs of ``runs/`` not compacted yet, as a table of ``table`` (None if none)."""
        parts = []
        rows = []
        for key in self.pending():
            record = self.records.get(key)
            if record is None:
                continue  # being written or damaged: not a finished run yet
            try:
                if table == "results":
                    rows.append(flatten(record))
                elif (self.runs / f"{key}.{table}.parquet").exists():
                    ident = {"run_key": key, "seed": record["seed"], **record["params"]}
                    parts.append(_with_ident(pq.read_table(self.runs / f"{key}.{table}.parquet"), ident))
            except (OSError, ValueError, pa.ArrowException):
                continue  # being written or damaged: not a finished run yet
        if rows:
            return _typed(_table(rows))
        return pa.concat_tables(parts, promote_options="permissive") if parts else None

def _table(rows: List[Dict[str, Any]]) -> pa.Table:
    """The rows as a table with every column any row has (in first-seen order; missing values null)."""
    names: Dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return pa.table({name: [row.get(name) for row in rows] for name in names})


def _with_ident(table: pa.Table, ident: Dict[str, Any]) -> pa.Table:
    """``table`` with the run's key, seed and swept values as its first columns."""
    n = table.num_rows
    cols = {k: pa.array([v] * n) for k, v in ident.items()}
    for name in table.column_names:
        if name not in cols:
            cols[name] = table.column(name)
    return pa.table(cols)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with ``schema``'s columns in its order (missing ones null) and types."""
    n = table.num_rows
    cols = [table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(n, f.type)
            for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)

