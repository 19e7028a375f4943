"""Property-based tests of the Python API and the CLI (Hypothesis): mutated scenarios and ``--set`` overrides.

Every generated input either fails with one BufferLabError (exit 2 from the CLI) whose message starts with
a field of the input (or the table that lacks it), or runs, conserves packets and reports metrics in their
ranges, with no NaN in the summary. Inputs are the shipped examples, shortened to 1 s and at most 5 flows
per group, with one to three mutations: a value at an edge of its range or beyond, of the wrong type, in
another unit or misspelt; a field deleted; an unknown field added. The same mutations are also given as
``--set key=value`` overrides, through ``bufferlab.run`` and through the CLI's ``main`` in-process.

``BUFFERLAB_FUZZ_EXAMPLES`` sets the number of examples per test (default 50, derandomized so that CI
always runs the same ones); a larger number draws new examples at random (docs/robustness.md).
``BUFFERLAB_FUZZ_LOG=FILE`` appends one JSON line per example (input, outcome) for the long runs.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import re
import signal
import tempfile
import threading
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bufferlab
from bufferlab import BufferLabError, simulate
from bufferlab.cli import main

EXAMPLES = int(os.environ.get("BUFFERLAB_FUZZ_EXAMPLES", "50"))
LOG = os.environ.get("BUFFERLAB_FUZZ_LOG")
#: A run that takes longer than this (wall seconds) is interrupted and counts as not finishing.
WATCHDOG_S = 120.0

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 50, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

Path_ = Tuple[Any, ...]


# --- inputs ----------------------------------------------------------------------------------------------


def shortened(node: Any, key: str = "") -> Any:
    """A copy of an example that runs quickly: starts within 0.2 s, at most 5 flows per group, coarse
    sampling."""
    if key == "start":
        return {"uniform": ["0s", "0.2s"]} if isinstance(node, dict) else "0.1s"
    if isinstance(node, dict):
        return {k: shortened(v, k) for k, v in node.items()}
    if isinstance(node, list):
        return [shortened(v, key) for v in node]
    if key == "count" and isinstance(node, int):
        return min(node, 5)
    if key == "sample_interval":
        return "100ms"
    return node


#: Inputs beside the shipped examples, for the surfaces none of them has: ``[trace]`` (events and a pcap),
#: ``[limits]``, three ``[[links]]`` with multi-hop routes and queued ACKs, a parking lot's cross traffic.
EXTRA: Dict[str, Dict[str, Any]] = {
    "fuzz-trace-limits": {
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 30}},
        "flows": {"count": 4, "rtt": "40ms"},
        "trace": {"events": True, "kinds": ["drop", "timeout", "state"], "flows": [0, "1-2"],
                  "ports": ["bottleneck"], "start": "0.1s", "stop": "0.9s", "max_events": 1000,
                  "pcap": os.path.join(tempfile.gettempdir(), "bufferlab-fuzz.pcap"), "port": "bottleneck",
                  "side": "ingress", "snaplen": 96, "max_packets": 100, "max_bytes": "1MB"},
        "limits": {"memory": "2GB", "events": 1e9}},
    "fuzz-links-routes": {
        "links": [{"name": "a", "rate": "10Mbps", "delay": "2ms",
                   "queue": {"discipline": "droptail", "limit": 20}},
                  {"name": "b", "rate": "8Mbps", "delay": "3ms", "queue": {"discipline": "red", "limit": 40}},
                  {"name": "back", "rate": "10Mbps", "delay": "9ms",
                   "queue": {"discipline": "droptail", "limit": 20}}],
        "flows": [{"name": "long", "count": 2, "rtt": "60ms", "route": ["a", "b"], "ack_route": ["back"]},
                  {"name": "short", "count": 2, "rtt": "30ms", "route": ["b"]}]},
    "fuzz-parking-lot-cross": {
        "parking_lot": {"hops": 3, "rate": "10Mbps", "delay": ["1ms", "2ms", "3ms"],
                        "queue": {"discipline": "droptail", "limit": 25},
                        "cross": {"count": 2, "rtt": {"uniform": ["20ms", "30ms"]},
                                  "tcp": {"delayed_ack": True}}},
        "flows": {"count": 2, "rtt": "50ms"}},
}


def sources() -> List[str]:
    """What mutations start from: the shipped examples and :data:`EXTRA`."""
    return list(simulate.examples()) + sorted(EXTRA)


def base(name: str) -> Dict[str, Any]:
    scenario = copy.deepcopy(EXTRA[name]) if name in EXTRA else shortened(bufferlab.load_scenario(name))
    scenario["duration"], scenario["warmup"] = "1s", "0.5s"
    return scenario


def leaves(node: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Every field path of a scenario (tables and lists included), list items by index."""
    if path:
        yield path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        yield from leaves(v, path + (k,))


