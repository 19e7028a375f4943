"""Several ns-3 simulations at once: ``bufferlab validate --jobs N``.

ns-3 is the slow side of every comparison (minutes per run where the engine takes a second), and one
Python process runs one simulation at a time. :class:`Ns3Pool` keeps up to ``jobs`` worker processes
(``python -m bufferlab.validation.pool``), each of which loads ns-3 once and then runs the scenarios it is
sent, one JSON line in and one JSON line out. A simulation's result depends only on its scenario: every
random stream ns-3 draws from is fixed by the scenario's seed (``ns3sim.run_ns3``), so a run gives the same
numbers in any worker, in any order, as in the calling process.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Dict, List

from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3sim

#: Marks a worker's answer on its standard output (ns-3 and its bindings may print there too).
REPLY = "@@bufferlab-ns3 "


def check_jobs(jobs: Any) -> int:
    """``jobs`` if it is a whole number >= 1, else the error that names ``--jobs``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise BufferLabError(f"--jobs must be a whole number >= 1 (got {jobs!r})")
    return jobs


class _Worker:
    """One worker process and its pipes."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bufferlab.validation.pool"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=dict(os.environ),
        )

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, spec: Dict[str, Any]) -> Dict[str, Any]:
        name = spec.get("name", "?")
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps({"scenario": spec}) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise BufferLabError(f"ns-3 worker for {name!r} is gone (exit {self.proc.poll()})") from exc
        for line in self.proc.stdout:
            if line.startswith(REPLY):
                reply = json.loads(line[len(REPLY):])
                break
        else:
            raise BufferLabError(f"ns-3 worker exited (code {self.proc.wait()}) while running {name!r}")
        if "result" in reply:
            return reply["result"]
        if reply.get("unavailable"):
            raise ns3sim.Ns3Unavailable(reply["error"])
        raise BufferLabError(reply["error"])

    def close(self) -> None:
        if self.alive:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


class Ns3Pool:
    """Runs ns-3 simulations in up to ``jobs`` worker processes; :meth:`submit` returns a future of what
    :func:`ns3sim.run_ns3` returns. With ``isolate`` every run gets a fresh process
    (:func:`ns3sim.run_ns3_isolated`) instead of a reused worker. Use it as a context manager: leaving it
    stops the workers, and runs not yet started are cancelled."""

    def __init__(self, jobs: int, *, isolate: bool = False) -> None:
        self.jobs = check_jobs(jobs)
        self._isolate = isolate
        self._executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ns3-job")
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._workers: List[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, scenario: ns3sim.ScenarioLike) -> Future[Dict[str, Any]]:
        """Start running ``scenario`` in ns-3 as soon as a worker is free."""
        if self._closed:
            raise BufferLabError("the ns-3 pool is closed")
        return self._executor.submit(self._run, ns3sim.load(scenario))

    def _run(self, spec: Dict[str, Any]) -> Dict[str, Any]:
        if self._isolate:
            return ns3sim.run_ns3_isolated(spec)
        worker = self._take()
        try:
            result = worker.run(spec)
        except ns3sim.Ns3Unavailable:
            self._idle.put(worker)
            raise
        except BaseException:
            worker.close()  # its state is unknown: the next run gets a fresh one
            raise
        self._idle.put(worker)
        return result

    def _take(self) -> _Worker:
        """An idle live worker, else a new one (never more than ``jobs``: one per pool thread)."""
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                break
            if worker.alive:
                return worker
            worker.close()
        worker = _Worker()
        with self._lock:
            self._workers.append(worker)
        return worker

    def close(self) -> None:
        """Cancel runs not started, stop every worker (a run in progress ends with an error)."""
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            for worker in self._workers:
                worker.close()
        self._executor.shutdown(wait=True)

    def __enter__(self) -> Ns3Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def serve() -> int:
    """The worker's loop: one scenario per line on standard input, one answer per run on standard output
    (``REPLY`` + JSON: ``{"result": ...}`` or ``{"error": ..., "unavailable": bool}``); ends at end of
    input. Ctrl-C at a terminal reaches the whole process group: the worker ignores it and is stopped by
    its pool, which the interrupted ``validate`` closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply: Dict[str, Any] = {"result": ns3sim.run_ns3(json.loads(line)["scenario"])}
        except ns3sim.Ns3Unavailable as exc:
            reply = {"error": str(exc), "unavailable": True}
        except BufferLabError as exc:
            reply = {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - reported to the caller, with the traceback on stderr
            traceback.print_exc()
            reply = {"error": f"ns-3 run failed: {type(exc).__name__}: {exc}"}
        sys.stdout.write("\n" + REPLY + json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
