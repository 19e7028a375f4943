"""Run a scenario through the Rust engine and get its results as pandas objects.

``run(scenario)`` accepts a path to a TOML file, the name of a built-in example (``"droptail"``), or a
dict with the structure of ``docs/scenario.md``. The engine validates every field; a bad one raises
:class:`~bufferlab.errors.BufferLabError` naming it and its allowed range.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

import numpy as np
import pandas as pd

from bufferlab.errors import BufferLabError
from bufferlab.index_tables import fill_index_tables

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ScenarioLike = Union[str, Path, Mapping[str, Any]]

#: Built-in example scenarios, shipped inside the package.
EXAMPLES_DIR = Path(__file__).with_name("scenarios")


def examples() -> List[str]:
    """Names of the built-in example scenarios."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.toml"))


def load_scenario(source: ScenarioLike) -> Dict[str, Any]:
    """A scenario as a dict, from a TOML path, a built-in example name, or a mapping (deep-copied)."""
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source))
    path = Path(source)
    if not path.exists() and (EXAMPLES_DIR / f"{source}.toml").exists():
        path = EXAMPLES_DIR / f"{source}.toml"
    if not path.exists():
        hint = f" (built-in examples: {', '.join(examples())})" if examples() else ""
        raise BufferLabError(f"scenario file not found: {source}{hint}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BufferLabError(f"cannot read scenario file {path}: {exc.strerror}") from exc
    try:
        scenario = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BufferLabError(f"{path}: malformed TOML: {exc}") from exc
    return _files_relative_to(scenario, path.resolve().parent)


def _files_relative_to(scenario: Dict[str, Any], base: Path) -> Dict[str, Any]:
    """Make the file names a scenario refers to (``size = { cdf = "sizes.txt" }``) relative to its file."""
    groups: List[Any] = []
    flows = scenario.get("flows")
    groups.extend(flows if isinstance(flows, list) else [flows])
    lot = scenario.get("parking_lot")
    if isinstance(lot, dict):
        groups.append(lot.get("cross"))
    for group in groups:
        size = group.get("size") if isinstance(group, dict) else None
        cdf = size.get("cdf") if isinstance(size, dict) else None
        if isinstance(cdf, str) and not Path(cdf).is_absolute():
            size["cdf"] = str(base / cdf)
    return scenario


def parse_override(text: str) -> tuple:
    """``"a.b=value"`` → (["a", "b"], value), the value read as a TOML literal when it is one."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise BufferLabError(f"--set expects key=value with a dotted key such as tcp.ecn=true (got {text!r})")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return key.split("."), value


def apply_overrides(scenario: Dict[str, Any], overrides: Iterable[str]) -> Dict[str, Any]:
    """Set dotted keys (``bottleneck.queue.limit=50``) in a scenario dict, creating tables as needed."""
    for item in overrides:
        path, value = parse_override(item)
        node = scenario
        for part in path[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise BufferLabError(f"--set {item}: {part} is not a table")
            node = child
        node[path[-1]] = value
    return scenario


def _to_json(scenario: Mapping[str, Any]) -> str:
    """The scenario as JSON text for the engine. Values JSON cannot hold reach the engine as text it names
    in its error: TOML's ``nan`` and ``inf`` as ``"nan"``, ``"inf"``, ``"-inf"``; TOML dates and times in
    ISO form."""

    def text(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        if isinstance(value, (datetime.date, datetime.time)):
            return value.isoformat()
        if isinstance(value, Mapping):
            return {k: text(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [text(v) for v in value]
        return value

    try:
        return json.dumps(text(scenario), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise BufferLabError(
            f"scenario: values must be numbers, strings, booleans, lists or tables ({exc})"
        ) from exc


@dataclass
class Results:
    """What one run produced.

    ``summary`` holds the metrics of ``docs/scenario.md`` (its port metrics are the first link's);
    ``flows`` has one row per TCP flow started at a fixed time, ``ports`` one per link (queue), ``groups``
    one per flow group, ``fct`` the flow-completion-time statistics per group and size bucket,
    ``fct_records`` finished flows one by one, ``udp`` one row per open-loop source.
    ``queue_series`` (columns ``time_s``, ``queue_pkts`` for the first port, and ``queue_<link>`` for every
    port when there are several) and ``cwnd_series`` (``time_s`` and one column per flow) are empty unless
    ``monitor.sample_interval`` is set.
    """

    summary: Dict[str, Any]
    flows: pd.DataFrame
    udp: pd.DataFrame
    queue_series: pd.DataFrame
    cwnd_series: pd.DataFrame
    scenario: Dict[str, Any]
    wall_s: float = 0.0
    extra: Dict[str, Any] = field(default_factory=dict)
    ports: pd.DataFrame = field(default_factory=pd.DataFrame)
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct_records: pd.DataFrame = field(default_factory=pd.DataFrame)

    def to_dict(self) -> Dict[str, Any]:
        """Summary, per-port, per-group and per-flow rows, FCT statistics and the scenario, ready for JSON."""
        return {
            "summary": {**self.summary, "wall_s": self.wall_s},
            "ports": _records(self.ports),
            "groups": _records(self.groups),
            "flows": _records(self.flows),
            "fct": _records(self.fct),
            "udp": _records(self.udp),
            "scenario": self.scenario,
        }

    def save(self, out_dir: Union[str, Path]) -> List[Path]:
        """Write ``results.json``, ``flows.parquet`` and the time series as Parquet; returns the paths."""
        out = Path(out_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BufferLabError(f"cannot create output directory {out}: {exc.strerror}") from exc
        written = [out / "results.json"]
        written[0].write_text(json.dumps(self.to_dict(), indent=2, default=_json_default) + "\n")
        for name, frame in (("flows", self.flows), ("ports", self.ports.drop(columns=["drop_reasons",
                            "mark_reasons", "queue_state"], errors="ignore")), ("groups", self.groups),
                            ("fct", self.fct), ("fct_records", self.fct_records), ("udp", self.udp),
                            ("queue_series", self.queue_series), ("cwnd_series", self.cwnd_series)):
            if len(frame):
                path = out / f"{name}.parquet"
                frame.to_parquet(path, index=False)
                written.append(path)
        return written


def _records(frame: pd.DataFrame) -> List[Dict[str, Any]]:
    """Rows as dicts, with NaN (a missing value) as None so the JSON stays valid."""
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def _json_default(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return None if math.isnan(x) else float(x)
    raise TypeError(type(x).__name__)


def _progress_bar(total: float, enabled: Optional[bool]) -> Any:
    """A tqdm bar over simulated seconds that appears only after two seconds of wall time."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=round(total, 6), unit="sim s", delay=0 if enabled else 2.0, leave=False,
                bar_format="{l_bar}{bar}| {n:.2f}/{total:.2f} sim s [{elapsed}<{remaining}]")


def resolve(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> Dict[str, Any]:
    """The scenario as the engine will run it: every default filled in, every per-flow value drawn from the
    seeded streams, SI units (seconds, bits/s, bytes), Whittle index tables computed (``index = "whittle"``,
    :mod:`bufferlab.index_tables`). The engine's own resolver, so nothing here can drift from what runs.
    Raises :class:`~bufferlab.errors.BufferLabError` naming a bad field."""
    from bufferlab import _engine

    spec = fill_index_tables(apply_overrides(load_scenario(scenario), overrides))
    try:
        return json.loads(_engine.resolve(_to_json(spec)))
    except _engine.ScenarioError as exc:
        raise BufferLabError(str(exc)) from None


def run(scenario: ScenarioLike, overrides: Iterable[str] = (), progress: Optional[bool] = None) -> Results:
    """Simulate a scenario.

    ``overrides`` are ``key=value`` strings applied first (as ``bufferlab run --set``). ``progress`` shows a
    bar on stderr: ``True`` always, ``False`` never, ``None`` when stderr is a terminal and the run takes more
    than two seconds. The GIL is released while the engine runs.
    """
    from bufferlab import _engine

    spec = apply_overrides(load_scenario(scenario), overrides)
    try:
        sim = _engine.Simulation(_to_json(fill_index_tables(spec)))
    except _engine.ScenarioError as exc:
        raise BufferLabError(str(exc)) from None
    started = time.perf_counter()
    duration = sim.duration_s()
    bar = _progress_bar(duration, progress)
    steps = 100 if bar is not None else 1
    try:
        for k in range(1, steps + 1):
            until = duration * k / steps
            sim.advance(until)
            if bar is not None:
                bar.update(round(until - bar.n, 6))
    finally:
        if bar is not None:
            bar.close()
    text, time_s, queue, port_queues, cwnd = sim.finish()
    wall = time.perf_counter() - started
    data = json.loads(text)
    t = np.frombuffer(time_s, dtype="<f8")
    ports = pd.DataFrame(data["ports"])
    queue_series = pd.DataFrame({"time_s": t, "queue_pkts": np.frombuffer(queue, dtype="<f8"),
                                 **{f"queue_{name}": np.frombuffer(q, dtype="<f8")
                                    for name, q in zip(ports.get("name", []), port_queues)}})
    cwnd_series = pd.DataFrame({"time_s": t, **{f"flow_{i}": np.frombuffer(c, dtype="<f8")
                                                for i, c in enumerate(cwnd)}}) if cwnd else pd.DataFrame()
    return Results(summary=data["summary"], flows=pd.DataFrame(data["flows"]), udp=pd.DataFrame(data["udp"]),
                   queue_series=queue_series, cwnd_series=cwnd_series, scenario=spec, wall_s=wall,
                   ports=ports, groups=pd.DataFrame(data["groups"]), fct=pd.DataFrame(data["fct"]),
                   fct_records=pd.DataFrame(data["fct_records"]))
