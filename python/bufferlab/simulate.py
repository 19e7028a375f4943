"""Run a scenario through the Rust engine and get its results as pandas objects.

``run(scenario)`` accepts a path to a TOML file, the name of a built-in example (``"droptail"``), or a
dict with the structure of ``docs/scenario.md``. The engine validates every field; a bad one raises
:class:`~bufferlab.errors.BufferLabError` naming it and its allowed range.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
import reprlib
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from bufferlab.errors import BufferLabError, OutputError
from bufferlab.index_tables import fill_index_tables
from bufferlab.jsonout import dumps, json_ready
from bufferlab.output import TABLES, OutputDir

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


#: Largest scenario file read; a scenario is a short text file (the biggest example is about 2 KB).
MAX_SCENARIO_BYTES = 16 * 1024 * 1024

#: Deepest nesting of tables and lists accepted in a scenario (the format needs five levels).
MAX_DEPTH = 64


def load_scenario(source: ScenarioLike) -> Dict[str, Any]:
    """A scenario as a dict, from a TOML path, a built-in example name, or a mapping (copied and checked:
    numbers, strings, booleans, lists and tables only, numpy scalars read as numbers)."""
    if isinstance(source, Mapping):
        return checked_scenario(source)
    if not isinstance(source, (str, os.PathLike)) or not isinstance(os.fspath(source), str):
        raise BufferLabError("scenario: expected a TOML file path, a built-in example name or a dict, "
                             f"got {_describe(source)}")
    if not os.fspath(source).strip():
        raise BufferLabError("scenario: empty name; give a TOML file or a built-in example name")
    path = _scenario_path(source)
    text = _read_text(path)
    try:
        scenario = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BufferLabError(f"{path}: malformed TOML: {exc}") from None
    except RecursionError:
        raise BufferLabError(f"{path}: malformed TOML: tables or lists nested too deeply") from None
    return _files_relative_to(scenario, path.resolve().parent)


def _short(path: Any, limit: int = 80) -> str:
    text = os.fspath(path)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scenario_path(source: Union[str, os.PathLike]) -> Path:
    """The file ``source`` names: a path, or a built-in example's file."""
    path = Path(source)
    try:
        if not path.exists() and (EXAMPLES_DIR / f"{source}.toml").exists():
            path = EXAMPLES_DIR / f"{source}.toml"
        found = path.exists()
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BufferLabError(f"scenario file {_short(source)}: {reason}") from None
    if not found:
        hint = f" (built-in examples: {', '.join(examples())})" if examples() else ""
        raise BufferLabError(f"scenario file not found: {_short(source)}{hint}")
    return path


