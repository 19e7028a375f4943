"""What a reproduction's figures share: pyplot on the file-only backend, and each figure written as PNG and
SVG with its caption for the report (``figures(results, out)`` returns :attr:`FigureSet.made`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Sequence, Tuple

import numpy as np

from bufferlab.plots import save_figure


class FigureSet:
    """The figures of one report, written into ``out``."""

    def __init__(self, out: Path, dpi: int = 110) -> None:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415

        self.plt, self.out, self.dpi = plt, out, dpi
        self.made: List[Tuple[str, str]] = []

    def save(self, fig: Any, stem: str, caption: str) -> None:
        """Lay ``fig`` out, write it as ``stem``.png and ``stem``.svg, close it, and keep its caption."""
        save_figure(fig, self.out, stem, dpi=self.dpi, field="--out", tight=True)
        self.made.append((stem, caption))


def errorbar(ax: Any, xs: Sequence[float], ests: Sequence[Any], **kw: Any) -> None:
    """Means over seeds (``Estimate``s) at ``xs`` with their 95 % intervals; a missing bound draws none."""
    m = np.array([e.mean for e in ests])
    lo, hi = m - np.array([e.low for e in ests]), np.array([e.high for e in ests]) - m
    lo[~np.isfinite(lo)], hi[~np.isfinite(hi)] = 0.0, 0.0
    ax.errorbar(xs, m, yerr=[lo, hi], marker="o", ms=4, capsize=2, **kw)
