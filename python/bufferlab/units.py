"""Parsing of quantities with units: rates, times and sizes.

Strings such as ``"10Gbps"``, ``"100ms"``, ``"1500B"`` or ``"1.5KB"`` are accepted, as are plain numbers,
which are SI base units (bits/s, seconds, bytes). Prefixes k/M/G/T are decimal (1 KB = 1000 B); the binary
prefixes KiB/MiB/GiB/TiB are also understood for sizes. Every bad input raises
:class:`~bufferlab.errors.BufferLabError` naming the field.
"""

from __future__ import annotations

import math
import re
from typing import Dict, Union

from bufferlab.errors import BufferLabError

Number = Union[int, float]

__all__ = ["parse_rate", "parse_time", "parse_size", "format_rate", "format_time", "format_size"]

_NUMBER_RE = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµμ/]*)\s*$")

_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

# rate units -> bits per second
_RATE_UNITS: Dict[str, float] = {"": 1.0}
for _p, _f in _SI.items():
    for _suffix in ("bps", "b/s", "bit/s", "bits/s"):
        _RATE_UNITS[_p + _suffix] = _f
    for _suffix in ("Bps", "B/s"):
        _RATE_UNITS[_p + _suffix] = 8.0 * _f

_TIME_UNITS: Dict[str, float] = {
    "s": 1.0,
    "sec": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ns": 1e-9,
    "min": 60.0,
}

_SIZE_UNITS: Dict[str, float] = {"B": 1.0, "byte": 1.0, "bytes": 1.0}
for _p, _f in _SI.items():
    if _p:
        _SIZE_UNITS[_p + "B"] = _f
for _p, _f in (("Ki", 2.0**10), ("Mi", 2.0**20), ("Gi", 2.0**30), ("Ti", 2.0**40)):
    _SIZE_UNITS[_p + "B"] = _f


def _split(value: object, field: str, what: str) -> tuple:
    if isinstance(value, bool):
        raise BufferLabError(f"{field}: expected a {what}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value), ""
    if not isinstance(value, str):
        raise BufferLabError(f"{field}: expected a {what} (number or string with unit), got {value!r}")
    m = _NUMBER_RE.match(value)
    if not m:
        raise BufferLabError(f"{field}: cannot parse {value!r} as a {what}")
    return float(m.group(1)), m.group(2)


def _finish(number: float, factor: float, value: object, field: str, what: str, allow_zero: bool) -> float:
    out = number * factor
    if not math.isfinite(out):
        raise BufferLabError(f"{field}: {what} must be finite, got {value!r}")
    if out < 0 or (out == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise BufferLabError(f"{field}: {what} must be {bound}, got {value!r}")
    return out


def _parse(
    value: object, field: str, what: str, units: Dict[str, float], hint: str, allow_zero: bool
) -> float:
    """A number times the factor of its unit (a bare number is in SI base units), range-checked."""
    number, unit = _split(value, field, what)
    factor = 1.0 if unit == "" else units.get(unit)
    if factor is None:
        raise BufferLabError(f"{field}: unknown {what} unit {unit!r} in {value!r} (use {hint})")
    return _finish(number, factor, value, field, what, allow_zero)


def parse_rate(value: object, field: str = "rate", allow_zero: bool = False) -> float:
    """Parse a link rate such as ``"10Gbps"``, ``"100Mb/s"`` or ``"1.25GBps"``; return bits per second."""
    return _parse(value, field, "rate", _RATE_UNITS, "bps, kbps, Mbps, Gbps, Tbps or B/s forms", allow_zero)


def parse_time(value: object, field: str = "time", allow_zero: bool = False) -> float:
    """Parse a duration such as ``"100ms"``, ``"2s"`` or ``"50us"``; return seconds."""
    return _parse(value, field, "time", _TIME_UNITS, "s, ms, us or ns", allow_zero)


def parse_size(value: object, field: str = "size", allow_zero: bool = False) -> int:
    """Parse a size such as ``"1500B"``, ``"1.5KB"`` or ``"64KiB"``; return whole bytes."""
    out = _parse(value, field, "size", _SIZE_UNITS, "B, KB, MB, GB, KiB", allow_zero)
    rounded = round(out)
    if abs(out - rounded) > 1e-6 * max(1.0, out):
        raise BufferLabError(f"{field}: size must be a whole number of bytes, got {value!r}")
    return int(rounded)


def _fmt(x: float, units: tuple) -> str:
    for factor, name in units:
        if abs(x) >= factor:
            return f"{x / factor:.4g} {name}"
    return f"{x / units[-1][0]:.4g} {units[-1][1]}"


def format_rate(bps: float) -> str:
    """Human-readable rate, e.g. ``10 Gb/s``."""
    return _fmt(bps, ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s")))


def format_time(seconds: float) -> str:
    """Human-readable duration, e.g. ``100 ms``."""
    return _fmt(seconds, ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")))


def format_size(nbytes: float) -> str:
    """Human-readable size in SI units, e.g. ``125 MB``."""
    return _fmt(nbytes, ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1.0, "B")))
