"""Parameter checks shared by the model modules; each failure names the parameter and its allowed range."""

from __future__ import annotations

import numpy as np

from bufferlab.errors import BufferLabError


def as_float_array(name: str, value: object) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise BufferLabError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    if not np.all(np.isfinite(arr)):
        raise BufferLabError(f"{name} must be finite, got {value!r}")
    return arr


def check_open_interval(name: str, value: object, low: float, high: float) -> np.ndarray:
    """``low < value < high`` element-wise."""
    arr = as_float_array(name, value)
    if np.any(arr <= low) or np.any(arr >= high):
        raise BufferLabError(f"{name} must be in ({low:g}, {high:g}), got {_show(arr)}")
    return arr


def check_range(
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> np.ndarray:
    """Element-wise range check with open or closed ends (``None`` = unbounded)."""
    arr = as_float_array(name, value)
    bad = np.zeros(arr.shape, dtype=bool)
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if high is not None:
        bad |= (arr >= high) if high_open else (arr > high)
    if np.any(bad):
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        raise BufferLabError(f"{name} must be in {lo}, {hi}, got {_show(arr)}")
    return arr


def check_int(name: str, value: object, low: int, high: int | None = None) -> np.ndarray:
    """Integer-valued array with ``low <= value (<= high)``."""
    arr = as_float_array(name, value)
    if np.any(arr != np.round(arr)):
        raise BufferLabError(f"{name} must be an integer, got {_show(arr)}")
    if np.any(arr < low) or (high is not None and np.any(arr > high)):
        rng = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise BufferLabError(f"{name} must be an integer {rng}, got {_show(arr)}")
    return arr.astype(np.int64)


def _show(arr: np.ndarray) -> str:
    if arr.ndim == 0:
        return f"{float(arr):g}"
    flat = arr.ravel()
    if flat.size <= 6:
        return "[" + ", ".join(f"{v:g}" for v in flat) + "]"
    return f"an array with min {flat.min():g} and max {flat.max():g}"
