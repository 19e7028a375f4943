"""`bufferlab reproduce`: a paper's experiments as engine runs over seeds, its claims table and figures.

Each reproduced paper is a module with ``NAME``, ``TITLE``, ``CLAIMS`` (a
:class:`~bufferlab.reproduce.claims.Claims` registry: one function per claim), ``PRINCIPAL`` (the name of the
paper-faithful reading its verdicts are under), ``CHOICES`` (each reading, with the paper's words behind it),
``experiments(quick, seeds)`` (every experiment's tasks at that many seeds), ``figures(results, out)`` and,
optionally, ``tables(results)`` (the paper's tables beside ours, markdown lines) and ``sensitivity(results)``.
:func:`reproduce` runs its experiments (:mod:`bufferlab.reproduce.runner`: in parallel, every finished run
kept under ``<out>/runs`` so a second call resumes), evaluates every claim, gives the experiments behind an
inconclusive claim more seeds up to a cap, and writes ``<out>/report.md``, ``<out>/claims.json`` (from which
:func:`bufferlab.reproduce.verdicts.recheck` recomputes every verdict) and the figures (PNG and SVG).
:func:`summary_markdown` builds the table over papers.
"""

from __future__ import annotations

import datetime
import importlib
import json
import math
import platform
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional

from bufferlab import jsonout
from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps
from bufferlab.plots import ensure_directory
from bufferlab.reproduce.claims import Evaluated, claims_markdown, evaluate_claim, tally
from bufferlab.reproduce.runner import engine_version, run_tasks
from bufferlab.reproduce.verdicts import (
    DIFFERS,
    HOLDS,
    HOLDS_UNDER,
    INCONCLUSIVE,
    NOT_TESTABLE,
    VERDICTS,
    recheck,
    tally_sentence,
)
from bufferlab.stats import bonferroni_factor

