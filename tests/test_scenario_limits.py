"""The audit's reproductions through the Python API: the field named, or a correct result."""

from __future__ import annotations

import copy
import datetime
import math
from pathlib import Path

import pytest

import bufferlab
from bufferlab.errors import BufferLabError

ROOT = Path(__file__).resolve().parents[1]
BASE = {
    "duration": "2s",
    "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 50}},
    "flows": {"count": 5, "rtt": "50ms"},
}


def error(patch: dict, overrides: tuple = ()) -> str:
    scenario = copy.deepcopy(BASE)
    scenario.update(patch)
    with pytest.raises(BufferLabError) as info:
        bufferlab.resolve(scenario, overrides)
    return str(info.value)


@pytest.mark.parametrize(
    "patch, overrides, field, got",
    [
        ({}, ("bottleneck.rate=nan",), "bottleneck.rate", "got nan"),
        ({}, ("bottleneck.rate=inf",), "bottleneck.rate", "got inf"),
        ({}, ("duration=1e400",), "duration", "got inf"),
        ({"seed": math.nan}, (), "seed", "got nan"),
        ({"duration": datetime.datetime(1979, 5, 27, 7, 32)}, (), "duration", "1979-05-27"),
    ],
)
def test_values_json_cannot_hold_name_the_field(patch: dict, overrides: tuple, field: str, got: str) -> None:
    message = error(patch, overrides)
    assert message.startswith(f"{field}: ") and got in message, message


@pytest.mark.parametrize(
    "overrides, message",
    [
        (("bottleneck.queue.limit=-1",), "bottleneck.queue.limit: expected a whole number >= 0, got -1"),
        (("bottleneck.queue.max_p=\"abc\"", "bottleneck.queue.discipline=\"red\""),
         'bottleneck.queue.max_p: expected a number, got "abc"'),
        (("flows.rtt={uniform=[\"0.1s\",\"1s\"], junk=1}",),
         'flows.rtt.junk: unknown field "junk" (valid: uniform)'),
        (('flows.access_rate={uniform=["-1Mbps","1Gbps"]}',),
         "flows.access_rate.uniform[0]: must be in [1 kbps, 10 Tbps] (got -1000000)"),
    ],
)
def test_bad_values_name_the_field(overrides: tuple, message: str) -> None:
    assert error({}, overrides) == message


def test_times_fit_the_clock_and_the_window_is_not_empty() -> None:
    assert error({"duration": "2e7s"}).startswith("duration: must be in [1 us, 180 days]")
    assert error({"duration": "1.0000000000001s", "warmup": "1s"}).startswith(
        "warmup: must leave a measurement window (duration - warmup) of at least 1 us")


def test_costly_scenarios_are_refused_naming_the_field_and_the_override() -> None:
    storm = {"duration": "1s", "bottleneck": BASE["bottleneck"],
             "udp": [{"pattern": "cbr", "rate": "10Tbps", "packet_size": "20B"}]}
    with pytest.raises(BufferLabError, match=r"^udp\[0\]\.rate: .* set limits\.events = 6\.3e10 to run"):
        bufferlab.resolve(storm)
    resolved = bufferlab.resolve(storm, ["limits.events=1e11"])
    assert resolved["limits"]["events"] == 1e11 and resolved["estimate"]["events"] > 6e10
    cwnd = {"duration": "10s", "flows": {"count": 100000, "rtt": "50ms"},
            "monitor": {"sample_interval": "1ms", "cwnd": True}}
    assert error(cwnd).startswith("monitor.sample_interval: 10,001 samples x 100,002 columns")


def test_utilization_counts_a_straddling_packet_in_part() -> None:
    r = bufferlab.run(ROOT / "validation/scenarios/v03-10flows-droptail-0.5bdp.toml", [
        "bottleneck.rate=1Mbps", "tcp.packet_size=1500B", "duration=1.5s", "warmup=0.8976"])
    assert 0.99 < r.summary["utilization"] <= 1.0
    assert r.summary["partial"] is False


# --------------------------------------------------------------------- the estimate against the runs

#: Where the events estimate is looser than 2× of a busy run, and why: a port shared by 576- and 1,500-byte
#: packets is bounded at the smaller size (1,500 / 576 = 2.6 times the per-packet headroom of about 1.2);
#: senders without a window limit are counted at what they may offer as well as what the link serves.
#: The incast example collapses: its port is busy 4 % of the run, waiting out timeouts, where the estimate
#: takes it busy all along.
LOOSER = {"v34-two-groups-576B-1500B": 3.2, "poisson-injection": 2.5, "incast": 10.0}


