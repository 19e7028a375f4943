"""Writing a run's output directory so that no data is lost or mixed.

* The target is checked before the simulation: an empty path, a file, an unwritable parent, or a directory
  that holds anything but an earlier run's files is refused (:class:`~bufferlab.errors.BufferLabError`).
* A directory holding an earlier run is refused too, unless ``force`` is given: then it is replaced whole,
  so no file of the earlier run survives beside the new ones.
* The files are written into a temporary directory beside the target (``.NAME.*.tmp``), which is renamed
  into place only once every file is complete. A failed write (a full disk, a read-only file system)
  removes the temporary directory, leaves the target as it was and raises
  :class:`~bufferlab.errors.OutputError`.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable, List, Optional, Union

from bufferlab.errors import BufferLabError, OutputError

#: The files a run writes: ``results.json`` and one Parquet file per non-empty table.
TABLES = ("flows", "ports", "groups", "fct", "fct_records", "udp", "queue_series", "cwnd_series", "events")
#: What ``--report`` adds: the page, the delay quantiles it draws from, and its figures as PNG and SVG.
REPORT_FILES = ("report.html", "delay_cdf.parquet",
                *(f"{stem}.{ext}" for stem in ("queue", "delay", "cwnd", "goodput_rtt", "drops_marks")
                  for ext in ("png", "svg")))
RUN_FILES = frozenset(["results.json", *(f"{name}.parquet" for name in TABLES), *REPORT_FILES])

Writer = Callable[[Path], List[str]]


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


class OutputDir:
    """One output directory, checked at construction; :meth:`write` fills it atomically.

    ``field`` is how messages name the target (``"--out"`` on the command line, ``"out_dir"`` in Python).
    """

    def __init__(self, target: Union[str, os.PathLike], force: bool = False, field: str = "--out") -> None:
        text = os.fspath(target) if isinstance(target, (str, os.PathLike)) else None
        if not isinstance(text, str):
            raise BufferLabError(f"{field}: expected a directory path, got {type(target).__name__}")
        if not text.strip():
            raise BufferLabError(f"{field}: empty path; give the directory to write the results into")
        self.field = field
        self.force = force
        self.path = Path(text)
        self._tmp: Optional[Path] = None
        self._check_target()

    def _error(self, what: str) -> BufferLabError:
        return BufferLabError(f"{self.field} {self.path}: {what}")

    def _check_target(self) -> bool:
        """Whether the target holds an earlier run to replace; raises if it may not be written."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise self._error(_reason(exc)) from None
        if not stat.S_ISDIR(st.st_mode):
            raise self._error("exists and is not a directory")
        try:
            entries = sorted(os.scandir(self.path), key=lambda e: e.name)
        except OSError as exc:
            raise self._error(f"cannot list the directory: {_reason(exc)}") from None
        if not entries:
            return False
        foreign = [e.name for e in entries if e.name not in RUN_FILES or not e.is_file(follow_symlinks=False)]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise self._error(f"the directory is not empty and holds more than a BufferLab run ({shown}); "
                              "give a new or empty directory")
        if not self.force:
            raise self._error("holds an earlier run's results; give --force to replace it whole, "
                              "or another directory")
        return True

    def prepare(self) -> None:
        """Create the temporary directory beside the target now: proves the place is writable."""
        if self._tmp is not None:
            return
        parent = self.path.absolute().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=parent))
        except OSError as exc:
            raise self._error(f"cannot write in {parent}: {_reason(exc)}") from None

    def discard(self) -> None:
        """Remove the temporary directory (after an interrupted or failed run)."""
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def write(self, writer: Writer) -> List[Path]:
        """Run ``writer(directory)`` (it returns the names it wrote) in the temporary directory, then move
        that directory into place; returns the final paths."""
        self.prepare()
        assert self._tmp is not None
        try:
            names = writer(self._tmp)
            self._commit()
        except OSError as exc:
            self.discard()
            name = Path(exc.filename).name if getattr(exc, "filename", None) else "the results"
            raise OutputError(f"{self.field} {self.path}: cannot write {name}: {_reason(exc)}; "
                              "nothing was written") from None
        except BaseException:
            self.discard()
            raise
        return [self.path / name for name in names]

    def _commit(self) -> None:
        assert self._tmp is not None
        replace = self._check_target()
        if not replace:
            os.replace(self._tmp, self.path)  # the target is absent or an empty directory
            self._tmp = None
            return
        old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".old", dir=self._tmp.parent))
        os.replace(self.path, old)
        try:
            os.replace(self._tmp, self.path)
        except OSError:
            os.replace(old, self.path)
            raise
        self._tmp = None
        shutil.rmtree(old, ignore_errors=True)
