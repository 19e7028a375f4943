"""A progress bar over runs whose count can grow (more seeds while a verdict is undecided), shown on a
terminal only: ``bar(done, total)`` after each run, ``bar.close()`` at the end."""

from __future__ import annotations

import sys


class RunBar:
    """A tqdm bar named ``desc`` over ``unit``s; hidden unless standard error is a terminal."""

    def __init__(self, desc: str, unit: str = "run") -> None:
        from tqdm import tqdm  # noqa: PLC0415

        self.bar = tqdm(total=0, unit=unit, desc=desc, leave=False, disable=not sys.stderr.isatty())

    def __call__(self, done: int, total: int) -> None:
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
