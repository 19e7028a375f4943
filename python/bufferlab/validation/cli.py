"""`bufferlab validate [SCENARIO ...] [--quick] [--out docs/validation] [--ns3-only]`.

Runs each scenario in BufferLab and in ns-3, writes ``<out>/report.md`` (tables, figures, speed) plus
``<out>/results/<name>.json``, and exits 1 if any verdict fails, 2 if ns-3 (or the engine) is missing.
Without SCENARIO arguments it runs every ``validation/scenarios/*.toml`` (``--quick``: the ones listed in
``validation/quick.txt``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from pathlib import Path
from typing import Any, Dict, List

from bufferlab.errors import BufferLabError
from bufferlab.validation import compare, ns3sim

DEFAULT_DIR = Path("validation") / "scenarios"
#: Replications per scenario by default. With 10 DropTail flows, Jain's index varies by 0.05-0.06 from seed
#: to seed in both simulators, so three runs leave a standard error near the 0.03 tolerance.
FEW_FLOWS_REPLICATIONS, MANY_FLOWS_REPLICATIONS, MANY_FLOWS = 10, 3, 100
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
                   f"noisy, {MANY_FLOWS_REPLICATIONS} from {MANY_FLOWS} flows on)")
    p.add_argument("--isolate", action="store_true",
                   help="run each ns-3 simulation in a fresh interpreter (adds ~10 s per scenario)")
    p.set_defaults(func=handler)


def _count(value: Any) -> str:
    """A count (possibly a mean over seeds) as a whole number with thousands separators."""
    return "-" if value is None else f"{float(value):,.0f}"


def _load_toml(path: Path) -> Dict[str, Any]:
    try:
        import tomllib  # type: ignore[import-not-found]  # noqa: PLC0415
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]  # noqa: PLC0415
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise BufferLabError(f"{path}: no such scenario file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise BufferLabError(f"{path}: malformed TOML: {exc}") from exc
    data.setdefault("name", path.stem)
    return data


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


def replications_for(scenario: Dict[str, Any], requested: int | None) -> int:
    """The number of seeds to run: as requested, else by the scenario's flow count."""
    if requested is not None:
        if requested < 1:
            raise BufferLabError(f"--replications must be >= 1 (got {requested})")
        return requested
    flows = int((scenario.get("flows") or {}).get("count", 1))
    return FEW_FLOWS_REPLICATIONS if flows < MANY_FLOWS else MANY_FLOWS_REPLICATIONS


def handler(args: argparse.Namespace) -> int:
    paths = scenario_paths(args.scenarios, args.quick)
    scenarios = [_load_toml(p) for p in paths]
    if not ns3sim.ns3_available():
        print("bufferlab validate: ns-3 is not installed, nothing was compared. "
              "Install it with `pip install ns3==3.44.post0` (or `pip install bufferlab[ns3]`).",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "results").mkdir(parents=True, exist_ok=True)
    comps: List[compare.Comparison] = []
    for path, sc in zip(paths, scenarios):
        print(f"[validate] {sc['name']} ({path}) ...", file=sys.stderr, flush=True)
        try:
            comp = compare.compare_replicated(sc, replications_for(sc, args.replications),
                                              ns3_only=args.ns3_only, isolate=args.isolate)
        except ns3sim.Ns3Unavailable as exc:
            print(f"bufferlab validate: {exc}", file=sys.stderr)
            return 2
        comps.append(comp)
        _save_json(out / "results" / f"{comp.name}.json", comp)
        compare.plot_queue(comp, out / "figures" / f"{comp.name}-queue.png")
        compare.plot_goodput(comp, out / "figures" / f"{comp.name}-goodput.png")
        print(f"[validate] {comp.name}: {comp.verdict}" + (
            f" (ns-3 {comp.ns3_wall_s:.1f} s)" if comp.ns3_wall_s else ""), file=sys.stderr, flush=True)
    report = write_report(comps, out, ns3_only=args.ns3_only)
    print(f"report: {report}")
    failed = [c.name for c in comps if c.verdict == "fail"]
    skipped = [c.name for c in comps if c.verdict == "skipped"]
    if skipped:
        print(f"skipped (not expressible in ns-3): {', '.join(skipped)}", file=sys.stderr)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _save_json(path: Path, comp: compare.Comparison) -> None:
    data = {
        "name": comp.name, "verdict": comp.verdict, "skipped": comp.skipped, "notes": comp.notes,
        "rows": [r.__dict__ for r in comp.rows], "engine_wall_s": comp.engine_wall_s,
        "ns3_wall_s": comp.ns3_wall_s, "engine": comp.engine,
        "ns3": {k: v for k, v in (comp.ns3 or {}).items() if k not in ("queue_series",)},
    }
    path.write_text(json.dumps(data, indent=1, default=float))


