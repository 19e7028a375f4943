"""`bufferlab reproduce`: a paper's experiments as engine runs over seeds, its claims table and figures.

Each reproduced paper is a module with ``NAME``, ``TITLE``, ``CLAIMS``, ``CHOICES``, ``experiments(quick,
seeds)``, ``evaluate(results, quick)``, ``figures(results, out)`` and, optionally, ``tables(results)`` (the
paper's tables beside ours, markdown lines) and ``sensitivity(results)``.
:func:`reproduce` runs its experiments (:mod:`bufferlab.reproduce.runner`: in parallel, every finished run
kept under ``<out>/runs`` so a second call resumes), evaluates every claim and writes ``<out>/report.md``,
``<out>/claims.json`` and the figures (PNG and SVG). :func:`summary_markdown` builds the table over papers.
"""

from __future__ import annotations

import datetime
import importlib
import json
import platform
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional

from bufferlab.errors import BufferLabError
from bufferlab.reproduce.claims import HOLDS, claims_markdown, tally
from bufferlab.reproduce.runner import engine_version, run_tasks

#: Every paper, by the name the command takes: its module, or None while its reproduction does not exist.
PAPERS: Dict[str, Optional[str]] = {
    "eun-wang": "bufferlab.reproduce.eun_wang",
    "index-policy": "bufferlab.reproduce.index_policy",
    "tiny-buffers": "bufferlab.reproduce.tiny_buffers",
    "global-notifier": "bufferlab.reproduce.global_notifier",
    "odt-ob": "bufferlab.reproduce.odt_ob",
}
NOTES = {
    "eun-wang": "eun_wang_2008_aggressive_marking.md",
    "index-policy": "avrachenkov_2013_index_policy.md",
    "tiny-buffers": "enachescu_2005_tiny_buffers.md",
    "global-notifier": "tsioliaridou_global_notifier.md",
    "odt-ob": "stanojevic_shorten_odt_ob.md",
}


def paper_module(name: str) -> ModuleType:
    """The module reproducing paper ``name``; BufferLabError naming what exists otherwise."""
    if name not in PAPERS:
        raise BufferLabError(f"PAPER: unknown paper {name!r}; one of {', '.join(PAPERS)} or all")
    module = PAPERS[name]
    if module is None:
        ready = ", ".join(n for n, m in PAPERS.items() if m)
        raise BufferLabError(f"PAPER: {name!r} has no reproduction yet (available: {ready})")
    return importlib.import_module(module)


def available() -> List[str]:
    return [n for n, m in PAPERS.items() if m]