def dotted(path: Path_) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


ODD = [None, True, "", "x", [], {}, [1, "a"], {"junk": 1}, -1, 0, 2**64, float("nan"), float("inf"), 1e308]
TIMES = ["0s", "-1s", "1e12s", "2e7s", "0.3s", "1ms", "1e-15s", "abc", "10 parsecs", "1 s", "١s", "5000 ms",
         "1.0000000000001s"]
RATES = ["0bps", "-1Mbps", "1e30bps", "1kbps", "10Gbps", "1Mbps", "3mbps", "bps", "1e3", "inf bps"]
SIZES = ["0B", "-1B", "1e30B", "19B", "20B", "65535B", "65536B", "64KiB", "1.5KB", "1.2B"]
NUMBERS = [0, 1, -1, 2, 0.5, 1e-9, 0.999999, 1.0000001, 10**6, 10**9, 2**31, 2**63, 2**64, -(2**63),
           1e308, -1e308, float("nan"), float("inf"), -float("inf"), "1", "1e2"]
WORDS = ["bogus", "", "DROPTAIL", "droptail", "red", "newreno", "whittle", "live", "auto"]
BOOLS = [0, 1, "true", "yes", None]


def kind(value: Any) -> str:
    """Which pool mutates ``value``."""
    from bufferlab import _engine

    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        for name, parse in (("time", _engine.parse_time), ("rate", _engine.parse_rate),
                            ("size", _engine.parse_size)):
            if parse(value) is not None:
                return name
        return "word"
    return "table" if isinstance(value, dict) else "list"


#: Values near the example's own, mostly valid: the runs the properties check.
NEAR = {"time": ["0.3s", "1ms", "50ms", "0.9s", "200us"], "rate": ["1Mbps", "500kbps", "10Gbps", "2Mbps"],
        "size": ["1500B", "576B", "20B", "9000B"], "word": WORDS, "bool": [True, False]}


def near(value: Any) -> List[Any]:
    """Values close to ``value``: a number scaled (0, half, double, ten times), a quantity in the same
    unit, the other boolean; a table or a list unchanged."""
    if kind(value) == "number":
        scaled = [value * f for f in (0, 0.5, 2, 10)]
        return [int(v) if isinstance(value, int) else v for v in scaled] + [1]
    return NEAR.get(kind(value), [value])  # a table or a list stays as it is


POOLS = {"bool": BOOLS, "number": NUMBERS, "time": TIMES, "rate": RATES, "size": SIZES, "word": WORDS,
         "table": ODD, "list": ODD}


@st.composite
def mutated(draw: Any) -> Tuple[str, Dict[str, Any], List[Tuple[str, Path_, Any]]]:
    """(example name, mutated scenario, the mutations as (action, path, value))."""
    name = draw(st.sampled_from(sources()))
    scenario = base(name)
    done: List[Tuple[str, Path_, Any]] = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        paths = list(leaves(scenario))
        path = draw(st.sampled_from(paths))
        parent = get(scenario, path[:-1])
        action = draw(st.sampled_from(["near"] * 6 + ["value", "value", "odd", "delete", "unknown"]))
        if action == "delete":
            del parent[path[-1]]
            value = None
        elif action == "unknown":
            value = copy.deepcopy(draw(st.sampled_from(ODD)))  # the pools are never changed
            if isinstance(parent, dict):
                parent["fuzz_field"] = value
                path = path[:-1] + ("fuzz_field",)
        else:
            current = parent[path[-1]]
            pool = {"odd": ODD, "near": near(current)}.get(action) or POOLS[kind(current)]
            value = copy.deepcopy(draw(st.sampled_from(pool)))
            parent[path[-1]] = value
        done.append((action, path, value))
    return name, scenario, done


