"""The grid of a sweep: axes of values for dotted scenario keys, their product, and the value grammar.

``KEY=V1,V2,...`` (``--grid``): ``KEY`` is a dotted scenario path (``bottleneck.queue.limit``,
``flows.count``, ``flows[1].rtt``); each comma-separated item is a value as ``--set`` reads it (a TOML
literal such as ``50``, ``0.5``, ``true``, ``"droptail"`` or ``{ uniform = ["10ms", "20ms"] }``, else the text
itself, such as ``10ms`` or ``100Mbps``) or a range ``LO..HI:log:N`` / ``LO..HI:lin:N``: N values from LO to
HI (both included), evenly spaced on a log or linear scale. Range bounds are numbers or quantities with a
unit (``1ms..100ms:log:5``; both bounds the same kind; the values are SI numbers: seconds, bits/s, bytes).
A range whose bounds are both written as whole numbers (``10..200``) gives whole numbers, rounded to the
nearest, duplicates after rounding dropped (``1..4:log:8`` gives 1, 2, 3, 4); sizes are whole bytes; write
``0.0..1.0:lin:5`` for fractions. Zipped axes (``--zip K1=a,b K2=c,d``) vary together, element by element.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from bufferlab.errors import BufferLabError
from bufferlab.simulate import parse_value

__all__ = ["Axis", "parse_axis", "make_axis", "split_items", "expand_range", "points", "check_runs",
           "column_value", "column_kind", "RESERVED", "MAX_RANGE", "MAX_RUNS"]

#: Most values one range may give.
MAX_RANGE = 1_000_000

#: Most runs one sweep may have (combinations x seeds): checked from the axes' sizes before the combinations
#: are enumerated. A million runs is a few days of engine time at a quarter of a second each, and as many
#: records in the sweep's directory.
MAX_RUNS = 1_000_000

#: Columns of the dataset that a swept key may not be named as.
RESERVED = frozenset(["run_key", "seed", "status", "error", "wall_s", "engine_version",
                      "scenario_hash"])

_RANGE = re.compile(r"^(?P<lo>.+?)\.\.(?P<hi>[^:]+):(?P<scale>[A-Za-z]+):(?P<n>[^:]*)$")
_KEY = re.compile(r"^[A-Za-z_][\w-]*(\[\d+\])?(\.[A-Za-z_][\w-]*(\[\d+\])?)*$")
_QUANTITIES = (("time", "parse_time"), ("rate", "parse_rate"), ("size", "parse_size"))


@dataclass
class Axis:
    """One swept key: its ``values`` (as the scenario receives them), ``log`` if they came from a log
    range; ``group`` joins zipped axes (same group = varied together)."""

    key: str
    values: List[Any]
    log: bool = False
    group: int = 0
    ranges: List[str] = field(default_factory=list)


def split_items(text: str) -> List[str]:
    """``text`` split at the commas outside brackets, braces and quotes."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [s.strip() for s in items]


def _bound(text: str, where: str) -> Tuple[float, Optional[str], bool]:
    """A range bound: (SI value, quantity kind or None, written as a whole number)."""
    s = text.strip()
    try:
        value = float(s)
    except ValueError:
        from bufferlab import _engine  # noqa: PLC0415

        found = [(kind, getattr(_engine, fn)(s)) for kind, fn in _QUANTITIES]
        found = [(kind, v) for kind, v in found if v is not None]
        if not found:
            raise BufferLabError(f"{where}: cannot read {s!r} as a number or a quantity with a unit "
                                 "(e.g. 10, 0.5, 10ms, 100Mbps, 1500B)") from None
        kind, value = found[0]
        return float(value), kind, False
    if not math.isfinite(value):
        raise BufferLabError(f"{where}: range bounds must be finite, got {s!r}")
    return value, None, re.fullmatch(r"[+-]?\d+", s) is not None