#: Every paper, by the name the command takes: its module, or None while its reproduction does not exist.
PAPERS: Dict[str, Optional[str]] = {
    "eun-wang": "bufferlab.reproduce.eun_wang",
    "index-policy": "bufferlab.reproduce.index_policy",
    "tiny-buffers": "bufferlab.reproduce.tiny_buffers",
    "global-notifier": "bufferlab.reproduce.global_notifier",
    "odt-ob": "bufferlab.reproduce.odt_ob",
    "dctcp": "bufferlab.reproduce.dctcp",
    "bbr-cubic": "bufferlab.reproduce.bbr_cubic",
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


#: Seeds a full run starts with, and the cap inconclusive claims are extended to (``--max-seeds``).
FULL_SEEDS, FULL_MAX_SEEDS = 3, 30
QUICK_SEEDS, QUICK_MAX_SEEDS = 2, 4


def _tasks_for(mod: ModuleType, quick: bool, seeds: Dict[str, int]) -> Dict[str, List[Any]]:
    """Each experiment's tasks at its own number of seeds (the module's design at that many seeds)."""
    designs: Dict[int, Dict[str, List[Any]]] = {}
    out = {}
    for name, k in seeds.items():
        if k not in designs:
            designs[k] = mod.experiments(quick, k)
        if name in designs[k]:  # not a batched computation (claims.Context.batches)
            out[name] = designs[k][name]
    return out


def evaluate(mod: ModuleType, results: Dict[str, List[Dict[str, Any]]], quick: bool) -> List[Evaluated]:
    """Every claim (and model check) of ``mod`` evaluated on ``results``."""
    return [evaluate_claim(mod.CLAIMS, c, results, quick, mod.PRINCIPAL) for c in mod.CLAIMS]


def reproduce(name: str, out: Path, *, quick: bool = False, seeds: Optional[int] = None,
              max_seeds: Optional[int] = None, workers: int = 1,
              progress: Optional[Callable[[int, int], None]] = None) -> Dict[str, Any]:
    """Run paper ``name``'s reproduction into ``out``; returns its claims rows and the report's path.

    Every experiment starts with ``seeds`` seeds. While a claim is inconclusive under its principal reading,
    the experiments it read get batches of ``ceil(seeds / 2)`` more seeds (continuing the sequence), up to
    ``max_seeds``; a claim the cap does not decide stays inconclusive. Only the seeds, never the timing,
    decide which runs are made, so the same call gives the same report.
    """
    mod = paper_module(name)
    seeds = seeds if seeds is not None else (QUICK_SEEDS if quick else FULL_SEEDS)
    if seeds < 1:
        raise BufferLabError(f"--seeds must be >= 1 (got {seeds})")
    cap = max_seeds if max_seeds is not None else max(seeds, QUICK_MAX_SEEDS if quick else FULL_MAX_SEEDS)
    if cap < seeds:
        raise BufferLabError(f"--max-seeds must be >= --seeds ({seeds}) (got {cap})")
    if workers < 1:
        raise BufferLabError(f"--workers must be >= 1 (got {workers})")
    ensure_directory(out, "out")
    step = max(1, math.ceil(seeds / 2))
    per_exp = {n: seeds for n in mod.experiments(quick, seeds)}
    cached = {f.stem for f in (out / "runs").glob("*.json")} if (out / "runs").is_dir() else set()
    version = engine_version()
    t0 = time.perf_counter()
    evaluated: Dict[str, Evaluated] = {}
    signature: Dict[str, tuple] = {}
    known: Dict[str, Dict[str, Any]] = {}  # records read or run in an earlier round
    while True:
        experiments = _tasks_for(mod, quick, per_exp)
        tasks = [t for ts in experiments.values() for t in ts]
        records = run_tasks(tasks, out / "runs", workers=workers, progress=progress, known=known)
        results: Dict[str, List[Dict[str, Any]]] = {}
        i = 0
        for exp, ts in experiments.items():
            results[exp] = records[i:i + len(ts)]
            i += len(ts)
        for c in mod.CLAIMS:  # a claim is evaluated again only when an experiment it read has more seeds
            sig = tuple(sorted((e, per_exp[e]) for e in evaluated[c.id].read)) if c.id in evaluated else None
            if sig is None or sig != signature[c.id]:
                evaluated[c.id] = evaluate_claim(mod.CLAIMS, c, results, quick, mod.PRINCIPAL, per_exp)
                signature[c.id] = tuple(sorted((e, per_exp[e]) for e in evaluated[c.id].read))
        grow = {e for ev in evaluated.values() if ev.principal_verdict == INCONCLUSIVE for e in ev.read
                if per_exp[e] < cap}
        if not grow:
            break
        for e in grow:
            per_exp[e] = min(cap, per_exp[e] + step)
    wall = time.perf_counter() - t0
    verdicts = [evaluated[c.id] for c in mod.CLAIMS]
    claims = [e for e in verdicts if not e.claim.model_check]
    checks = [e for e in verdicts if e.claim.model_check]
    reused = len({t.key(version) for t in tasks} & cached)
    engine_s = sum(float(r.get("wall_s") or 0.0) for r in records)
    figs = mod.figures(results, out)
    meta = {"paper": name, "title": mod.TITLE, "quick": quick, "seeds": seeds, "max_seeds": cap,
            "seeds_by_experiment": per_exp, "runs": len(tasks), "wall_s": round(wall, 1),
            "engine_s": round(engine_s, 1), "reused_runs": reused, "engine": version,
            "principal_reading": mod.PRINCIPAL, "tally": tally(verdicts),
            "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, Python {platform.python_version()}"}
    doc = {**meta, "claims": [e.row() for e in claims], "model_checks": [e.row() for e in checks]}
    problems = recheck(json.loads(dumps(doc)))
    if problems:  # the rules and the tables must agree before anything is written
        raise BufferLabError("reproduce: the claims table disagrees with its own rules: "
                             + "; ".join(problems))
    (out / "claims.json").write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n")
    t = meta["tally"]
    command = (f"bufferlab reproduce {name}" + (" --quick" if quick else "")
               + f" --seeds {seeds} --max-seeds {cap}")
    seeds_used = sorted(set(per_exp.values()))
    lines = [f"# Reproduction: {mod.TITLE}", "",
             f"Generated {meta['generated']} by `{command}`: {len(tasks)} engine runs ({meta['machine']}) "
             f"taking {engine_s:.0f} s of engine time" + (f" ({reused} of them kept from an earlier call)"
                                                          if reused else "") + ". "
             f"Every experiment ran {seeds} seeds; those read by a claim that stayed inconclusive ran "
             f"batches of {step} more, up to {cap} (seeds per experiment here: "
             + ", ".join(f"{e} {k}" for e, k in per_exp.items()) + "). "
             "Each claim is judged by tests: a quantity's mean with its 95 % interval over n seeds (Student "
             "t; Welch for differences) against the region the paper's statement puts it in. A test holds "
             "when its whole interval is inside the region, differs when its whole interval is outside, and "
             "is inconclusive otherwise; a claim holds when all its tests hold. Verdicts are under the "
             f"principal reading ({mod.PRINCIPAL}); a claim that differs under it but holds under another "
             "reading holds only under that one. `scripts/recheck_claims.py` recomputes every verdict from "
             "claims.json alone. This report is generated; nothing in it is written by hand.", "",
             f"**Verdicts** ({len(claims)} claims): {t[HOLDS]} hold, {t[HOLDS_UNDER]} hold only under a "
             f"non-principal reading, {t[DIFFERS]} differ, {t[INCONCLUSIVE]} inconclusive, "
             f"{t[NOT_TESTABLE]} not testable" + (f"; model checks beside them: {len(checks)}" if checks
                                                  else "") + ".", "",
             "## Claims", ""] + claims_markdown(claims) + [""]
    if len(seeds_used) == 1 and seeds_used[0] == cap and cap > seeds:
        lines += ["Every experiment reached the seed cap.", ""]
    if checks:
        lines += ["## Model checks (not counted among the claims)", "",
                  "Arithmetic and formula checks of the paper's models: they can only catch a bug in the "
                  "project's models, so they are not evidence for the paper's claims.", ""]
        lines += claims_markdown(checks) + [""]
    if hasattr(mod, "tables"):
        lines += ["## The paper's tables", ""] + mod.tables(results) + [""]
    if hasattr(mod, "sensitivity"):
        lines += ["## Sensitivity to what the paper does not say", ""] + mod.sensitivity(results) + [""]
    lines += ["## Readings: the principal one and the choices where the paper is silent", ""]
    lines += [f"- {c}" for c in mod.CHOICES] + [""]
    lines += ["## Figures", ""]
    for stem, caption in figs:
        lines += [f"![{caption}]({stem}.png)", "", f"*{caption}* ([SVG]({stem}.svg))", ""]
    (out / "report.md").write_text("\n".join(lines))
    return {**doc, "report": str(out / "report.md")}


def _pairs(doc: Dict[str, Any], committed: Dict[str, Any]) -> List[tuple]:
    """(claim id, this run's test, the committed test) for every test measured on the same design in both."""
    old = {(c["id"], t["quantity"]): t for c in committed["claims"] + committed.get("model_checks", [])
           for t in c["tests"] if t.get("mean") is not None}
    return [(c["id"], t, old[(c["id"], t["quantity"])])
            for c in doc["claims"] + doc.get("model_checks", []) for t in c["tests"]
            if t.get("comparable", True) and (c["id"], t["quantity"]) in old
            and t.get("low") is not None and t.get("high") is not None]


#: The narrowest a sampled interval is taken to be, relative to its mean: seeds that agree to six digits (a
#: quantity the seed hardly moves, such as a full link's goodput) are no evidence against a mean that
#: differs in the seventh.
RESOLUTION = 1e-6


def _widened(t: Dict[str, Any], m: int) -> tuple:
    """``t``'s 95 % interval widened to the level 1 − 0.05/m (Bonferroni over ``m`` compared tests): the
    half-widths scaled by :func:`bufferlab.stats.bonferroni_factor`, and at least :data:`RESOLUTION` of the
    mean. An exact number (one value) stays exact."""
    n = int(t.get("n") or 0)
    if n < 2:
        return t["low"], t["high"]
    mean, low, high = t["mean"], t["low"], t["high"]
    if m > 1 and low != high:
        k = bonferroni_factor(n, m)
        low, high = mean - k * (mean - low), mean + k * (high - mean)
    floor = RESOLUTION * abs(mean)
    return min(low, mean - floor), max(high, mean + floor)


def read_claims(committed: Path) -> Dict[str, Any]:
    """The committed claims table ``committed`` that ``--check`` compares with, read and checked to hold
    what :func:`check_against` reads (every claim's id, verdict and tests, every test's quantity);
    :class:`~bufferlab.errors.BufferLabError` naming ``--check`` and the file otherwise."""
    if not committed.is_file():
        what = "is not a file" if committed.exists() else "not found"
        raise BufferLabError(f"--check: {committed} {what} (run the full reproduction first)")
    try:
        before = jsonout.loads(committed.read_text())
        rows = before["claims"] + before.get("model_checks", [])
        for c in rows:
            if not isinstance(c["id"], str) or not isinstance(c["verdict"], str):
                raise TypeError(f"claim {c['id']!r}: id and verdict must be text")
            for t in c["tests"]:
                if not isinstance(t["quantity"], str):
                    raise TypeError(f"claim {c['id']}: a test's quantity must be text")
                mean = t.get("mean")
                if mean is not None and (isinstance(mean, bool) or not isinstance(mean, (int, float))):
                    raise TypeError(f"claim {c['id']}: {t['quantity']}: the mean must be a number")
    except OSError as exc:
        raise BufferLabError(f"--check: cannot read {committed}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        why = f"no {exc.args[0]!r} field" if isinstance(exc, KeyError) else str(exc)
        raise BufferLabError(f"--check: {committed} is not a claims table ({why})") from None
    return before


def check_against(doc: Dict[str, Any], committed: Path) -> List[str]:
    """Regressions of a (quick) run ``doc`` against the committed ``claims.json``: a claim that holds there
    but differs here or is missing, and a test (same claim, same quantity, the same design in both) whose
    interval here excludes the committed mean. With m such tests compared, each interval is widened to the
    Bonferroni level 1 − 0.05/m, so that the whole check raises a false alarm at most 5 % of the time (a 95 %
    interval excludes the true mean 5 % of the time, whatever the number of seeds). An inconclusive claim
    here is not a regression: few quick seeds decide less."""
    before = read_claims(committed)
    old = {c["id"]: c for c in before["claims"] + before.get("model_checks", [])}
    pairs = _pairs(doc, before)
    now = {c["id"]: c for c in doc["claims"] + doc.get("model_checks", [])}
    out = [f"{cid}: held in {committed}, now {now[cid]['verdict'] if cid in now else 'missing'}"
           for cid, c in old.items()
           if c["verdict"] == HOLDS and (cid not in now or now[cid]["verdict"] == DIFFERS)]
    for cid, t, was in pairs:
        low, high = _widened(t, len(pairs))
        if not low <= was["mean"] <= high:
            out.append(f"{cid}: {t['quantity']}: [{low:.4g}, {high:.4g}] here (widened to the "
                       f"{100 * (1 - 0.05 / len(pairs)):.3g} % level) excludes the committed mean "
                       f"{was['mean']:.4g}")
    return out


def compared_tests(doc: Dict[str, Any], committed: Path) -> int:
    """How many of ``doc``'s tests ``check_against`` held against a committed mean."""
    return len(_pairs(doc, read_claims(committed))) if committed.exists() else 0


def summary_markdown(root: Path) -> str:
    """``docs/reproductions/README.md``: one row per paper from its committed ``claims.json``."""
    lines = ["# Reproductions", "",
             "The five papers BufferLab is built on, and two anchor results of the buffer question as it is "
             "asked today: DCTCP's marking threshold (Alizadeh et al. 2010, `dctcp`) and BBR's share against "
             "Cubic by buffer size (Ware et al. 2019, `bbr-cubic`).", "",
             "Each paper's experiments run with `bufferlab reproduce PAPER` (`--quick` for a short version "
             "of the same code path); its report, claims table and figures are in its directory. The table "
             "below is generated from the committed `claims.json` files; `python3 scripts/recheck_claims.py` "
             "recomputes every verdict in them from their numbers alone. A claim *holds* when every test's "
             "95 % interval lies inside the region the paper's statement gives, *differs* when one lies "
             "wholly outside, and is *inconclusive* when the seed cap did not decide it; *holds only under "
             "a reading* means it differs under the principal (paper-faithful) reading and holds under "
             "another. "
             "Model checks (arithmetic and formula checks) are listed in each report but not counted. "
             "What an independent audit of these tables found, and what was done about each finding, is in "
             "[AUDIT.md](AUDIT.md).", "",
             "| paper | report | claims | hold | hold only under a reading | differ | inconclusive | "
             "not testable | model checks | seeds (cap) | runs | engine time |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    total = {v: 0 for v in VERDICTS}
    for name in PAPERS:
        f = root / name / "claims.json"
        if not f.exists():
            lines.append(f"| {name} | not yet reproduced | | | | | | | | | | |")
            continue
        d = json.loads(f.read_text())
        t = d["tally"]
        for v in VERDICTS:
            total[v] += t.get(v, 0)
        lines.append(f"| {name} | [report]({name}/report.md) | {len(d['claims'])} | {t[HOLDS]} | "
                     f"{t[HOLDS_UNDER]} | {t[DIFFERS]} | {t[INCONCLUSIVE]} | {t[NOT_TESTABLE]} | "
                     f"{len(d.get('model_checks', []))} | {d['seeds']}–{d.get('max_seeds', d['seeds'])} | "
                     f"{d['runs']} | {d.get('engine_s', d['wall_s']):.0f} s |")
    lines += ["", f"All papers: {tally_sentence(total)}.", ""]
    return "\n".join(lines)


#: The README's tally sits between these markers and is written by :func:`update_readme_tally`.
TALLY_START, TALLY_END = "<!-- claims-tally -->", "<!-- /claims-tally -->"


def overall_tally(root: Path) -> Dict[str, int]:
    total = {v: 0 for v in VERDICTS}
    for name in PAPERS:
        f = root / name / "claims.json"
        if f.exists():
            for v, k in json.loads(f.read_text())["tally"].items():
                total[v] += k
    return total


def update_readme_tally(readme: Path, root: Path) -> None:
    """Write the tally over the committed claims tables into the README between the markers."""
    text = readme.read_text()
    if TALLY_START not in text or TALLY_END not in text:
        return
    head, rest = text.split(TALLY_START, 1)
    _old, tail = rest.split(TALLY_END, 1)
    readme.write_text(f"{head}{TALLY_START}{tally_sentence(overall_tally(root))}{TALLY_END}{tail}")