def _read_text(path: Path) -> str:
    """The file's text: UTF-8 (a byte-order mark is skipped), at most ``MAX_SCENARIO_BYTES``."""
    try:
        with open(path, "rb") as f:  # in pieces: a single read of the cap would allocate all of it
            data = bytearray()
            while len(data) <= MAX_SCENARIO_BYTES and (piece := f.read(1 << 16)):
                data += piece
    except OSError as exc:
        raise BufferLabError(f"cannot read scenario file {_short(path)}: {exc.strerror or exc}") from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise BufferLabError(f"scenario file {_short(path)}: larger than {MAX_SCENARIO_BYTES // 2**20} MB; "
                             "a scenario is a short TOML text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BufferLabError(f"scenario file {_short(path)}: not UTF-8 text (byte 0x{data[exc.start]:02x} "
                             f"at offset {exc.start}); save it as UTF-8") from None


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


def parse_override(text: str) -> Tuple[List[str], Any]:
    """``"a.b=value"`` → (["a", "b"], value), the value read as a TOML literal when it is one."""
    if not isinstance(text, str):
        raise BufferLabError(f'overrides: expected "key=value" strings, got {_describe(text)}')
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise BufferLabError(f"--set expects key=value with a dotted key such as tcp.ecn=true (got {text!r})")
    return key.split("."), parse_value(raw)


def parse_value(raw: str) -> Any:
    """A value as written on the command line: a TOML literal (``50``, ``true``, ``"x"``, ``[1, 2]``)
    when it is one, else the text itself (``100Mbps``)."""
    try:
        return tomllib.loads(f"v = {raw.strip()}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return raw.strip()


def _override_list(overrides: Any) -> List[str]:
    """``overrides`` as a list of strings: a single string is one override."""
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping) or not isinstance(overrides, Iterable):
        raise BufferLabError(f'overrides: expected a list of "key=value" strings, got {_describe(overrides)}')
    items = list(overrides)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise BufferLabError(f'overrides[{i}]: expected a "key=value" string, got {_describe(item)}')
    return items


def apply_overrides(scenario: Dict[str, Any], overrides: Iterable[str]) -> Dict[str, Any]:
    """Set dotted keys (``bottleneck.queue.limit=50``) in a scenario dict, creating tables as needed."""
    for item in _override_list(overrides):
        path, value = parse_override(item)
        set_field(scenario, path, value, f"--set {item}")
    return scenario


_INDEXED = re.compile(r"^(.+)\[(\d+)\]$")


def set_field(scenario: Dict[str, Any], path: List[str], value: Any, what: str) -> None:
    """Set the field at ``path`` (``["bottleneck", "queue", "limit"]``; a part may index a list of
    tables, ``"flows[1]"``), creating tables as needed; ``what`` names the setting in errors."""
    node: Any = scenario
    for n, part in enumerate(path):
        last = n == len(path) - 1
        m = _INDEXED.match(part)
        name, index = (m.group(1), int(m.group(2))) if m else (part, None)
        if index is None and last:
            node[name] = value
            return
        child = node.get(name) if index is not None else node.setdefault(name, {})
        if index is not None:
            if isinstance(child, dict):
                rest = ".".join([name, *path[n + 1:]]) if not last else f"{name}.KEY"
                raise BufferLabError(f"{what}: {name} is a table ([{name}]), not a list of tables "
                                     f"([[{name}]]); name its field as {rest}")
            if not isinstance(child, list) or index >= len(child):
                size = len(child) if isinstance(child, list) else 0
                raise BufferLabError(f"{what}: {name} has no entry [{index}] ({size} entries)")
            if last:
                child[index] = value
                return
            child = child[index]
        elif isinstance(child, list):
            raise BufferLabError(f"{what}: {name} is a list of tables; name one entry, e.g. {name}[0]")
        if not isinstance(child, dict):
            raise BufferLabError(f"{what}: {part} is not a table")
        node = child


def _describe(value: Any) -> str:
    """``"int 5"``: a value's type and a short repr, for messages."""
    return f"{type(value).__name__} {reprlib.repr(value)}"


def checked_scenario(scenario: Mapping[str, Any]) -> Dict[str, Any]:
    """A copy of ``scenario`` holding only what a scenario file can: strings, finite numbers, booleans,
    lists and tables with string keys (``None`` is kept: the engine reads it as absent). numpy scalars
    become numbers. Anything else raises :class:`~bufferlab.errors.BufferLabError` naming its field."""
    return _checked_value(scenario, "", 0, set())


def _field(path: str) -> str:
    return path or "scenario"


def _checked_value(value: Any, path: str, depth: int, open_ids: set) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if -(2**63) <= number < 2**64:
            return number
        try:  # beyond 64 bits: the engine reads it as a float, as it would the same number in a file
            return float(number)
        except OverflowError:
            raise BufferLabError(f"{_field(path)}: must be a finite number, got an integer of "
                                 f"{len(str(abs(number)))} digits") from None
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise BufferLabError(f"{_field(path)}: must be a finite number, got {float(value)!r}")
        return float(value)
    if isinstance(value, (Mapping, list, tuple)):
        if id(value) in open_ids:
            raise BufferLabError(f"{_field(path)}: refers to itself (a circular reference)")
        if depth >= MAX_DEPTH:
            raise BufferLabError(f"{_field(path)}: tables or lists nested more than {MAX_DEPTH} levels deep")
        open_ids.add(id(value))
        try:
            if isinstance(value, Mapping):
                out: Any = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise BufferLabError(f"{_field(path)}: keys must be strings, got {_describe(key)}")
                    out[key] = _checked_value(item, f"{path}.{key}" if path else key, depth + 1, open_ids)
            else:
                out = [_checked_value(item, f"{path}[{i}]", depth + 1, open_ids)
                       for i, item in enumerate(value)]
        finally:
            open_ids.discard(id(value))
        return out
    if isinstance(value, (datetime.date, datetime.time)):
        raise BufferLabError(f"{_field(path)}: dates and times are not scenario values (got {value}); "
                             'write durations as strings such as "10s"')
    raise BufferLabError(f"{_field(path)}: expected a number, string, boolean, list or table, "
                         f"got {_describe(value)}")


def _to_json(scenario: Mapping[str, Any]) -> str:
    return json.dumps(checked_scenario(scenario), allow_nan=False)


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
    #: The engine's peak heap over the run, in bytes above what it held when the run began (its state,
    #: queues, series and the results it hands over; not Python's tables). Process-wide: runs in several
    #: threads at once add up.
    heap_peak_bytes: int = 0
    extra: Dict[str, Any] = field(default_factory=dict)
    ports: pd.DataFrame = field(default_factory=pd.DataFrame)
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct_records: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The event trace (``[trace] events = true``; columns in ``docs/traces.md``), else empty.
    events: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: What ``[trace]`` recorded (event records kept and over the cap, the pcap's packets), else empty.
    trace: Dict[str, Any] = field(default_factory=dict)
    #: Each port's queueing delay at quantiles ``q`` in [0, 1] (columns ``port``, ``q``, ``delay_s``).
    delay_cdf: pd.DataFrame = field(default_factory=pd.DataFrame)

    def to_dict(self) -> Dict[str, Any]:
        """Summary, per-port, per-group and per-flow rows, FCT statistics and the scenario, ready for strict
        JSON: an undefined value (no RTT sample, an empty window) is ``None``, never NaN."""
        out = {
            "summary": {**self.summary, "wall_s": self.wall_s},
            "ports": self.ports.to_dict(orient="records"),
            "groups": self.groups.to_dict(orient="records"),
            "flows": self.flows.to_dict(orient="records"),
            "fct": self.fct.to_dict(orient="records"),
            "udp": self.udp.to_dict(orient="records"),
            "scenario": self.scenario,
        }
        if self.trace:
            out["trace"] = self.trace
        return json_ready(out)

    def save(self, out_dir: Union[str, Path], force: bool = False) -> List[Path]:
        """Write ``results.json`` and the tables and time series as Parquet into ``out_dir``; returns the
        paths. ``out_dir`` must be new or empty, or (with ``force``) hold an earlier run, which is replaced
        whole; the files appear together or not at all (:mod:`bufferlab.output`)."""
        return OutputDir(out_dir, force=force, field="out_dir").write(self.write_files)

    def write_files(self, directory: Path) -> List[str]:
        """Write ``results.json`` and the non-empty tables into the existing ``directory``; returns the
        names written."""
        frames = {"flows": self.flows, "groups": self.groups, "fct": self.fct,
                  "fct_records": self.fct_records, "udp": self.udp, "queue_series": self.queue_series,
                  "cwnd_series": self.cwnd_series, "events": self.events,
                  "ports": self.ports.drop(columns=["drop_reasons", "mark_reasons", "queue_state"],
                                           errors="ignore")}
        text = dumps(self.to_dict(), indent=2) + "\n"
        _write_file(directory / "results.json", lambda p: p.write_text(text))
        names = ["results.json"]
        for name in TABLES:
            if len(frames[name]):
                _write_file(directory / f"{name}.parquet",
                            lambda p, f=frames[name]: f.to_parquet(p, index=False))
                names.append(f"{name}.parquet")
        return names


def _write_file(path: Path, write: Callable[[Path], Any]) -> None:
    """``write(path)``, with the file's name on any ``OSError`` it raises."""
    try:
        write(path)
    except OSError as exc:
        if getattr(exc, "filename", None):
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def _progress_bar(total: float, enabled: Optional[bool]) -> Any:
    """A tqdm bar over simulated seconds that appears only after two seconds of wall time."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=round(total, 6), unit="sim s", delay=0 if enabled else 2.0, leave=False,
                bar_format="{l_bar}{bar}| {n:.2f}/{total:.2f} sim s [{elapsed}<{remaining}]")


def resolve(scenario: ScenarioLike, overrides: Iterable[str] = (), per_flow: bool = True) -> Dict[str, Any]:
    """The scenario as the engine will run it: every default filled in, every per-flow value drawn from the
    seeded streams, SI units (seconds, bits/s, bytes), Whittle index tables computed (``index = "whittle"``,
    :mod:`bufferlab.index_tables`). The engine's own resolver, so nothing here can drift from what runs.
    ``per_flow=False`` gives each group's ``flow_count`` instead of its ``flows`` (every flow's draws, a
    Python object per flow: about 1.6 KB each, 1.6 GB for a million), for checking a scenario or reading
    its estimate and limits. Raises :class:`~bufferlab.errors.BufferLabError` naming a bad field."""
    from bufferlab import _engine

    spec = fill_index_tables(apply_overrides(load_scenario(scenario), overrides))
    try:
        return json.loads(_engine.resolve(_to_json(spec), per_flow))
    except _engine.ScenarioError as exc:
        raise BufferLabError(str(exc)) from None


#: Engine events per step of a run (about 20-50 ms of work): between two steps a run can be interrupted
#: and the progress bar moves. The engine advances by simulated time, so each step's length is set from the
#: event rate of the steps before it (an estimate: a sudden burst of events makes one step longer).
STEP_EVENTS = 200_000
#: The first and shortest step, simulated seconds.
MIN_STEP_S = 1e-6
#: Every step covers at most this fraction of the run (the progress bar moves at least this often).
MAX_STEP_FRACTION = 0.01


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT) after ``simulated_s`` of its ``duration_s``. Nothing of it is kept:
    the engine's statistics can only be closed at the scenario's end. ``note`` adds to the message."""

    def __init__(self, simulated_s: float, duration_s: float, note: str = "") -> None:
        super().__init__(f"interrupted at {simulated_s:.6g} of {duration_s:.6g} simulated s: the run is "
                         f"discarded{'; ' + note if note else ''}")
        self.simulated_s = simulated_s
        self.duration_s = duration_s


_engine_threads: List[threading.Thread] = []


def engine_running() -> bool:
    """Whether an interrupted run's engine step is still executing in the background."""
    _engine_threads[:] = [t for t in _engine_threads if t.is_alive()]
    return bool(_engine_threads)


def _advance(sim: Any, duration: float, stop: threading.Event, reached: Callable[[float], None]) -> bool:
    """Run ``sim`` to ``duration`` in steps of about ``STEP_EVENTS`` events; False if ``stop`` was set."""
    now, step = 0.0, MIN_STEP_S
    longest = max(duration * MAX_STEP_FRACTION, MIN_STEP_S)
    while now < duration:
        if stop.is_set():
            return False
        until = duration if now + step >= duration else now + step
        before = sim.events()
        sim.advance(until)
        events = sim.events() - before
        span, now = until - now, until
        reached(now)
        grown = 2.0 * step if events == 0 else min(2.0 * step, span * STEP_EVENTS / events)
        step = min(max(grown, MIN_STEP_S), longest)
    return True


def _run_engine(sim: Any, bar: Any, on_step: Optional[Callable[[], None]] = None,
                before_finish: Optional[Callable[[], None]] = None) -> Tuple[Any, ...]:
    """Advance ``sim`` to its end and finish it on a worker thread, so that Ctrl-C reaches this thread at
    once; on Ctrl-C the worker stops after its current step and :class:`Interrupted` is raised.
    ``on_step`` runs on the worker after every step, ``before_finish`` once the end is reached."""
    duration = sim.duration_s()
    stop = threading.Event()
    state: Dict[str, Any] = {"now": 0.0}

    def reached(now: float) -> None:
        state["now"] = now
        if on_step is not None:
            on_step()

    def work() -> None:
        try:
            if _advance(sim, duration, stop, reached):
                if before_finish is not None:
                    before_finish()
                state["result"] = sim.finish()
        except BaseException as exc:  # handed to the caller's thread
            state["error"] = exc

    worker = threading.Thread(target=work, name="bufferlab-engine", daemon=True)
    _engine_threads.append(worker)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
            if bar is not None:
                bar.update(round(state["now"] - bar.n, 6))
    except KeyboardInterrupt:
        stop.set()
        worker.join(0.3)
        raise Interrupted(state["now"], duration) from None
    if "error" in state:
        raise state["error"]
    return state["result"]


def engine_table(columns: Sequence[Tuple[str, str, Any]]) -> pd.DataFrame:
    """A DataFrame from the engine's columns: ``(name, "<i8" | "<f8", little-endian bytes)`` or ``(name,
    "json", a JSON list)``, typed as the same table given as a list of records would be (the engine types
    each column that way), without a Python object per row for numeric columns."""
    return pd.DataFrame({name: json.loads(data) if kind == "json" else np.frombuffer(data, dtype=kind)
                         for name, kind, data in columns})


#: Quantiles at which each port's queueing-delay distribution is kept (``Results.delay_cdf``).
DELAY_QUANTILES = np.concatenate([np.linspace(0.0, 0.99, 100), [0.995, 0.999, 1.0]])


def run(scenario: ScenarioLike, overrides: Iterable[str] = (), progress: Optional[bool] = None,
        trace: Optional[Mapping[str, Any]] = None) -> Results:
    """Simulate a scenario.

    ``overrides`` are ``key=value`` strings applied first (as ``bufferlab run --set``). ``trace`` sets
    fields of the scenario's ``[trace]`` table (``{"pcap": "out.pcap"}``, ``{"events": True}``;
    ``docs/traces.md``). ``progress`` shows a bar on stderr: ``True`` always, ``False`` never, ``None`` when
    stderr is a terminal and the run takes more than two seconds. The engine runs on a worker thread with
    the GIL released; Ctrl-C stops it between two steps and raises :class:`Interrupted` (a
    ``KeyboardInterrupt``), and a pcap being written is removed.
    """
    from bufferlab import _engine

    spec = apply_overrides(load_scenario(scenario), overrides)
    if trace is not None and not isinstance(trace, Mapping):
        raise BufferLabError(f"trace: expected a table of [trace] fields, got {_describe(trace)}")
    if trace:
        table = spec.get("trace")
        spec["trace"] = {**(table if isinstance(table, dict) else {}), **trace}
    scenario_json = _to_json(fill_index_tables(spec))
    _engine.reset_heap_peak()
    heap_before = _engine.heap_bytes()[0]
    try:
        sim = _engine.Simulation(scenario_json)
    except _engine.ScenarioError as exc:
        raise BufferLabError(str(exc)) from None
    from bufferlab.traces import EventCollector

    collector = EventCollector()
    extra: Dict[str, Any] = {}

    def before_finish() -> None:
        collector.drain(sim)
        report = sim.end_trace()
        extra["trace"] = json.loads(report) if report is not None else {}
        extra["delay"] = [sim.delay_quantiles(p, DELAY_QUANTILES.tolist()) for p in range(sim.ports())]

    started = time.perf_counter()
    bar = _progress_bar(sim.duration_s(), progress)
    try:
        text, flows, fct_records, time_s, queue, port_queues, cwnd = _run_engine(
            sim, bar, lambda: collector.drain(sim), before_finish)
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - started
    heap_peak = _engine.heap_bytes()[1] - heap_before
    pcap_error = extra.get("trace", {}).get("pcap_error")
    if pcap_error:  # the trace was lost (a full disk): an error, not a result without it
        raise OutputError(f"trace.pcap: {pcap_error}")
    data = json.loads(text)
    t = np.frombuffer(time_s, dtype="<f8")
    ports = pd.DataFrame(data["ports"])
    queue_series = pd.DataFrame({"time_s": t, "queue_pkts": np.frombuffer(queue, dtype="<f8"),
                                 **{f"queue_{name}": np.frombuffer(q, dtype="<f8")
                                    for name, q in zip(ports.get("name", []), port_queues)}})
    cwnd_series = pd.DataFrame({"time_s": t, **{f"flow_{i}": np.frombuffer(c, dtype="<f8")
                                                for i, c in enumerate(cwnd)}}) if cwnd else pd.DataFrame()
    return Results(summary=data["summary"], flows=engine_table(flows), udp=pd.DataFrame(data["udp"]),
                   queue_series=queue_series, cwnd_series=cwnd_series, scenario=spec, wall_s=wall,
                   heap_peak_bytes=heap_peak, ports=ports, groups=pd.DataFrame(data["groups"]),
                   fct=pd.DataFrame(data["fct"]), fct_records=engine_table(fct_records),
                   events=collector.frame(list(ports["name"])) if "trace" in spec else pd.DataFrame(),
                   trace=extra.get("trace", {}),
                   delay_cdf=pd.DataFrame([{"port": name, "q": q, "delay_s": d}
                                           for name, ds in zip(ports["name"], extra.get("delay", []))
                                           for q, d in zip(DELAY_QUANTILES, ds)]))
