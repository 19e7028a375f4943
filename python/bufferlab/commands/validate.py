"""`bufferlab validate [SCENARIO ...] [--quick] [--out docs/validation] [--ns3-only]`.

Runs each scenario in BufferLab and in ns-3, writes ``<out>/report.md`` (tables, figures, speed) plus
``<out>/results/<name>.json`` (``validation/report.py``), keeps every finished ns-3 run in ``<out>/runs/``
(started again after an interruption, it reads them back: ``validation/cache.py``), and exits 1 if any
verdict fails or stays inconclusive at the replication cap, 2 if ns-3 (or the engine) is missing.
Without SCENARIO arguments it runs every ``validation/scenarios/*.toml`` (``--quick``: the ones listed in
``validation/quick.txt``). Before any run, every file is read as ``bufferlab run`` reads it and checked by the
engine's resolver, and then ``<out>``, its ``figures`` and ``results`` are created (each problem one error
naming the file or ``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

from bufferlab.errors import BufferLabError
from bufferlab.plots import ensure_directory
from bufferlab.progress import RunBar
from bufferlab.simulate import load_scenario
from bufferlab.validation import compare, ns3sim
from bufferlab.validation.cache import Ns3RunCache
from bufferlab.validation.pool import Ns3Pool, check_jobs
from bufferlab.validation.report import write_report, write_result

DEFAULT_DIR = Path("validation") / "scenarios"
#: Replications per scenario by default. With 10 DropTail flows, Jain's index varies by 0.05-0.06 from seed
#: to seed in both simulators, so three runs leave a standard error near the 0.03 tolerance. Scenarios with
#: several groups (below 100 flows) compare each group's Jain's index over as few as 5 flows, which moves by
#: 0.03-0.06 from seed to seed: ten seeds gave v15's eastbound group -0.031 (seeds 1-10) and +0.029 (seeds
#: 11-20), twenty -0.001.
FEW_FLOWS_REPLICATIONS, MANY_FLOWS_REPLICATIONS, MANY_FLOWS = 10, 3, 100
GROUPS_REPLICATIONS = 20
QUICK_LIST = Path("validation") / "quick.txt"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "validate",
        help="compare BufferLab with ns-3 on scenarios and write a report",
        description="Run scenarios in BufferLab and in ns-3 (pip install ns3==3.44.post0) and compare them "
        "against fixed tolerances; writes a Markdown report with tables and figures.",
    )
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                   help="scenario TOML files (default: validation/scenarios/*.toml)")
    p.add_argument("--quick", action="store_true", help="only the CI quick subset (validation/quick.txt)")
    p.add_argument("--out", default="docs/validation", help="report directory (default: docs/validation)")
    p.add_argument("--ns3-only", action="store_true", help="run ns-3 alone (no engine, no verdicts)")
    p.add_argument("--replications", type=int, default=None, metavar="R",
                   help="independent seeds per scenario; verdicts compare the means (default: "
                   f"{FEW_FLOWS_REPLICATIONS} below {MANY_FLOWS} flows, where phase effects make single runs "
                   f"noisy, {GROUPS_REPLICATIONS} there with several flow groups, "
                   f"{MANY_FLOWS_REPLICATIONS} from {MANY_FLOWS} flows on)")
    p.add_argument("--max-replications", action="append", default=None, metavar="[NAME=]N",
                   help="cap on seeds per scenario while a verdict is inconclusive (default: "
                   f"{compare.CAP_FACTOR} times the initial count); NAME=N sets it for the scenarios whose "
                   "name starts with NAME (repeatable), e.g. --max-replications v04=300")
    p.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                   help="start no further batch of seeds once a scenario has run this long (default: none; "
                   "verdicts then no longer depend on the seeds alone)")
    p.add_argument("--isolate", action="store_true",
                   help="run each ns-3 simulation in a fresh interpreter (adds ~10 s per scenario)")
    p.add_argument("--fresh", action="store_true",
                   help="run every ns-3 simulation again instead of reading back the runs stored by an "
                   "earlier (or interrupted) run of the same scenarios and seeds")
    p.add_argument("--runs", default=None, metavar="DIR",
                   help="where finished ns-3 runs are stored and read back (default: OUT/runs); reports "
                   "that share it share their runs")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="ns-3 simulations to run at once, each in a worker process of its own (default: 1, "
                   "in this process); results do not depend on it")
    p.set_defaults(func=handler)


def scenario_paths(paths: List[str], quick: bool) -> List[Path]:
    """The scenario files to run, in order."""
    if paths:
        return [Path(p) for p in paths]
    if quick:
        if not QUICK_LIST.exists():
            raise BufferLabError(f"{QUICK_LIST}: not found (run from the repository root or pass files)")
        names = [ln.strip() for ln in QUICK_LIST.read_text().splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        return [DEFAULT_DIR / n for n in names]
    if not DEFAULT_DIR.is_dir():
        raise BufferLabError(f"{DEFAULT_DIR}: not found (run from the repository root or pass files)")
    found = sorted(DEFAULT_DIR.glob("*.toml"))
    if not found:
        raise BufferLabError(f"{DEFAULT_DIR}: no scenario files")
    return found


def load_file(path: Path) -> Dict[str, Any]:
    """A scenario file read as ``bufferlab run`` reads it (:func:`bufferlab.simulate.load_scenario`: UTF-8
    text of at most 16 MB, nesting bounded, each problem one error naming the file), named after the file
    unless it names itself."""
    scenario = load_scenario(path)
    scenario.setdefault("name", Path(path).stem)
    return scenario


def flow_count(scenario: Dict[str, Any]) -> Tuple[int, int]:
    """TCP flows of a scenario (all groups together) and its groups, as the engine's resolver counts them."""
    groups = ns3sim.resolve(scenario)["groups"]
    return sum(len(g["flows"]) for g in groups), len(groups)