def _scenarios() -> list:
    return sorted((ROOT / "python" / "bufferlab" / "scenarios").glob("*.toml")) + sorted(
        (ROOT / "validation" / "scenarios").glob("*.toml"))


@pytest.fixture(scope="module")
def warm_imports() -> None:
    """One short run first, so that the first measured run's Python peak holds its tables and not the
    modules a run imports on first use (pandas, pyarrow), which a process pays once."""
    bufferlab.run("dctcp", overrides=["duration=20ms", "warmup=0s"], progress=False)


@pytest.mark.parametrize("path", _scenarios(), ids=lambda p: p.stem)
@pytest.mark.slow
def test_the_estimate_bounds_every_example_and_validation_run(path: Path, warm_imports: None) -> None:
    """Events and memory, each never below what the run takes and at most 2× above what it would take with
    its links busy and its queues full (the estimate assumes both).

    Events: the run's events over the first link's utilization. Memory: the engine's peak heap plus the
    peak of what Python allocates while it builds the tables (``tracemalloc``), against the estimate with
    each port's queued packets taken at the most the run queued there."""
    import tracemalloc

    resolved = bufferlab.resolve(path)["estimate"]
    tracemalloc.start()
    try:
        results = bufferlab.run(path, progress=False)
        python_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    summary = results.summary
    events, busy = summary["events"], max(summary["utilization"], 0.25)
    estimated = resolved["events"]
    assert estimated >= events, f"estimate {estimated:.3g} below the run's {events:.3g} events"
    factor = LOOSER.get(path.stem, 2.0)
    assert estimated <= factor * events / busy, (
        f"estimate {estimated:.3g} over {factor}x the {events:.3g} events of a run at utilization {busy:.2f}")

    used = results.heap_peak_bytes + python_peak
    # The interpreter's own memory is not in a run's allocations (test_the_estimate_bounds_a_process).
    memory = resolved["memory_bytes"] - sum(t["amount"] for t in resolved["memory_terms"]
                                            if t["field"] == "limits.memory")
    assert memory >= used, f"memory estimate {memory / 1e6:.2f} MB below the {used / 1e6:.2f} MB used"
    queued = [t for t in resolved["memory_terms"] if t["field"].endswith(".limit")]
    assert len(queued) == len(results.ports)
    as_run = memory - sum(t["amount"] * (1 - min(1.0, q / t["count"]))
                          for t, q in zip(queued, results.ports["queue_max_pkts"]) if t["count"] > 0)
    assert as_run <= 2 * used, (
        f"memory estimate {as_run / 1e6:.2f} MB with the queues the run had, over 2x the {used / 1e6:.2f} MB")


def _peak_rss(count: int) -> tuple:
    """(peak resident bytes of a fresh interpreter that runs the droptail example with ``count`` flows
    through ``bufferlab.run``, the memory estimate). The estimate is taken in another process: the resolved
    scenario, every flow's draws included, is not part of a run."""
    import subprocess
    import sys

    sets = ["flows.count=" + str(count), "duration=0.01s", "warmup=0s", "flows.start=0s"]
    # VmHWM, not ru_maxrss: Linux carries the forking process's peak over exec into ru_maxrss.
    script = (
        "import sys, bufferlab\n"
        "sets = sys.argv[1:]\n"
        "results = bufferlab.run('droptail', overrides=sets, progress=False)\n"
        "assert len(results.flows) == int(sets[0].split('=')[1])\n"
        "peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(int(peak.split()[1]) * 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, *sets], capture_output=True, text=True,
                         check=True, timeout=600).stdout
    return float(out), bufferlab.resolve("droptail", sets, per_flow=False)["estimate"]["memory_bytes"]


@pytest.mark.slow
def test_the_memory_estimate_counts_the_python_tables() -> None:
    """200,000 flows through ``bufferlab.run``: what the process gains over a run of 1,000 flows (the
    interpreter and its libraries) lies between the estimate's gain and half of it, and the whole process's
    peak (the interpreter included) between the estimate and half of it."""
    small_rss, small_estimate = _peak_rss(1_000)
    large_rss, large_estimate = _peak_rss(200_000)
    used, estimated = large_rss - small_rss, large_estimate - small_estimate
    assert used <= estimated <= 2 * used, f"estimate {estimated / 1e6:.0f} MB, used {used / 1e6:.0f} MB"
    for rss, estimate in ((small_rss, small_estimate), (large_rss, large_estimate)):
        assert rss <= estimate <= 2 * rss, f"estimate {estimate / 1e6:.0f} MB, peak {rss / 1e6:.0f} MB"
