"""Parsing of quantities with units: rates, times and sizes.

Strings such as ``"10Gbps"``, ``"100ms"``, ``"1500B"`` or ``"1.5KB"`` are read by the engine's own parser
(``crates/engine/src/units.rs``), so a string means here exactly what it means in a scenario file. Plain
numbers are SI base units (bits/s, seconds, bytes). Units are case-sensitive SI: ``"Mbps"``, not ``"mbps"``.
Prefixes k/M/G/T (and P for sizes) are decimal (1 KB = 1000 B); sizes also take KiB/MiB/GiB/TiB/PiB.
Every bad input raises :class:`~bufferlab.errors.BufferLabError` naming the field and showing valid syntax.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional, Tuple, Union

from bufferlab.errors import BufferLabError

Number = Union[int, float]

__all__ = ["parse_rate", "parse_time", "parse_size", "format_rate", "format_time", "format_size",
           "format_value"]


class _Kind(NamedTuple):
    what: str  # "rate", "time", "size"
    engine_parser: str  # the function of bufferlab._engine that reads a string
    example: str
    units: Tuple[str, ...]  # the unit spellings the engine accepts (for error messages only)
    units_text: str


_RATE = _Kind(
    "rate",
    "parse_rate",
    "'100Mbps'",
    tuple(p + s for s in ("bps", "b/s", "bit/s", "bits/s", "Bps", "B/s") for p in ("", "k", "M", "G", "T")),
    "bps, kbps, Mbps, Gbps, Tbps, also written b/s, bit/s, bits/s; Bps or B/s for bytes/s",
)
_TIME_UNITS = ("s", "sec", "ms", "us", "µs", "ns", "ps", "min")
_TIME = _Kind("time", "parse_time", "'100ms'", _TIME_UNITS, ", ".join(_TIME_UNITS))
_SIZE_UNITS = ("B", "KB", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB")
_SIZE = _Kind("size", "parse_size", "'1500B'", _SIZE_UNITS, ", ".join(_SIZE_UNITS))


def _case_fix(text: str, parse: Callable[[str], Optional[float]], units: Tuple[str, ...]) -> Optional[str]:
    """``text`` with its unit re-cased to one the engine accepts (``"3mbps"`` -> ``"3Mbps"``), if any."""
    s = text.strip()
    for unit in sorted(units, key=len, reverse=True):
        tail = s[len(s) - len(unit) :]
        if len(s) > len(unit) and tail != unit and tail.lower() == unit.lower():
            candidate = s[: len(s) - len(unit)] + unit
            if parse(candidate) is not None:
                return candidate
    return None


def _parse(value: object, field: str, kind: _Kind, allow_zero: bool) -> float:
    """The value in SI base units (a bare number already is one), range-checked."""
    what = kind.what
    if isinstance(value, bool):
        raise BufferLabError(f"{field}: expected a {what}, got {value!r} (write e.g. {kind.example})")
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, str):
        from bufferlab import _engine

        parse = getattr(_engine, kind.engine_parser)
        parsed = parse(value)
        if parsed is None:
            fixed = _case_fix(value, parse, kind.units)
            if fixed is not None:
                raise BufferLabError(
                    f"{field}: cannot read {value!r} as a {what}: units are case-sensitive SI: "
                    f"{fixed!r}, not {value.strip()!r}"
                )
            raise BufferLabError(
                f"{field}: cannot read {value!r} as a {what}: write e.g. {kind.example} "
                f"(a number, then a case-sensitive SI unit: {kind.units_text})"
            )
        out = parsed
    else:
        raise BufferLabError(
            f"{field}: expected a {what} (a number or a string such as {kind.example}), got {value!r}"
        )
    if not math.isfinite(out):
        raise BufferLabError(f"{field}: {what} must be finite, got {value!r}")
    if out < 0 or (out == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise BufferLabError(f"{field}: {what} must be {bound}, got {value!r}")
    return out


def parse_rate(value: object, field: str = "rate", allow_zero: bool = False) -> float:
    """Parse a link rate such as ``"10Gbps"``, ``"100Mb/s"`` or ``"1.25GBps"``; return bits per second."""
    return _parse(value, field, _RATE, allow_zero)


def parse_time(value: object, field: str = "time", allow_zero: bool = False) -> float:
    """Parse a duration such as ``"100ms"``, ``"2s"`` or ``"50us"``; return seconds."""
    return _parse(value, field, _TIME, allow_zero)


def parse_size(value: object, field: str = "size", allow_zero: bool = False) -> int:
    """Parse a size such as ``"1500B"``, ``"1.5KB"`` or ``"64KiB"``; return whole bytes."""
    out = _parse(value, field, _SIZE, allow_zero)
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


def format_value(value: object, fmt: str, missing: str = "-", scale: float = 1.0) -> str:
    """``fmt`` applied to ``value * scale``; ``missing`` for an undefined value (None, NaN or infinite), so
    a table never shows ``nan``."""
    if value is None or not math.isfinite(value):  # type: ignore[arg-type]
        return missing
    return fmt.format(value * scale if scale != 1.0 else value)  # type: ignore[operator]