def get(node: Any, path: Path_) -> Any:
    for part in path:
        node = node[part]
    return node


def toml_literal(value: Any) -> str:
    """``value`` written as a TOML literal for ``--set`` (NaN and infinities as TOML writes them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_literal(v)}" for k, v in value.items()) + "}"
    return "{}"  # None: TOML has no null; an empty table


def toml_document(scenario: Dict[str, Any]) -> str:
    """A scenario as a TOML file: one ``key = value`` line per top-level field, inline tables inside."""
    return "".join(f"{k} = {toml_literal(v)}\n" for k, v in scenario.items())


@st.composite
def overridden(draw: Any) -> Tuple[str, Dict[str, Any], List[str]]:
    """(example name, its shortened scenario, --set overrides mutating one to three of its fields)."""
    name = draw(st.sampled_from(sources()))
    scenario = base(name)
    sets: List[str] = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        path = draw(st.sampled_from([p for p in leaves(scenario) if all(isinstance(x, str) for x in p)]))
        value = get(scenario, path)
        literal = draw(st.one_of(
            st.sampled_from(near(value)).map(toml_literal),
            st.sampled_from(near(value)).map(toml_literal),
            st.sampled_from(POOLS[kind(value)] + ODD).map(toml_literal),
            st.sampled_from(["", "abc", "1e400", "-1e400", "1979-05-27", "[1,", "{a=}", "\"unterminated"])))
        odd_keys = [dotted(path) + ".x"] + ([dotted(path[:-1]) + ".junk"] if len(path) > 1 else [])
        key = draw(st.sampled_from([dotted(path)] * 6 + odd_keys))
        sets.append(f"{key}={literal}")
    return name, scenario, sets


def affordable(scenario: Any) -> bool:
    """Whether a run fits the test's budget: at most 1,000 flows and 60 s simulated. Valid inputs beyond it
    (up to 10^6 flows, a year) are for the engine's work estimates to refuse (the audit's B1-B3, C1); until
    they do, such examples are skipped rather than left to exhaust the test process."""
    from bufferlab import _engine

    if not isinstance(scenario, dict):
        return True
    counts = [v for p in leaves(scenario) if p[-1] == "count" and isinstance(v := get(scenario, p), int)]
    duration = scenario.get("duration")
    if isinstance(duration, str):
        duration = _engine.parse_time(duration)
    long = isinstance(duration, (int, float)) and not isinstance(duration, bool) and 60 < duration < 4e7
    return sum(c for c in counts if c > 0) <= 1000 and not long


# --- checks ----------------------------------------------------------------------------------------------


#: A field path as messages write it: ``bottleneck.queue.limit``, ``flows[1].rtt``.
FIELD = re.compile(r"^[A-Za-z_][\w-]*(\[\d+\])*(\.[\w-]+(\[\d+\])*)*$")


def named_field(message: str, inputs: List[Any], overrides: List[str]) -> None:
    """The message starts with a field of one of the ``inputs`` (the scenario before and after the
    mutations), or with a field of one of their tables that the input leaves out (a required field, or
    one whose default breaks a rule: ``parking_lot.queue[1].ecn: needs tcp.ecn = true``); with ``--set``
    when overrides were given."""
    prefix = message.split(": ", 1)[0].replace(".[", "[")  # the engine writes links.[0].name
    if prefix.startswith("--set") and overrides:
        return
    present = {"scenario"} | {re.sub(r"\[\d+\]", "", dotted(p)) for node in inputs for p in leaves(node)}
    field = re.sub(r"\[\d+\]", "", prefix)
    parent = field.rsplit(".", 1)[0] if "." in field else "scenario"
    assert FIELD.match(prefix) and (field in present or parent in present), (
        f"the message names no field of the input: {message!r}")


def check_summary(summary: Dict[str, Any], ports: List[Dict[str, Any]]) -> None:
    """Conservation, utilization in [0, 1], rates >= 0, no NaN (an undefined metric is None)."""
    assert summary["sent"] == summary["delivered"] + summary["dropped"] + summary["in_flight"], summary
    for key, value in summary.items():
        assert not (isinstance(value, float) and math.isnan(value)), f"{key} is NaN"
        if isinstance(value, (int, float)) and (key.endswith(("_bps", "_rate", "_s", "_pkts")) or key in (
                "utilization", "sent", "delivered", "dropped", "in_flight", "drops", "marks")):
            assert value >= 0, f"{key} = {value} < 0"
    rows = [(None, summary["utilization"])] + [(p["name"], p["utilization"]) for p in ports]
    assert all(u is None or 0.0 <= u <= 1.0 for _, u in rows), rows


@contextlib.contextmanager
def elsewhere(factory: Any) -> Iterator[None]:
    """Run in a fresh temporary directory: a mutated ``trace.pcap`` may name a file relative to it."""
    cwd = os.getcwd()
    os.chdir(factory.mktemp("cwd"))
    try:
        yield
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def watchdog() -> Iterator[None]:
    """Interrupt the run (SIGINT) if it takes longer than WATCHDOG_S: it then counts as not finishing."""
    timer = threading.Timer(WATCHDOG_S, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def log(record: Dict[str, Any]) -> None:
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(record, default=repr) + "\n")


# --- properties ------------------------------------------------------------------------------------------


@FUZZ
@given(case=mutated(), use_overrides=st.booleans())
def test_python_api_mutated_scenarios(case: Tuple[str, Dict[str, Any], list], use_overrides: bool,
                                      tmp_path_factory: Any) -> None:
    name, scenario, mutations = case
    overrides: List[str] = []
    if use_overrides:  # the last mutation as an override instead, where a dotted key can say it
        action, path, value = mutations[-1]
        if action != "delete" and all(isinstance(x, str) for x in path):
            overrides = [f"{dotted(path)}={toml_literal(value)}"]
    record = {"test": "api", "example": name, "mutations": mutations, "overrides": overrides}
    with contextlib.suppress(BufferLabError):
        assume(affordable(simulate.apply_overrides(copy.deepcopy(scenario), overrides)))
    try:
        with watchdog(), elsewhere(tmp_path_factory):
            results = bufferlab.run(scenario, overrides=overrides, progress=False)
    except BufferLabError as exc:
        log({**record, "error": str(exc)})
        assert "\n" not in str(exc)
        named_field(str(exc), [scenario, base(name)], overrides)
        return
    except simulate.Interrupted as exc:
        log({**record, "unfinished": str(exc)})
        raise AssertionError(f"the run did not finish within {WATCHDOG_S:g} s") from None
    log({**record, "summary": results.summary})
    check_summary(results.summary, results.ports.to_dict(orient="records"))


@FUZZ
@given(case=overridden())
def test_cli_set_overrides(case: Tuple[str, Dict[str, Any], List[str]], tmp_path_factory: Any) -> None:
    name, scenario, sets = case
    path = tmp_path_factory.mktemp("fuzz") / f"{name}.toml"
    path.write_text(toml_document(scenario))
    with contextlib.suppress(BufferLabError):
        assume(affordable(simulate.apply_overrides(copy.deepcopy(scenario), sets)))
    argv = ["run", str(path), "--json", "--quiet", *(a for s in sets for a in ("--set", s))]
    out, err = io.StringIO(), io.StringIO()
    with watchdog(), elsewhere(tmp_path_factory), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        status = main(argv)
    log({"test": "cli", "example": name, "sets": sets, "status": status, "stderr": err.getvalue(),
         "summary": json.loads(out.getvalue()) if status == 0 else None})
    assert status in (0, 2), f"exit {status}: {err.getvalue()}"
    if status == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bufferlab: error: "), err.getvalue()
        inputs = [scenario]
        with contextlib.suppress(BufferLabError):
            inputs.append(simulate.apply_overrides(bufferlab.load_scenario(path), sets))
        named_field(lines[0][len("bufferlab: error: "):], inputs, sets)
        return
    check_summary(json.loads(out.getvalue()), [])


def test_named_field_accepts_the_table_of_a_missing_field() -> None:
    scenario = {"bottleneck": {"queue": {"discipline": "droptail"}}, "flows": [{"count": 1}]}
    named_field("bottleneck.queue.limit: required", [scenario], [])
    named_field("flows[0].rtt: required", [scenario], [])
    named_field("scenario: missing field `duration`", [scenario], [])
    named_field("links: required: a network", [scenario], [])
    named_field("bottleneck.queue.ecn: needs tcp.ecn = true", [scenario], [])
    for message in ("values must be numbers", "values must be numbers: x", "tcp.x: unknown field",
                    "bottleneck.rate.x.y: bad", "flows[0].tcp.x: bad"):
        with pytest.raises(AssertionError):
            named_field(message, [scenario], [])


# --- every command's arguments -----------------------------------------------------------------------------

#: Hostile option values: empty, negative, zero, huge, beyond a float, non-finite, not numbers, paths that
#: cannot be written or read, malformed KEY=VALUE and grid specifications.
HOSTILE = ["", "-1", "0", "1e308", "1e400", "nan", "inf", "-inf", "abc", "3mbps", "10 parsecs", "/proc/x",
           "/dev/zero", "/", "x=1", "=", "a..b", "bottleneck.queue.limit=abc", "flows.count=0",
           "duration=1e9s", "bottleneck.queue.limit=1..1000000:lin:1000000", "[1,", "1,2,,3", "٣"]

#: Each command with arguments that keep its work small whatever is added (a short run, a dry sweep); the
#: options drawn for it. `validate`, `reproduce`, `bench` and `advise --verify` start long jobs when their
#: arguments are valid and have their own tests of bad arguments.
COMMANDS: Dict[str, Tuple[List[str], List[str]]] = {
    "run": (["run", "droptail", "--quiet", "--set", "duration=0.05s", "--set", "warmup=0s",
             "--set", "flows.start=0s", "--set", "flows.count=3"],
            ["--set", "--out", "--pcap", "--plot", "--json", "--force"]),
    "sweep": (["sweep", "droptail", "--dry-run", "--quiet", "--set", "duration=0.05s"],
              ["--grid", "--zip", "--seeds", "--set", "--workers", "--out"]),
    "advise": (["advise"], ["--capacity", "--flows", "--rtt", "--target-utilization", "--packet-size",
                            "--wmax", "--alpha", "--epsilon", "--json"]),
    "model queueing": (["model", "queueing"], []),
    "model tiny-buffers": (["model", "tiny-buffers"], []),
    "model eun-wang": (["model", "eun-wang"], []),
    "model whittle": (["model", "whittle"], []),
    "report": (["report"], []),
    "plot": (["plot"], ["--x", "--y", "--hue", "--col", "--where", "--logx", "--out"]),
}


def _options(words: List[str]) -> List[str]:
    """The options of the (sub)command ``words`` names, from the CLI's own parser."""
    import argparse

    from bufferlab.cli import build_parser

    parser: Any = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return [a.option_strings[-1] for a in parser._actions
            if a.option_strings and "-h" not in a.option_strings]