def write_report(comps: List[compare.Comparison], out: Path, *, ns3_only: bool = False) -> Path:
    """``<out>/report.md``: a summary, then one section per scenario."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# BufferLab against ns-3",
        "",
        f"Generated {now} on {platform.machine()} / Python {platform.python_version()} / ns-3 3.44 (PyPI "
        "`ns3`), by `bufferlab validate" + (" --ns3-only" if ns3_only else "") + "`.",
        "",
        "Tolerances: utilization ±2 percentage points; loss rate (and ECN mark rate) ±25 % relative, or "
        "±0.002 absolute when both are below 1 %; mean queue ±15 %; Jain's index ±0.03. ns-3 is the "
        "reference for relative tolerances. How each scenario field maps onto ns-3, and the semantic "
        "differences, are in [ns3-mapping.md](ns3-mapping.md).",
        "",
        "## Summary",
        "",
        "| scenario | flows | verdict | BufferLab wall, all seeds (s) | ns-3 wall, all seeds (s) "
        "| ns-3 events per run | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in comps:
        n = (c.scenario.get("flows") or {}).get("count", "?")
        ev = c.ns3.get("events") if c.ns3 else None
        ratio = c.speed_ratio
        ew = f"{c.engine_wall_s:.3f}" if c.engine_wall_s else "-"
        nw = f"{c.ns3_wall_s:.1f}" if c.ns3_wall_s else "-"
        rt = f"{ratio:.0f}x" if ratio else "-"
        lines.append(
            f"| [{c.name}](#{c.name}) | {n} | {c.verdict} | {ew} | {nw} | "
            f"{_count(ev)} | {rt} |"
        )
    lines.append("")
    for c in comps:
        lines += [f"## {c.name}", ""]
        desc = c.scenario.get("description")
        if desc:
            lines += [str(desc), ""]
        if c.skipped:
            lines += [f"**Skipped**: {c.skipped}", ""]
            continue
        lines += [f"Verdict: **{c.verdict}**", "", compare.table_markdown(c), ""]
        lines.append(
            "Per-flow goodput, Mb/s (min / p10 / median / p90 / max): "
            f"BufferLab {compare.goodput_quantiles(c.engine_goodput)}; "
            f"ns-3 {compare.goodput_quantiles(c.ns3_goodput)}."
        )
        lines.append("")
        if c.ns3:
            lines.append(
                f"Speed: ns-3 {c.ns3_wall_s:.2f} s of `Simulator::Run()` over all seeds; per run "
                f"{c.ns3.get('cpu_s', float('nan')):.2f} s CPU ({c.ns3.get('setup_s', 0):.1f} s setup), "
                f"{_count(c.ns3.get('events'))} events, {_count(c.ns3.get('bottleneck_packets'))} bottleneck "
                "packets"
                + (f"; BufferLab {c.engine_wall_s:.3f} s over all seeds; ratio {c.speed_ratio:.0f}x."
                   if c.speed_ratio else ".")
            )
            lines.append("")
        for fig in ("queue", "goodput"):
            p = out / "figures" / f"{c.name}-{fig}.png"
            if p.exists():
                lines.append(f"![{c.name} {fig}](figures/{p.name})")
        lines.append("")
        if c.notes:
            lines += ["Notes:", ""] + [f"- {n}" for n in c.notes] + [""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
