#!/usr/bin/env python3
"""Fingerprints of the engine's results on every built-in example and validation scenario (seed and
duration as written): a SHA-256 of each run's summary and tables (flows, ports, groups, FCT, series, delay
quantiles), with every float at full precision. A change meant to leave results alone (speed, memory)
must leave every fingerprint as it is; `tests/test_result_fingerprints.py` checks them against
`tests/data/result_fingerprints.json`. A change meant to alter results rewrites the file, and the diff
names the scenarios it moved.

    python3 scripts/result_fingerprints.py            # compare, print the scenarios that differ
    python3 scripts/result_fingerprints.py --write    # record the current results
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Dict

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "tests" / "data" / "result_fingerprints.json"


def scenarios() -> Dict[str, Path]:
    """Every built-in example and validation scenario, by a name that says which."""
    import bufferlab

    examples = Path(bufferlab.__file__).parent / "scenarios"
    found = {f"example/{p.stem}": p for p in sorted(examples.glob("*.toml"))}
    validation = ROOT / "validation" / "scenarios"
    found.update({f"validation/{p.stem}": p for p in sorted(validation.glob("*.toml"))})
    return found


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def fingerprint(path: Path) -> str:
    """The SHA-256 of one run's results (floats as Python writes them, which round-trips every bit)."""
    import bufferlab

    r = bufferlab.run(path, progress=False)
    tables = {name: getattr(r, name).to_dict("list")
              for name in ("flows", "ports", "groups", "fct", "fct_records", "udp", "queue_series",
                           "cwnd_series", "delay_cdf")}
    text = json.dumps({"summary": r.summary, **tables}, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()


def current() -> Dict[str, str]:
    return {name: fingerprint(path) for name, path in scenarios().items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"record the current fingerprints in {STORED}")
    args = ap.parse_args()
    now = current()
    if args.write:
        STORED.parent.mkdir(parents=True, exist_ok=True)
        STORED.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"{len(now)} fingerprints written to {STORED}")
        return
    stored = json.loads(STORED.read_text())
    moved = sorted(k for k in now.keys() | stored.keys() if now.get(k) != stored.get(k))
    for name in moved:
        print(f"differs: {name}")
    print(f"{len(now) - len(moved)} of {len(now)} scenarios give the recorded results")
    sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