@st.composite
def command_line(draw: Any) -> List[str]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    argv, options = COMMANDS[name]
    argv = list(argv)
    if name in ("report", "plot"):
        argv.append(draw(st.sampled_from(HOSTILE)))
    options = options or _options(name.split())
    for _ in range(draw(st.integers(1 if options else 0, 3 if options else 0))):
        option = draw(st.sampled_from(options))
        argv.append(option)
        if option not in ("--json", "--force", "--quiet", "--dry-run", "--per-flow", "--series"):
            argv.append(draw(st.sampled_from(HOSTILE)))
    return argv


@FUZZ
@given(argv=command_line())
@pytest.mark.slow
def test_every_command_answers_hostile_arguments_cleanly(argv: List[str], tmp_path_factory: Any) -> None:
    """An exit status of 0, 1 or 2 within the watchdog, and a failure says so in one line naming what it
    refuses (an argument error from argparse, or `bufferlab: error: ...`), never a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with watchdog(), elsewhere(tmp_path_factory), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: an unknown option or a value of the wrong type
            status = int(exc.code or 0)
    log({"test": "commands", "argv": argv, "status": status, "stderr": err.getvalue()})
    assert status in (0, 1, 2), f"exit {status}: {err.getvalue()}"
    assert "Traceback" not in err.getvalue(), err.getvalue()
    if status != 0:
        last = err.getvalue().strip().splitlines()[-1]
        assert last.startswith("bufferlab: error: ") or ": error: " in last, err.getvalue()