def expand_range(text: str, where: str) -> Optional[Tuple[List[Any], bool]]:
    """The values of ``LO..HI:log|lin:N`` and whether it is log-spaced; None if ``text`` is not a range."""
    m = _RANGE.match(text.strip())
    if not m or "{" in text or "[" in text or text.strip().startswith(("'", '"')):
        return None
    scale = m.group("scale").lower()
    if scale not in ("log", "lin"):
        raise BufferLabError(f"{where}: range {text!r}: the scale must be log or lin, "
                             f"got {m.group('scale')!r}")
    try:
        n = int(m.group("n"))
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_RANGE:
        raise BufferLabError(f"{where}: range {text!r}: the count must be a whole number in "
                             f"[1, {MAX_RANGE:,}], got {m.group('n')!r}")
    lo, lo_kind, lo_int = _bound(m.group("lo"), where)
    hi, hi_kind, hi_int = _bound(m.group("hi"), where)
    if lo_kind != hi_kind:
        raise BufferLabError(f"{where}: range {text!r}: both bounds must be the same kind "
                             f"({lo_kind or 'number'} and {hi_kind or 'number'})")
    if n == 1 and lo != hi:
        raise BufferLabError(f"{where}: range {text!r}: one value cannot span {lo:g} to {hi:g}; give N >= 2")
    if scale == "log" and (lo <= 0 or hi <= 0):
        raise BufferLabError(f"{where}: range {text!r}: a log range needs bounds > 0")
    if n == 1:
        raw = [lo]
    elif scale == "log":
        raw = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
    else:
        raw = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    raw[0], raw[-1] = lo, hi
    whole = (lo_int and hi_int) or lo_kind == "size"
    values: List[Any] = list(dict.fromkeys(int(round(v)) if whole else v for v in raw))  # duplicates dropped
    return values, scale == "log"


def make_axis(key: str, spec: Any, group: int = 0) -> Axis:
    """An axis from a grammar string (``"10..200:log:8"``, ``"10ms,20ms"``) or a list of literal values."""
    if not isinstance(key, str) or not _KEY.match(key.strip()):
        raise BufferLabError(f"grid key {key!r}: expected a dotted scenario key such as "
                             "bottleneck.queue.limit or flows[1].count")
    key = key.strip()
    if key in RESERVED:
        raise BufferLabError(f"grid key {key}: reserved for the dataset's own column"
                             + ("; give seeds with --seeds" if key == "seed" else ""))
    where = f"--grid {key}"
    axis = Axis(key, [], group=group)
    if isinstance(spec, str):
        items = split_items(spec)
        for item in items:
            if not item:
                raise BufferLabError(f"{where}: empty value in {spec!r}")
            rng = expand_range(item, where)
            if rng is None:
                axis.values.append(parse_value(item))
            else:
                axis.values.extend(rng[0])
                axis.log = axis.log or rng[1]
                axis.ranges.append(item)
    elif isinstance(spec, (list, tuple)):
        axis.values = list(spec)
    else:
        axis.values = [spec]
    if not axis.values:
        raise BufferLabError(f"{where}: no values")
    seen: set = set()
    for v in axis.values:
        identity = _identity(v)
        if identity in seen:
            raise BufferLabError(f"{where}: the value {v!r} is given twice")
        seen.add(identity)
    return axis


def _identity(value: Any) -> Any:
    """What makes two values the same value of an axis: their JSON text (a number and a string, 1 and 1.0,
    true and 1 differ), without writing JSON for the numbers and strings of a long range."""
    if type(value) in (bool, int, str):
        return type(value), value
    if type(value) is float:
        return float, repr(value)
    return json.dumps(value, sort_keys=True, default=str)


def parse_axis(text: str, group: int = 0) -> Axis:
    """``KEY=VALUES`` (a ``--grid`` or ``--zip`` argument) as an axis."""
    key, sep, values = str(text).partition("=")
    if not sep or not key.strip():
        raise BufferLabError("--grid expects KEY=V1,V2,... such as bottleneck.queue.limit=50,100 "
                             f"(got {text!r})")
    return make_axis(key, values, group)


