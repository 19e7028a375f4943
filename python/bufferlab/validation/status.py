"""The validation status, generated from the committed reports.

Every report directory under ``docs/validation`` holds ``results/<scenario>.json`` with the scenario's
verdict and replications (``bufferlab validate`` writes them). :func:`status_table` and
:func:`status_sentence` summarise them; :func:`update` writes both between markers into
``docs/validation/README.md`` and the top-level ``README.md``, so neither can claim more than the reports
say. ``python3 scripts/validation_status.py`` runs it; a test checks that the committed files are current.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Tuple

#: Markers around the generated blocks.
TABLE_START, TABLE_END = "<!-- validation-status -->", "<!-- /validation-status -->"
SENTENCE_START, SENTENCE_END = "<!-- validation-summary -->", "<!-- /validation-summary -->"
VERDICTS = ("pass", "fail", "inconclusive", "skipped")


def reports(root: Path) -> List[Tuple[str, List[Dict]]]:
    """(report directory relative to ``root``, its scenarios' result records sorted by name), for every
    directory under ``root`` with a ``results`` folder of scenario results."""
    found = []
    for results in sorted(root.rglob("results")):
        if not results.is_dir() or "runs" in results.relative_to(root).parts:
            continue
        records = []
        for f in sorted(results.glob("*.json")):
            data = json.loads(f.read_text())
            if isinstance(data, dict) and "verdict" in data and "rows" in data:
                records.append(data)
        if records:
            found.append((str(results.parent.relative_to(root)) or ".", records))
    return sorted(found, key=lambda item: (item[0] != ".", item[0]))


def tally(records: List[Dict]) -> Dict[str, int]:
    counts = {v: 0 for v in VERDICTS}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return counts


def status_sentence(root: Path) -> str:
    """One sentence over every report: scenarios and how many pass, fail, are undecided."""
    total = {v: 0 for v in VERDICTS}
    n = 0
    for _, records in reports(root):
        for v, k in tally(records).items():
            total[v] = total.get(v, 0) + k
        n += len(records)
    parts = [f"{total['pass']} pass", f"{total['fail']} fail", f"{total['inconclusive']} undecided"]
    if total.get("skipped"):
        parts.append(f"{total['skipped']} skipped")
    return f"{n} scenarios against ns-3: " + ", ".join(parts)


def generated_on(report: Path) -> str:
    """The date a report was generated (its ``Generated YYYY-MM-DD`` line), or ``?``."""
    if report.exists():
        for line in report.read_text().splitlines()[:5]:
            if line.startswith("Generated "):
                return line.split()[1]
    return "?"


def status_table(root: Path) -> str:
    """A Markdown table: each report, when it was run, its scenarios with verdict and seeds, its tally."""
    lines = ["| report | run on | scenarios (verdict, seeds per simulator) | pass | fail | undecided |",
             "|---|---|---|---|---|---|"]
    for name, records in reports(root):
        t = tally(records)
        link = "report.md" if name == "." else f"{name}/report.md"
        cells = ", ".join(f"{r['name'].split('-')[0]} {r['verdict']} ({r['replications']})" for r in records)
        counts = f"{t['pass']} | {t['fail']} | {t['inconclusive']}"
        lines.append(f"| [{name}]({link}) | {generated_on(root / link)} | {cells} | {counts} |")
    return "\n".join(lines)


def _replace(text: str, start: str, end: str, block: str) -> str:
    if start not in text or end not in text:
        return text
    head, rest = text.split(start, 1)
    _old, tail = rest.split(end, 1)
    return f"{head}{start}{block}{end}{tail}"


def rendered(readme: str, validation_readme: str, root: Path) -> Tuple[str, str]:
    """The two files' texts with their generated blocks brought up to date."""
    sentence = status_sentence(root)
    return (_replace(readme, SENTENCE_START, SENTENCE_END, sentence),
            _replace(_replace(validation_readme, TABLE_START, TABLE_END, "\n" + status_table(root) + "\n"),
                     SENTENCE_START, SENTENCE_END, sentence))


def update(repo: Path) -> bool:
    """Write the generated blocks into ``README.md`` and ``docs/validation/README.md``; True if either
    changed."""
    root = repo / "docs" / "validation"
    paths = (repo / "README.md", root / "README.md")
    old = tuple(p.read_text() for p in paths)
    new = rendered(old[0], old[1], root)
    for p, o, n in zip(paths, old, new):
        if o != n:
            p.write_text(n)
    return old != new