def replication_caps(values: List[str] | int | None) -> Tuple[int | None, Dict[str, int]]:
    """``--max-replications`` values (or one number): the cap for every scenario (None: the default) and
    caps by name prefix; each checked."""
    default: int | None = None
    by_name: Dict[str, int] = {}
    for value in [values] if isinstance(values, int) else values or ():
        name, sep, number = str(value).rpartition("=")
        try:
            cap = int(number)
        except ValueError:
            raise BufferLabError(f"--max-replications: expected N or NAME=N, got {value!r}") from None
        compare.replication_cap(1, cap)  # validates it
        if not sep:
            default = cap
        elif not name:
            raise BufferLabError(f"--max-replications: empty scenario name in {value!r}")
        else:
            by_name[name] = cap
    return default, by_name


def cap_for(name: str, default: int | None, by_name: Dict[str, int]) -> int | None:
    """The cap of scenario ``name``: the longest matching name prefix's, else the default."""
    matches = [prefix for prefix in by_name if name.startswith(prefix)]
    return by_name[max(matches, key=len)] if matches else default


def replications_for(flows: int, requested: int | None, groups: int = 1) -> int:
    """The number of seeds to run: as requested, else by the scenario's flow count (all groups) and groups."""
    if requested is not None:
        if requested < 1:
            raise BufferLabError(f"--replications must be >= 1 (got {requested})")
        return requested
    if flows >= MANY_FLOWS:
        return MANY_FLOWS_REPLICATIONS
    return GROUPS_REPLICATIONS if groups > 1 else FEW_FLOWS_REPLICATIONS


