"""Finished ns-3 runs kept on disk, so that an interrupted ``bufferlab validate`` resumes where it stopped.

Each ns-3 run (one scenario, one seed) is stored as it finishes in
``<out>/runs/<scenario>/seed-<seed>-<key>.json``. The key is a hash of everything the run's result depends
on: the ns-3 configuration the translator makes of the scenario (every per-flow draw included) and what
turns a configuration into a result: the runner's and the read-back checks' sources (``ns3run.py``,
``ns3checks.py``), the C++ monitor (``monitor.cc``) and the installed ns-3 package's version. The
translator's source is not part of it (its output is), so editing the translator without changing a
configuration keeps the stored runs. A changed scenario, seed, configuration or runner therefore misses and
runs again; the engine side always runs (it takes a second). A run read back gives the report it gave when it
was made, so a resumed report equals an uninterrupted one. The files are records of a
:class:`bufferlab.batch.RecordCache` (written atomically; a damaged one reads as missing).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Tuple

from bufferlab import jsonout
from bufferlab.batch import RecordCache
from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3checks, ns3run, ns3sim

#: Bump when the stored layout changes.
FORMAT = 1


#: The sources that turn a configuration into a result, in the order they are hashed.
RUNNER_SOURCES = ("ns3run.py", "ns3checks.py", "monitor.cc")


def runner_fingerprint_of(sources: Dict[str, bytes], ns3_version: str) -> str:
    """The hash of the runner's sources (by name, :data:`RUNNER_SOURCES`) and an ns-3 version."""
    digest = hashlib.sha256(b"bufferlab ns-3 runner\n")
    for name in RUNNER_SOURCES:
        digest.update(f"{name} {len(sources[name])}\n".encode())
        digest.update(sources[name])
    digest.update(f"ns3 {ns3_version}".encode())
    return digest.hexdigest()


def ns3_version() -> str:
    """The installed ns-3 package's version, ``"none"`` without one."""
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return "none"


@lru_cache(maxsize=1)
def runner_fingerprint() -> str:
    """What turns a configuration into a result, as a hash: the sources of ``ns3run.py``, ``ns3checks.py``
    and ``monitor.cc`` and the installed ns-3 package's version (not the translator's source: the key holds
    its output). The name is the key's field's."""
    sources = {"ns3run.py": Path(ns3run.__file__).read_bytes(),
               "ns3checks.py": Path(ns3checks.__file__).read_bytes(),
               "monitor.cc": ns3run.monitor_source().encode("utf-8")}
    return runner_fingerprint_of(sources, ns3_version())


def key_of(config: Dict[str, Any], fingerprint: str) -> str:
    """A run's key from its ns-3 configuration and the runner's fingerprint (under the name
    ``"translator"``, which the keys of runs stored before the runner had a fingerprint of its own used)."""
    blob = jsonout.dumps({"format": FORMAT, "translator": fingerprint, "config": config},
                         sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def run_key(scenario: ns3sim.ScenarioLike) -> str:
    """What a run's result depends on, as a hex digest."""
    return key_of(ns3sim.translate(scenario), runner_fingerprint())


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:100] or "scenario"


class Ns3RunCache:
    """ns-3 results by scenario and seed under ``directory``; :meth:`get` returns None for a run not
    stored (or stored unreadably, e.g. cut short by a full disk: it runs again). With ``reuse=False``
    nothing is read back, but every new run is still stored (``validate --fresh``)."""

    def __init__(self, directory: os.PathLike | str, *, reuse: bool = True) -> None:
        self.directory = Path(directory)
        self.records = RecordCache(self.directory)
        self.reuse = reuse
        self.hits = 0
        self.store_failed = False
        if self.directory.exists() and not self.directory.is_dir():
            raise BufferLabError(f"--runs: {self.directory} is not a directory")

    def name(self, scenario: Dict[str, Any], key: str) -> str:
        """The record's name in the cache: ``<scenario>/seed-<seed>-<key[:16]>``."""
        name = _safe(str(scenario.get("name", "scenario")))
        return f"{name}/seed-{int(scenario.get('seed', 1))}-{key[:16]}"

    def entry(self, scenario: Dict[str, Any]) -> Tuple[str, Path]:
        """The run's key and the file that holds it (one translation of the scenario)."""
        key = run_key(scenario)
        return key, self.records.path(self.name(scenario, key))

    def get(self, scenario: Dict[str, Any]) -> Dict[str, Any] | None:
        if not self.reuse:
            return None
        key = run_key(scenario)
        stored = self.records.get(self.name(scenario, key))
        if stored is None or stored.get("key") != key or "result" not in stored:
            return None
        self.hits += 1
        return stored["result"]

    def put(self, scenario: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
        """Store ``result`` atomically (a reader never sees half a file); returns it as :meth:`get` will
        read it back (undefined numbers as None), which is what a comparison should use either way."""
        key = run_key(scenario)
        ready = jsonout.json_ready(result)
        try:
            self.records.put(self.name(scenario, key), {"key": key, "scenario": scenario.get("name"),
                                                         "seed": scenario.get("seed"), "result": ready})
        except OSError as exc:  # a full disk, a read-only directory: the comparison goes on without it
            if not self.store_failed:
                print(f"bufferlab validate: cannot store ns-3 runs in {self.directory} ({exc}); "
                      "they would run again next time", file=sys.stderr)
            self.store_failed = True
        return ready
