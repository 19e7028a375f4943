"""Strict JSON for everything BufferLab prints or writes: an undefined value is ``null``, never ``NaN``.

Python's ``json`` writes ``NaN`` and ``Infinity`` by default, which JSON parsers reject. :func:`json_ready`
turns NaN and infinities into ``None`` and numpy scalars and arrays into Python values; :func:`dumps`
applies it and then refuses any non-finite number that is left (``allow_nan=False``). :func:`loads` reads
strict JSON back: ``NaN``, ``Infinity``, ``-Infinity`` and a number beyond the float range (``1e400``) are
refused (``ValueError``).
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

import numpy as np

__all__ = ["json_ready", "dumps", "loads"]


def json_ready(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None``, numpy values as Python ones, tuples as lists."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return x if math.isfinite(x) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`json_ready` ``(value)``: strict JSON, ``null`` for undefined numbers."""
    return json.dumps(json_ready(value), allow_nan=False, **kwargs)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (an undefined value is written as null)")


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"{text} is beyond the range of a float")
    return x


def loads(text: str) -> Any:
    """``json.loads`` of strict JSON: ``NaN``, ``Infinity``, ``-Infinity`` or a number beyond the float range
    raises ``ValueError``."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