def handler(args: argparse.Namespace) -> int:
    paths = scenario_paths(args.scenarios, args.quick)
    budget = getattr(args, "time_budget", None)
    replication_caps(getattr(args, "max_replications", None))  # checked before any work
    if budget is not None and not (math.isfinite(budget) and budget > 0):
        raise BufferLabError(f"--time-budget must be a positive number of seconds (got {budget})")
    jobs = check_jobs(getattr(args, "jobs", 1))
    scenarios = [load_file(p) for p in paths]
    counts = [flow_count(sc) for sc in scenarios]  # the engine's resolver checks every scenario first
    if not ns3sim.ns3_available():
        print("bufferlab validate: ns-3 is not installed, nothing was compared. "
              "Install it with `pip install ns3==3.44.post0` (or `pip install bufferlab[ns3]`).",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    runs_dir = Path(args.runs) if getattr(args, "runs", None) else out / "runs"
    cache = Ns3RunCache(runs_dir, reuse=not getattr(args, "fresh", False))
    for directory in (out, out / "figures", out / "results"):
        ensure_directory(directory, "--out")
    with contextlib.ExitStack() as stack:
        ns3_pool = stack.enter_context(Ns3Pool(jobs, isolate=args.isolate)) if jobs > 1 else None
        comps = _compare_all(paths, scenarios, counts, args, out, ns3_pool, cache)
        if cache.hits:
            print(f"[validate] {cache.hits} ns-3 runs read back from {runs_dir} "
                  "(--fresh runs them again)", file=sys.stderr)
    if comps is None:
        return 2
    report = write_report(comps, out, ns3_only=args.ns3_only)
    print(f"report: {report}")
    failed = [c.name for c in comps if c.verdict == "fail"]
    undecided = [c.name for c in comps if c.verdict == "inconclusive"]
    skipped = [c.name for c in comps if c.verdict == "skipped"]
    if skipped:
        print(f"skipped (not expressible in ns-3): {', '.join(skipped)}", file=sys.stderr)
    if undecided:
        print(f"INCONCLUSIVE at the replication cap (not a pass): {', '.join(undecided)}", file=sys.stderr)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed or undecided else 0


def _compare_all(paths: List[Path], scenarios: List[Dict[str, Any]], counts: List[Tuple[int, int]],
                 args: argparse.Namespace, out: Path, ns3_pool: Ns3Pool | None,
                 cache: Ns3RunCache) -> List[compare.Comparison] | None:
    """Every scenario compared, its results and figures written as it finishes; None without ns-3.
    ``counts`` holds each scenario's TCP flows and groups (:func:`flow_count`)."""
    default_cap, caps = replication_caps(getattr(args, "max_replications", None))
    budget = getattr(args, "time_budget", None)
    comps: List[compare.Comparison] = []
    for path, sc, (flows, groups) in zip(paths, scenarios, counts):
        print(f"[validate] {sc['name']} ({path}) ...", file=sys.stderr, flush=True)
        bar = RunBar(sc["name"], unit="seed")
        try:
            comp = compare.compare_replicated(
                sc, replications_for(flows, args.replications, groups),
                max_replications=cap_for(sc["name"], default_cap, caps),
                time_budget_s=budget, ns3_only=args.ns3_only, isolate=args.isolate, pool=ns3_pool,
                cache=cache, progress=bar,
                log=lambda msg, name=sc["name"]: print(f"[validate] {name}: {msg}", file=sys.stderr,
                                                       flush=True))
        except ns3sim.Ns3Unavailable as exc:
            print(f"bufferlab validate: {exc}", file=sys.stderr)
            return None
        finally:
            bar.close()
        comps.append(comp)
        write_result(out / "results" / f"{comp.name}.json", comp)
        compare.plot_queue(comp, out / "figures" / f"{comp.name}-queue.png")
        compare.plot_goodput(comp, out / "figures" / f"{comp.name}-goodput.png")
        print(f"[validate] {comp.name}: {comp.verdict} ({comp.replications} replications)" + (
            f" (ns-3 {comp.ns3_wall_s:.1f} s)" if comp.ns3_wall_s else ""), file=sys.stderr, flush=True)
    return comps
