"""`bufferlab reproduce PAPER [--quick] [--seeds K] [--max-seeds M] [--workers W] [--out DIR] [--check DIR]`,
`--list`, and `--recheck DIR`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, List, Optional

from bufferlab import reproduce as rp
from bufferlab.errors import BufferLabError
from bufferlab.plots import ensure_directory
from bufferlab.progress import RunBar
from bufferlab.reproduce.verdicts import recheck, tally_sentence

DEFAULT_ROOT = Path("docs") / "reproductions"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiments: claims table, figures and report",
        description="Run a paper's experiments in the engine over seeds, evaluate every testable claim of "
        "the paper, and write report.md, claims.json and figures. Finished runs are kept under OUT/runs, so "
        "an interrupted reproduction resumes where it stopped.",
    )
    p.add_argument("paper", nargs="?", metavar="PAPER", help=f"one of {', '.join(rp.PAPERS)}, or all")
    p.add_argument("--list", action="store_true", help="name the papers and their claims")
    p.add_argument("--quick", action="store_true", help="fewer points, shorter runs, the same code path")
    p.add_argument("--seeds", type=int, default=None, metavar="K",
                   help=f"seeds per point to start with (default {rp.FULL_SEEDS}; quick {rp.QUICK_SEEDS})")
    p.add_argument("--max-seeds", type=int, default=None, metavar="M",
                   help="seeds an inconclusive claim's experiments may grow to, in batches of ceil(K/2) "
                   f"(default {rp.FULL_MAX_SEEDS}; quick {rp.QUICK_MAX_SEEDS})")
    p.add_argument("--workers", type=int, default=max(1, min(os.cpu_count() or 1, 8)), metavar="W",
                   help="engine processes in parallel (default: the CPUs)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"output root; each paper writes DIR/PAPER (default {DEFAULT_ROOT})")
    p.add_argument("--check", default=None, metavar="DIR",
                   help="exit 1 if a claim that holds in DIR/PAPER/claims.json now differs, or a test's "
                   "interval here excludes its mean there")
    p.add_argument("--recheck", default=None, metavar="DIR",
                   help="recompute every verdict in DIR/*/claims.json from its numbers; exit 1 on a mismatch")
    p.set_defaults(func=handler)


def _list() -> int:
    for name in rp.PAPERS:
        try:
            mod = rp.paper_module(name)
        except BufferLabError:
            print(f"{name}: no reproduction yet")
            continue
        print(f"{name}: {mod.TITLE}")
        for c in mod.CLAIMS:
            print(f"  {c.id:>4}  {c.text} ({c.where}){' [model check]' if c.model_check else ''}")
    return 0


def _recheck(root: Path) -> int:
    files = sorted(root.glob("*/claims.json"))
    if not files:
        raise BufferLabError(f"--recheck: no */claims.json under {root}")
    bad = 0
    for f in files:
        try:
            problems = recheck(json.loads(f.read_text()))
        except (ValueError, KeyError, TypeError) as exc:
            problems = [f"not a claims table ({exc!r})"]
        for p in problems:
            print(f"{f}: {p}", file=sys.stderr)
        bad += len(problems)
        print(f"{f}: {'agrees' if not problems else f'{len(problems)} disagreements'}")
    return 1 if bad else 0


def check_inputs(names: List[str], root: Path, check: Optional[str]) -> None:
    """Before anything runs: every paper's output directory ``root/PAPER`` (and its ``runs``) can be
    created, and with ``--check DIR`` every ``DIR/PAPER/claims.json`` is a claims table to compare with."""
    if check is not None:
        directory = Path(check)
        if not str(check).strip():
            raise BufferLabError("--check: empty path; give the directory holding PAPER/claims.json "
                                 f"(e.g. {DEFAULT_ROOT})")
        if not directory.is_dir():
            what = "is not a directory" if directory.exists() else "no such directory"
            raise BufferLabError(f"--check {directory}: {what}; give the directory holding "
                                 f"PAPER/claims.json (e.g. {DEFAULT_ROOT})")
        for name in names:
            rp.read_claims(directory / name / "claims.json")
    ensure_directory(root, "--out")
    for name in names:
        for directory in (root / name, root / name / "runs"):
            ensure_directory(directory, "--out")


def handler(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if args.recheck:
        return _recheck(Path(args.recheck))
    if not args.paper:
        raise BufferLabError("PAPER: give a paper (or all); `bufferlab reproduce --list` names them")
    names = rp.available() if args.paper == "all" else [args.paper]
    for name in names:
        rp.paper_module(name)  # unknown or missing: an error before anything runs
    root = Path(args.out) if args.out else DEFAULT_ROOT
    check_inputs(names, root, args.check)
    regressions = []
    for name in names:
        bar = RunBar(f"{name}{' (quick)' if args.quick else ''}")
        try:
            res = rp.reproduce(name, root / name, quick=args.quick, seeds=args.seeds,
                               max_seeds=args.max_seeds, workers=args.workers, progress=bar)
        finally:
            bar.close()
        print(f"{name}: {tally_sentence(res['tally'])} ({res['runs']} runs, {res['wall_s']:.0f} s) -> "
              f"{res['report']}")
        if args.check:
            committed = Path(args.check) / name / "claims.json"
            found = rp.check_against(res, committed)
            print(f"{name}: --check held {rp.compared_tests(res, committed)} tests against {committed}; "
                  f"{len(found)} regressions")
            regressions += [f"{name} {r}" for r in found]
    if args.out is None or Path(args.out) == DEFAULT_ROOT:
        (DEFAULT_ROOT / "README.md").write_text(rp.summary_markdown(DEFAULT_ROOT))
        rp.update_readme_tally(Path("README.md"), DEFAULT_ROOT)
    if regressions:
        print("claims that no longer hold:\n  " + "\n  ".join(regressions), file=sys.stderr)
        return 1
    return 0


