"""Many engine runs at once: keys that identify a run, atomic record files, and the places runs execute.

Shared by ``bufferlab reproduce`` (:mod:`bufferlab.reproduce.runner`) and ``bufferlab sweep``
(:mod:`bufferlab.sweeps`):

* :func:`engine_version` names the compiled engine, and :func:`content_key` hashes a run's inputs with it,
  so a finished run is found again by its key and a rebuilt engine never reuses an old one;
* :func:`write_atomic` writes a file whole or not at all (a temporary file renamed into place), so a run
  killed at any instant leaves either its complete record or none;
* :class:`RecordCache` keeps one JSON record per key in a directory, written atomically and read back, a
  missing, damaged or cut-short file reading as absent: the reproductions' runs, the sweeps' runs and
  ``validate``'s ns-3 runs (:mod:`bufferlab.validation.cache`) are kept in one;
* a :class:`Backend` runs a function over many items and yields each result as it finishes:
  :class:`Serial` (this process), :class:`Pool` (local worker processes, one per core by default) and
  :class:`Dask` (a ``dask.distributed`` scheduler, or a ``LocalCluster`` it starts). The engine is
  deterministic, so the same item gives the same result on each.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps

__all__ = ["engine_version", "content_key", "write_atomic", "RecordCache", "Backend", "Serial", "Pool",
           "Dask", "make_backend", "WorkersLost"]

#: Items handed to workers ahead of the ones running, per worker: enough to keep every worker busy
#: without holding a 100,000-run sweep in the scheduler at once.
AHEAD_PER_WORKER = 4

#: How often a run is started again after the process running it died (a killed worker).
RETRIES = 3


@functools.cache
def engine_version() -> str:
    """The package version and a hash of the compiled engine (read once per process)."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    from bufferlab import _engine  # noqa: PLC0415

    try:
        v = version("bufferlab")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        v = "source"
    digest = hashlib.sha256(Path(_engine.__file__).read_bytes()).hexdigest()[:12]
    return f"{v}+{digest}"


