"""`bufferlab reproduce PAPER [--quick] [--seeds K] [--workers W] [--out DIR] [--check DIR]`, and `--list`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bufferlab import reproduce as rp
from bufferlab.errors import BufferLabError
from bufferlab.progress import RunBar

DEFAULT_ROOT = Path("docs") / "reproductions"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiments: claims table, figures and report",
        description="Run a paper's experiments in the engine over seeds, evaluate every testable claim of "
        "its note, and write report.md, claims.json and figures. Finished runs are kept under OUT/runs, so "
        "an interrupted reproduction resumes where it stopped.",
    )
    p.add_argument("paper", nargs="?", metavar="PAPER", help=f"one of {', '.join(rp.PAPERS)}, or all")
    p.add_argument("--list", action="store_true", help="name the papers and their claims")
    p.add_argument("--quick", action="store_true", help="fewer points, shorter runs, the same code path")
    p.add_argument("--seeds", type=int, default=None, metavar="K",
                   help="seeds per point (default 3; quick 2)")
    p.add_argument("--workers", type=int, default=max(1, min(os.cpu_count() or 1, 8)), metavar="W",
                   help="engine processes in parallel (default: the CPUs)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"output root; each paper writes DIR/PAPER (default {DEFAULT_ROOT})")
    p.add_argument("--check", default=None, metavar="DIR",
                   help="exit 1 if a claim that holds in DIR/PAPER/claims.json no longer holds")
    p.set_defaults(func=handler)


def _list() -> int:
    for name in rp.PAPERS:
        try:
            mod = rp.paper_module(name)
        except BufferLabError:
            print(f"{name}: no reproduction yet ({rp.NOTES[name]})")
            continue
        print(f"{name}: {mod.TITLE}")
        for c in mod.CLAIMS:
            print(f"  {c.id:>4}  {c.text}")
    return 0


def handler(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if not args.paper:
        raise BufferLabError("PAPER: give a paper (or all); `bufferlab reproduce --list` names them")
    names = rp.available() if args.paper == "all" else [args.paper]
    for name in names:
        rp.paper_module(name)  # unknown or missing: an error before anything runs
    root = Path(args.out) if args.out else DEFAULT_ROOT
    regressions = []
    for name in names:
        bar = RunBar(f"{name}{' (quick)' if args.quick else ''}")
        try:
            res = rp.reproduce(name, root / name, quick=args.quick, seeds=args.seeds, workers=args.workers,
                               progress=bar)
        finally:
            bar.close()
        t = res["tally"]
        print(f"{name}: {t['holds']} hold, {t['differs']} differ, {t['not testable']} not testable "
              f"({res['runs']} runs, {res['wall_s']:.0f} s) -> {res['report']}")
        if args.check:
            regressions += [f"{name} {r}" for r in rp.check_against(res["claims"],
                                                                    Path(args.check) / name / "claims.json")]
    if args.out is None or Path(args.out) == DEFAULT_ROOT:
        (DEFAULT_ROOT / "README.md").write_text(rp.summary_markdown(DEFAULT_ROOT))
    if regressions:
        print("claims that no longer hold:\n  " + "\n  ".join(regressions), file=sys.stderr)
        return 1
    return 0


