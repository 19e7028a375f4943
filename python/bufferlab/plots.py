"""Shared figure output: every figure is written as PNG and SVG; a directory that cannot be written is one
:class:`~bufferlab.errors.BufferLabError` naming the option (``--plot`` unless told otherwise)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Union

from bufferlab.errors import BufferLabError


def ensure_directory(directory: Union[str, Path], field: str = "--plot") -> Path:
    """Create ``directory`` (and its parents) if needed; raises naming ``field`` if that is impossible."""
    out = Path(directory)
    if not str(directory).strip():
        raise BufferLabError(f"{field}: empty path; give a directory for the figures")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BufferLabError(f"{field}: cannot create directory {str(directory)!r}: "
                             f"{exc.strerror or exc}") from None
    return out


def save_figure(fig: Any, directory: Union[str, Path], stem: str, dpi: int = 120,
                field: str = "--plot") -> List[Path]:
    """Write ``fig`` as ``<directory>/<stem>.png`` and ``.svg``, close it, and return the two paths."""
    import matplotlib.pyplot as plt

    try:
        out = ensure_directory(directory, field)
        paths = [out / f"{stem}.{ext}" for ext in ("png", "svg")]
        for path in paths:
            try:
                fig.savefig(path, dpi=dpi)
            except OSError as exc:
                raise BufferLabError(f"{field}: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return paths