def reproduce(name: str, out: Path, *, quick: bool = False, seeds: Optional[int] = None, workers: int = 1,
              progress: Optional[Callable[[int, int], None]] = None) -> Dict[str, Any]:
    """Run paper ``name``'s reproduction into ``out``; returns its claims rows and the report's path."""
    mod = paper_module(name)
    seeds = seeds if seeds is not None else (2 if quick else 3)
    if seeds < 1:
        raise BufferLabError(f"--seeds must be >= 1 (got {seeds})")
    if workers < 1:
        raise BufferLabError(f"--workers must be >= 1 (got {workers})")
    out.mkdir(parents=True, exist_ok=True)
    experiments = mod.experiments(quick, seeds)
    tasks = [t for ts in experiments.values() for t in ts]
    cached = {f.stem for f in (out / "runs").glob("*.json")} if (out / "runs").is_dir() else set()
    version = engine_version()
    reused = len({t.key(version) for t in tasks} & cached)
    t0 = time.perf_counter()
    records = run_tasks(tasks, out / "runs", workers=workers, progress=progress)
    wall = time.perf_counter() - t0
    engine_s = sum(float(r.get("wall_s") or 0.0) for r in records)
    results: Dict[str, List[Dict[str, Any]]] = {}
    i = 0
    for exp, ts in experiments.items():
        results[exp] = records[i:i + len(ts)]
        i += len(ts)
    verdicts = mod.evaluate(results, quick)
    figs = mod.figures(results, out)
    rows = [v.row() for v in verdicts]
    meta = {"paper": name, "title": mod.TITLE, "quick": quick, "seeds": seeds, "runs": len(tasks),
            "wall_s": round(wall, 1), "engine_s": round(engine_s, 1), "reused_runs": reused,
            "tally": tally(verdicts),
            "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, Python {platform.python_version()}"}
    (out / "claims.json").write_text(json.dumps({**meta, "claims": rows}, indent=2, allow_nan=False) + "\n")
    lines = [f"# Reproduction: {mod.TITLE}", "",
             f"Generated {meta['generated']} by `bufferlab reproduce {name}" + (" --quick" if quick else "")
             + f" --seeds {seeds}`: {len(tasks)} engine runs ({meta['machine']}) taking {engine_s:.0f} s of "
             f"engine time" + (f" ({reused} of them kept from an earlier call)" if reused else "") + ". "
             "Values are means over the seeds with 95 % Student-t intervals; verdicts compare the means with "
             "the tolerances shown. This report and its claims table are generated; nothing in them is "
             "written by hand.", "",
             f"**Verdicts**: {meta['tally'][HOLDS]} hold, {meta['tally']['differs']} differ, "
             f"{meta['tally']['not testable']} not testable.", "",
             "## Claims", ""] + claims_markdown(verdicts) + [""]
    if hasattr(mod, "tables"):
        lines += ["## The paper's tables", ""] + mod.tables(results) + [""]
    if hasattr(mod, "sensitivity"):
        lines += ["## Sensitivity to what the paper does not say", ""] + mod.sensitivity(results) + [""]
    lines += ["## Choices where the paper is silent", ""] + [f"- {c}" for c in mod.CHOICES] + [""]
    lines += ["## Figures", ""]
    for stem, caption in figs:
        lines += [f"![{caption}]({stem}.png)", "", f"*{caption}* ([SVG]({stem}.svg))", ""]
    (out / "report.md").write_text("\n".join(lines))
    return {**meta, "claims": rows, "report": str(out / "report.md")}


def check_against(rows: List[Dict[str, Any]], committed: Path) -> List[str]:
    """Claims that hold in the committed table (``claims.json``) but not in ``rows``: a regression each."""
    if not committed.exists():
        raise BufferLabError(f"--check: {committed} not found (run the full reproduction first)")
    before = {r["id"]: r["verdict"] for r in json.loads(committed.read_text())["claims"]}
    now = {r["id"]: r for r in rows}
    return [f"{cid}: held in {committed}, now {now[cid]['verdict'] if cid in now else 'missing'}"
            f" ({now[cid]['ours'] if cid in now else ''})"
            for cid, v in before.items() if v == HOLDS and (cid not in now or now[cid]["verdict"] != HOLDS)]


def summary_markdown(root: Path) -> str:
    """``docs/reproductions/README.md``: one row per paper from its committed ``claims.json``."""
    lines = ["# Reproductions of the five papers", "",
             "Each paper's experiments run with `bufferlab reproduce PAPER` (`--quick` for a short version "
             "of the same code path); its report, claims table and figures are in its directory. The table "
             "below is generated from the committed `claims.json` files.", "",
             "| paper | report | claims | hold | differ | not testable | seeds | runs | engine time |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in PAPERS:
        f = root / name / "claims.json"
        if not f.exists():
            lines.append(f"| {name} (`{NOTES[name]}`) | not yet reproduced | | | | | | | |")
            continue
        d = json.loads(f.read_text())
        t = d["tally"]
        lines.append(f"| {name} | [report]({name}/report.md) | {len(d['claims'])} | {t[HOLDS]} | "
                     f"{t['differs']} | {t['not testable']} | {d['seeds']} | {d['runs']} | "
                     f"{d.get('engine_s', d['wall_s']):.0f} s |")
    return "\n".join(lines) + "\n"
