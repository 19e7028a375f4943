"""`bufferlab sweep SCENARIO --grid KEY=VALUES ... --out DIR`: a scenario over a grid of parameters and seeds
(:mod:`bufferlab.sweeps`)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from bufferlab.errors import BufferLabError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sweep", help="run a scenario over a grid of parameters and seeds into a Parquet dataset",
        description="Run every combination of the swept keys over seeds, on local processes or a Dask "
        "cluster, each run kept in DIR as it ends; the same command resumes an interrupted sweep. Values: "
        "V1,V2,... (as --set reads them: 50, 0.5, true, droptail, 10ms, 100Mbps) and ranges LO..HI:log:N or "
        "LO..HI:lin:N (whole-number bounds give whole numbers). See docs/sweeps.md.")
    p.add_argument("scenario", help="scenario TOML file or built-in example name")
    p.add_argument("--grid", action="append", default=[], metavar="KEY=VALUES",
                   help="a swept key and its values, e.g. bottleneck.queue.limit=10..1000:log:7 (repeatable: "
                   "the product of all)")
    p.add_argument("--zip", action="append", nargs="+", default=[], metavar="KEY=VALUES",
                   help="keys varied together, element by element: --zip flows.count=10,100 "
                   "bottleneck.queue.limit=50,500 (repeatable)")
    p.add_argument("--seeds", type=_count("--seeds"), default=1, metavar="K",
                   help="seeds per combination, from the scenario's seed (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a fixed override of the base scenario, as for bufferlab run (repeatable)")
    p.add_argument("--workers", type=_count("--workers"), default=None, metavar="W",
                   help="local engine processes (default: one per core); with --dask local, its workers")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on a dask.distributed scheduler (tcp://host:8786), or 'local' for a "
                   "LocalCluster")
    p.add_argument("--per-flow", action="store_true",
                   help="also keep every run's per-flow table (DIR/flows)")
    p.add_argument("--series", action="store_true",
                   help="also keep every run's sampled time series (DIR/series; needs "
                   "monitor.sample_interval)")
    p.add_argument("--retry-failed", action="store_true", help="run the failed runs of DIR again")
    p.add_argument("--force", action="store_true", help="replace a different earlier sweep in DIR")
    p.add_argument("--quiet", action="store_true", help="no plan line and no progress bar")
    p.add_argument("--dry-run", action="store_true",
                   help="print the axes, the runs and the combinations the engine refuses; run nothing")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the sweep's directory (new, or this sweep's)")
    p.set_defaults(func=_sweep)


def _count(field: str) -> Any:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = 0
        if v < 1:
            raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
        return v

    return parse


def _sweep(args: argparse.Namespace) -> int:
    from bufferlab.sweeps import sweep  # noqa: PLC0415
    from bufferlab.sweeps.grid import parse_axis  # noqa: PLC0415

    grid = {}
    for text in args.grid:
        key, sep, values = text.partition("=")
        if not sep or not key.strip():
            parse_axis(text)  # raises the grammar's message
        if key.strip() in grid:
            raise BufferLabError(f"--grid {key.strip()}: given twice")
        grid[key.strip()] = values  # the values are read once, by plan()
    if args.dry_run:
        return _dry_run(args, grid)
    say = None if args.quiet else (lambda line: print(line, flush=True))
    df = sweep(args.scenario, grid, out=args.out, zip=args.zip, seeds=args.seeds, workers=args.workers,
               dask=args.dask, overrides=args.set, per_flow=args.per_flow, series=args.series,
               progress=False if args.quiet else None, force=args.force, retry_failed=args.retry_failed,
               report=say)
    c = df.attrs["counts"]
    before = (f" ({c['failed_before']} of them failed; --retry-failed runs them again)"
              if c["failed_before"] else "")
    print(f"{c['ran']} ran, {c['skipped']} skipped as done{before}, {c['failed']} failed "
          f"({c['wall_s']:.1f} s) -> {args.out}/results")
    if c["failed"]:
        errors = Counter(df.loc[df["status"] != "ok", "error"].dropna())
        for message, n in errors.most_common(3):
            print(f"  failed x{n}: {message}", file=sys.stderr)
    return 0


def _dry_run(args: argparse.Namespace, grid: Any) -> int:
    from bufferlab.sweeps import counted, plan  # noqa: PLC0415

    p = plan(args.scenario, grid, args.zip, args.seeds, args.set, jobs=False)
    for a in p.axes:
        shown = ", ".join(str(v) for v in a.values[:12]) + (", ..." if len(a.values) > 12 else "")
        print(f"{a.key}: {len(a.values)} value{'s' if len(a.values) != 1 else ''} ({shown})"
              + (" [log]" if a.log else "") + (" [zipped]" if a.group >= 1000 else ""))
    print(f"{counted(len(p.points), 'combination')} x {counted(len(p.seeds), 'seed')} "
          f"({p.seeds[0]}..{p.seeds[-1]}) = {counted(len(p.points) * len(p.seeds), 'run')}; "
          f"{len(p.invalid)} refused "
          f"(of {p.checked} checked)")
    for i, error in sorted(p.invalid.items())[:10]:
        print(f"  refused: {', '.join(f'{k}={v}' for k, v in p.points[i].items())}: {error}")
    return 0