def zip_axes(specs: Union[Mapping[str, Any], Sequence[str]], group: int) -> List[Axis]:
    """The axes of one ``--zip`` (a mapping key → values, or ``KEY=VALUES`` strings): equal lengths."""
    items: Iterable[Tuple[str, Any]] = specs.items() if isinstance(specs, Mapping) else [
        (s.partition("=")[0], s.partition("=")[2]) if "=" in str(s) else (str(s), None) for s in specs]
    axes = []
    for key, values in items:
        if values is None:
            raise BufferLabError(f"--zip expects KEY=V1,V2,... arguments (got {key!r})")
        axes.append(make_axis(key, values, group))
    if len(axes) < 2:
        raise BufferLabError("--zip: give two or more KEY=V1,V2,... to vary together "
                             f"(got {len(axes)}); one key is a --grid")
    lengths = {a.key: len(a.values) for a in axes}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise BufferLabError(f"--zip: the zipped keys need as many values each ({shown})")
    return axes


def _groups(axes: Sequence[Axis]) -> Dict[int, List[Axis]]:
    """The axes by group (a ``--grid`` axis is a group of its own; zipped axes share one)."""
    groups: Dict[int, List[Axis]] = {}
    for a in axes:
        groups.setdefault(a.group, []).append(a)
    return groups


def check_runs(axes: Sequence[Axis], seeds: int) -> int:
    """The number of runs of the axes' combinations over ``seeds`` seeds, computed from the axes' sizes
    before anything is enumerated; above :data:`MAX_RUNS` an error naming ``--grid``, each factor and the
    count."""
    groups = list(_groups(axes).values())
    runs = seeds
    for g in groups:
        runs *= len(g[0].values)
    if runs > MAX_RUNS:
        factors = [f"{g[0].key} ({len(g[0].values):,} values)" if len(g) == 1 else
                   f"{', '.join(a.key for a in g)} zipped ({len(g[0].values):,} values)" for g in groups]
        raise BufferLabError(f"--grid: {' x '.join(factors)} x {seeds:,} seed{'s' if seeds != 1 else ''} = "
                             f"{runs:,} runs; a sweep may have at most {MAX_RUNS:,}: give fewer values or "
                             "seeds, or split it into several sweeps")
    return runs


def points(axes: Sequence[Axis]) -> List[Dict[str, Any]]:
    """Every combination: the product over groups (a ``--grid`` axis is a group of its own), zipped axes
    taken element by element; in the order the axes were given, the last varying fastest."""
    keys = [a.key for a in axes]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise BufferLabError(f"grid key {dup[0]}: swept twice")
    factors = [[{a.key: a.values[i] for a in g} for i in range(len(g[0].values))]
               for g in _groups(axes).values()]
    out = []
    for combo in itertools.product(*factors):
        merged: Dict[str, Any] = {}
        for part in combo:
            merged.update(part)
        out.append({k: merged[k] for k in keys})
    return out


def column_value(value: Any) -> Any:
    """A swept value as the dataset stores it: a quantity with a unit (``"10ms"``, ``"100Mbps"``) as its SI
    number, a table or list as JSON text, anything else as it is."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            from bufferlab import _engine  # noqa: PLC0415

            for _, fn in _QUANTITIES:
                parsed = getattr(_engine, fn)(value)
                if parsed is not None:
                    return float(parsed)
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True)
    return value


def column_kind(values: Sequence[Any]) -> str:
    """The one type of an axis's column: ``bool``, ``int``, ``float`` or ``str`` (mixed → ``str``)."""
    cols = [column_value(v) for v in values]
    if all(isinstance(v, bool) for v in cols):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in cols):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in cols):
        return "float"
    return "str"


def typed_column(value: Any, kind: str) -> Any:
    """``column_value(value)`` converted to the axis's column ``kind``."""
    v = column_value(value)
    if kind == "float":
        return float(v)
    if kind == "str" and not isinstance(v, str):
        return json.dumps(v)
    return v
