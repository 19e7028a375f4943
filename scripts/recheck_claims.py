#!/usr/bin/env python3
"""Recompute every verdict in the committed claims tables from their numbers alone, and the README's tally.

    python3 scripts/recheck_claims.py [DIR]      # default docs/reproductions; exit 1 on any disagreement

Needs only the standard library: it loads the verdict rules from python/bufferlab/reproduce/verdicts.py
by path, so it runs without BufferLab installed.
"""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("verdicts", ROOT / "python/bufferlab/reproduce/verdicts.py")
verdicts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(verdicts)


def main(root: Path) -> int:
    files = sorted(root.glob("*/claims.json"))
    if not files:
        print(f"no */claims.json under {root}", file=sys.stderr)
        return 1
    problems, total = [], {v: 0 for v in verdicts.VERDICTS}
    for f in files:
        doc = json.loads(f.read_text())
        found = verdicts.recheck(doc)
        problems += [f"{f}: {p}" for p in found]
        for v in verdicts.VERDICTS:
            total[v] += doc["tally"].get(v, 0)
        n = len(doc["claims"]) + len(doc.get("model_checks", []))
        print(f"{f}: {n} verdicts, {'all agree' if not found else f'{len(found)} disagree'}")
    sentence = verdicts.tally_sentence(total)
    readme = ROOT / "README.md"
    if root.resolve() == (ROOT / "docs/reproductions").resolve() and sentence not in readme.read_text():
        problems.append(f"README.md does not state the tally: {sentence}")
    print(f"tally: {sentence}")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs/reproductions"))
