"""Parameter checks shared by the model modules; each failure names the parameter and its allowed range.

Scalars: :func:`check_real` (a finite real number, optionally in an interval) and :func:`check_integer`
(an integer ``>= low``, optionally ``<= high``). Arrays, element-wise: :func:`as_float_array`,
:func:`check_range`, :func:`check_open_interval` and :func:`check_int`. None accepts a bool. A result
computed on the checked arrays goes back as a float or an array by :func:`scalar_or_array`.

``name`` is what the message calls the parameter, so a module can describe it there, e.g.
``"beta (discount factor)"``; ``note`` is appended after the range, e.g. ``"(Eun & Wang 2008)"``.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from typing import Any

import numpy as np

from bufferlab.errors import BufferLabError


def check_real(
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    note: str = "",
    span: str | None = None,
) -> float:
    """A finite real scalar (not a bool or a string), in the interval given by ``low``/``high`` if any.

    ``None`` leaves that end unbounded; ``low_open``/``high_open`` exclude the end. ``span`` replaces the
    interval as written in the message (e.g. ``"the open interval (0, 1/2)"``); it must say the same range.
    """
    if not _is_real(value):
        raise BufferLabError(f"{name} must be a real number, got {_got(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise BufferLabError(f"{name} must be finite, got {_got(value)}")
    if _outside(x, low, high, low_open, high_open):
        text = span if span is not None else _interval(low, high, low_open, high_open)
        raise BufferLabError(f"{name} must be in {text}{_suffix(note)}, got {_got(value)}")
    return x


def check_integer(name: str, value: object, low: int = 1, high: int | None = None, *, note: str = "") -> int:
    """An integer scalar with ``low <= value (<= high)``: an int, a numpy integer or an integral float.

    Bools, strings, non-integral and non-finite numbers are rejected.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        n = int(value)
    elif _is_real(value) and float(value).is_integer():
        n = int(float(value))
    else:
        n = None
    if n is None or n < low or (high is not None and n > high):
        rng = _int_range(low, high)
        raise BufferLabError(f"{name} must be an integer {rng}{_suffix(note)}, got {_got(value)}")
    return n


def as_float_array(name: str, value: object) -> np.ndarray:
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "b":
            raise TypeError("bool")
        arr = raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise BufferLabError(f"{name} must be a number or an array of numbers, got {_got(value)}") from exc
    if not np.all(np.isfinite(arr)):
        raise BufferLabError(f"{name} must be finite, got {_show(arr)}")
    return arr


def check_open_interval(name: str, value: object, low: float, high: float) -> np.ndarray:
    """``low < value < high`` element-wise."""
    return check_range(name, value, low, high, low_open=True, high_open=True)


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
    if np.any(_outside(arr, low, high, low_open, high_open)):
        text = _interval(low, high, low_open, high_open)
        raise BufferLabError(f"{name} must be in {text}, got {_show(arr)}")
    return arr


#: Largest integer an array check accepts: every integer up to it is exact in a float64.
MAX_ARRAY_INT = 2**53


def check_int(name: str, value: object, low: int, high: int | None = None) -> np.ndarray:
    """Integer-valued array with ``low <= value (<= high)``; at most 2^53 in any case."""
    arr = as_float_array(name, value)
    if np.any(arr != np.round(arr)):
        raise BufferLabError(f"{name} must be an integer, got {_show(arr)}")
    if np.any(arr < low) or (high is not None and np.any(arr > high)):
        raise BufferLabError(f"{name} must be an integer {_int_range(low, high)}, got {_show(arr)}")
    if np.any(arr > MAX_ARRAY_INT):
        raise BufferLabError(f"{name} must be an integer {_int_range(low, MAX_ARRAY_INT)}, got {_show(arr)}")
    return arr.astype(np.int64)


def scalar_or_array(x: np.ndarray) -> Any:
    """``x`` as a Python float when it is 0-dimensional (the inputs were scalars), else ``x`` itself."""
    return float(x) if np.ndim(x) == 0 else x


def _is_real(value: object) -> bool:
    """A real number: a Python or numpy real scalar, or a 0-d numpy array of one; not a bool."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iuf"
    return isinstance(value, numbers.Real)


def _outside(x: Any, low: float | None, high: float | None, low_open: bool, high_open: bool) -> Any:
    """True (element-wise) where ``x`` lies outside the interval."""
    bad = np.zeros(np.shape(x), dtype=bool)
    if low is not None:
        bad |= (x <= low) if low_open else (x < low)
    if high is not None:
        bad |= (x >= high) if high_open else (x > high)
    return bad


def _interval(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
    hi = "inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
    return f"{lo}, {hi}"


def _int_range(low: int, high: int | None) -> str:
    if high is None:
        return f">= {low}"
    return f"in [{low}, {'2^53' if high == MAX_ARRAY_INT else high}]"


def _suffix(note: str) -> str:
    return f" {note}" if note else ""


def _got(value: object) -> str:
    """The value as given: a number plain (``0.5``, not ``np.float64(0.5)``), anything else a short repr."""
    if isinstance(value, (numbers.Number, np.ndarray)) and np.ndim(value) == 0:
        return str(value)
    return reprlib.repr(value)


def _show(arr: np.ndarray) -> str:
    if arr.ndim == 0:
        return f"{float(arr):g}"
    flat = arr.ravel()
    if flat.size <= 6:
        return "[" + ", ".join(f"{v:g}" for v in flat) + "]"
    bad = int(np.count_nonzero(~np.isfinite(flat)))
    if bad:
        return f"an array of {flat.size} values, {bad} not finite"
    return f"an array with min {flat.min():g} and max {flat.max():g}"
