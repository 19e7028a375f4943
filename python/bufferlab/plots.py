"""Shared figure output, the one place a figure is written: as PNG and SVG unless told otherwise; a directory
that cannot be written is one :class:`~bufferlab.errors.BufferLabError` naming the option (``--plot`` unless
told otherwise)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO, List, Optional, Sequence, Union

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


def save_figure(fig: Any, directory: Optional[Union[str, Path]], stem: str, dpi: int = 120,
                field: str = "--plot", formats: Sequence[str] = ("png", "svg"), tight: bool = False,
                buffer: Optional[BinaryIO] = None) -> List[Path]:
    """Write ``fig`` as ``<directory>/<stem>.<ext>`` for each of ``formats`` (creating the directory), close
    it, and return the paths. ``tight`` lays the figure out first; ``buffer`` also receives it as PNG; with
    ``directory`` None only ``buffer`` is written."""
    import matplotlib.pyplot as plt

    try:
        if tight:
            fig.tight_layout()
        if buffer is not None:
            fig.savefig(buffer, format="png", dpi=dpi)
        if directory is None:
            return []
        out = ensure_directory(directory, field)
        paths = [out / f"{stem}.{ext}" for ext in formats]
        for path in paths:
            try:
                fig.savefig(path, dpi=dpi)
            except OSError as exc:
                raise BufferLabError(f"{field}: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return paths
