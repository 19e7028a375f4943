"""Finished ns-3 runs kept on disk, so that an interrupted ``bufferlab validate`` resumes where it stopped.

Each ns-3 run (one scenario, one seed) is stored as it finishes in
``<out>/runs/<scenario>/seed-<seed>-<key>.json``. The key is a hash of everything the run's result depends
on: the ns-3 configuration the translator makes of the scenario (every per-flow draw included), the
translator itself (this package's ``ns3sim.py``, which also holds the C++ that runs in ns-3) and the
installed ns-3 package's version. A changed scenario, seed or translator therefore misses and runs
again; the engine side always runs (it takes a second). A run read back gives the report it gave when it
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
from bufferlab.validation import ns3sim

#: Bump when the stored layout changes.
FORMAT = 1


@lru_cache(maxsize=1)
def translator_fingerprint() -> str:
    """A hash of the translator's source (``ns3sim.py``) and the installed ns-3 package's version."""
    try:
        version = importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        version = "none"
    source = Path(ns3sim.__file__).read_bytes()
    return hashlib.sha256(source + version.encode()).hexdigest()


def run_key(scenario: ns3sim.ScenarioLike) -> str:
    """What a run's result depends on, as a hex digest."""
    config = ns3sim.translate(scenario)
    blob = jsonout.dumps({"format": FORMAT, "translator": translator_fingerprint(), "config": config},
                         sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


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

    def _name(self, scenario: Dict[str, Any], key: str) -> str:
        """The record's name in the cache: ``<scenario>/seed-<seed>-<key[:16]>``."""
        name = _safe(str(scenario.get("name", "scenario")))
        return f"{name}/seed-{int(scenario.get('seed', 1))}-{key[:16]}"

    def entry(self, scenario: Dict[str, Any]) -> Tuple[str, Path]:
        """The run's key and the file that holds it (one translation of the scenario)."""
        key = run_key(scenario)
        return key, self.records.path(self._name(scenario, key))

    def get(self, scenario: Dict[str, Any]) -> Dict[str, Any] | None:
        if not self.reuse:
            return None
        key = run_key(scenario)
        stored = self.records.get(self._name(scenario, key))
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
            self.records.put(self._name(scenario, key), {"key": key, "scenario": scenario.get("name"),
                                                         "seed": scenario.get("seed"), "result": ready})
        except OSError as exc:  # a full disk, a read-only directory: the comparison goes on without it
            if not self.store_failed:
                print(f"bufferlab validate: cannot store ns-3 runs in {self.directory} ({exc}); "
                      "they would run again next time", file=sys.stderr)
            self.store_failed = True
        return ready
