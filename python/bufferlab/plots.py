"""Shared figure output: every figure is written as PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Union


def save_figure(fig: Any, directory: Union[str, Path], stem: str, dpi: int = 120) -> List[Path]:
    """Write ``fig`` as ``<directory>/<stem>.png`` and ``.svg``, close it, and return the two paths."""
    import matplotlib.pyplot as plt

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.{ext}" for ext in ("png", "svg")]
    for path in paths:
        fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return paths