def content_key(payload: Any, length: int = 24) -> str:
    """A hex digest of ``payload`` (JSON, keys sorted): equal inputs give equal keys."""
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def write_atomic(path: Path, data: Union[str, bytes, Callable[[Path], Any]]) -> None:
    """Write ``path`` whole or not at all: ``data`` (text, bytes, or a function writing to the path it is
    given) goes to a temporary file beside it, renamed into place once complete."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        if callable(data):
            os.close(fd)
            data(Path(tmp))
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RecordCache:
    """JSON records by key: ``<directory>/<key>.json`` (a key may name a sub-directory, ``a/b``), each
    written whole or not at all (:func:`write_atomic`). A record that is absent, unreadable, cut short or
    not a JSON object reads as missing, so its run is simply made again."""

    def __init__(self, directory: Union[os.PathLike, str]) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        """The file of ``key``'s record."""
        return self.directory / f"{key}.json"

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        """``key``'s record, or None when there is none that can be read."""
        try:
            record = json.loads(self.path(key).read_text())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def put(self, key: str, record: Dict[str, Any]) -> None:
        """Store ``record`` (JSON-ready: :func:`bufferlab.jsonout.json_ready`) as ``key``'s, replacing any
        earlier one; an ``OSError`` (a full disk, a read-only directory) is the caller's to handle."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, dumps(record))

    def keys(self) -> List[str]:
        """The keys with a record directly in the directory, sorted (not the temporary files of a write
        that a kill interrupted before its rename: those start with a dot)."""
        if not self.directory.is_dir():
            return []
        return sorted(p.name[:-5] for p in self.directory.glob("*.json") if not p.name.startswith("."))


Item = Tuple[str, Any]  # (key, argument)


class WorkersLost(BufferLabError):
    """The runs could not go on (a run's workers kept dying, the Dask scheduler went away): exit status 1;
    every run finished before is kept."""

    exit_status = 1


class Backend:
    """Where runs execute. :meth:`imap` yields ``(key, fn(argument))`` as each finishes (in any order); an
    exception raised by ``fn`` is raised from :meth:`imap`. :meth:`close` stops everything at once."""

    workers = 1
    name = "serial"

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Item]) -> Iterator[Tuple[str, Any]]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (kills runs still going)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Serial(Backend):
    """Every run in this process, one after the other."""

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Item]) -> Iterator[Tuple[str, Any]]:
        for key, arg in items:
            yield key, fn(arg)


#: Seconds between a pool worker's checks that the process that started it is still there.
ORPHAN_CHECK_S = 0.5


def _init_worker(parent: int) -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them (no traceback from each worker), and end
    themselves when the parent is gone (killed with SIGKILL: nobody would read their results)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="bufferlab-orphan-check", daemon=True).start()


class Pool(Backend):
    """Local worker processes (``workers``, default one per core). A worker that dies (killed, out of
    memory) breaks the pool: a new one is started and the runs it held are started again, at most
    :data:`RETRIES` times each."""

    name = "pool"

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: Optional[ProcessPoolExecutor] = None

    def _start(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_init_worker,
                                         initargs=(os.getpid(),))
        return self._pool

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Item]) -> Iterator[Tuple[str, Any]]:
        pending = iter(items)
        retry: Deque[Item] = deque()
        tries: Dict[str, int] = {}
        running: Dict[Any, Item] = {}
        pool = self._pool or self._start()
        ahead = self.workers * AHEAD_PER_WORKER

        def fill() -> None:
            while len(running) < ahead:
                item = retry.popleft() if retry else next(pending, None)
                if item is None:
                    return
                running[pool.submit(fn, item[1])] = item

        fill()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                item = running.pop(fut)
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    broken = True
                    tries[item[0]] = tries.get(item[0], 0) + 1
                    if tries[item[0]] > RETRIES:
                        raise WorkersLost(f"run {item[0]}: its worker process died {RETRIES + 1} times "
                                          "(killed, or out of memory)") from None
                    retry.append(item)
                    continue
                yield item[0], result
            if broken:
                retry.extend(running.values())
                running.clear()
                self.close()
                pool = self._start()
            fill()

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            if proc.is_alive():
                proc.kill()
        pool.shutdown(wait=True, cancel_futures=True)


class Dask(Backend):
    """Runs on a ``dask.distributed`` cluster: ``address`` of a running scheduler (``tcp://host:8786``), or
    ``"local"`` for a ``LocalCluster`` of ``workers`` single-threaded worker processes started here and
    stopped by :meth:`close`. A run whose worker dies is run again on another one by the scheduler (its
    ``allowed-failures``, 3 by default); a run whose future fails all the same (killed too often, its result
    lost with its worker) is submitted again, :data:`RETRIES` more times. ``fn`` must not raise: an error
    from a future is taken as lost infrastructure."""

    name = "dask"

    def __init__(self, address: str, workers: Optional[int] = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster  # noqa: PLC0415
        except ImportError:
            raise BufferLabError("--dask: needs dask.distributed: pip install 'bufferlab[dask]' "
                                 "(or pip install 'dask[distributed]')") from None
        self._cluster = None
        if address == "local":
            self._cluster = LocalCluster(n_workers=max(1, workers or os.cpu_count() or 1),
                                         threads_per_worker=1, processes=True, dashboard_address=None)
            self.client = Client(self._cluster)
        else:
            try:
                self.client = Client(address, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise BufferLabError(f"--dask {address}: cannot reach the scheduler: {exc}") from None
        self.address = address
        self.workers = max(1, sum(self.client.nthreads().values()))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Item]) -> Iterator[Tuple[str, Any]]:
        from dask.distributed import as_completed  # noqa: PLC0415
        from distributed import KilledWorker  # noqa: PLC0415

        pending = iter(items)
        tries: Dict[str, int] = {}
        keys: Dict[str, Item] = {}

        def submit(item: Item) -> Any:
            fut = self.client.submit(fn, item[1], key=f"bufferlab-{item[0]}-{tries.get(item[0], 0)}",
                                     pure=False)
            keys[fut.key] = item
            return fut

        ahead = max(self.workers, 1) * AHEAD_PER_WORKER
        first = [submit(item) for item in _take(pending, ahead)]
        stream = as_completed(first)
        for fut in stream:
            item = keys.pop(fut.key)
            try:
                result = fut.result()
            except Exception as exc:  # not from ``fn``: a worker, its result or the scheduler was lost
                tries[item[0]] = tries.get(item[0], 0) + 1
                if tries[item[0]] > RETRIES:
                    what = ("Dask workers running it died" if isinstance(exc, KilledWorker)
                            else f"{type(exc).__name__}: {exc}")
                    raise WorkersLost(f"--dask {self.address}: run {item[0]} lost {RETRIES + 1} times "
                                      f"({what})") from None
                stream.add(submit(item))
                continue
            finally:
                fut.release()
            yield item[0], result
            nxt = next(pending, None)
            if nxt is not None:
                stream.add(submit(nxt))

    def close(self) -> None:
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _take(it: Iterator[Item], n: int) -> Iterator[Item]:
    for _ in range(n):
        item = next(it, None)
        if item is None:
            return
        yield item


def make_backend(workers: Optional[int] = None, dask: Optional[str] = None) -> Backend:
    """:class:`Dask` when ``dask`` names a scheduler (or ``"local"``), else :class:`Pool` for more than one
    worker and :class:`Serial` for one."""
    if dask is not None:
        if not str(dask).strip():
            raise BufferLabError("--dask: give a scheduler address (tcp://host:8786) or local")
        return Dask(str(dask).strip(), workers)
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise BufferLabError(f"--workers: expected a whole number >= 1, got {workers!r}")
    n = workers or os.cpu_count() or 1
    return Pool(n) if n > 1 else Serial()
