"""Move the ns-3 runs ``bufferlab validate`` stored under an older key to their current key.

    python scripts/rekey_ns3_runs.py --rev REV [--rev REV2 ...] [--runs docs/validation/runs]
                                     [--scenarios validation/scenarios] [--move] [--dry-run]

A stored run (``<runs>/<scenario>/seed-<seed>-<key[:16]>.json``, ``validation/cache.py``) is keyed by its
ns-3 configuration and a fingerprint. Up to the split of ``ns3sim.py`` the fingerprint hashed that file's
source (and the ns-3 version), so any edit of it orphaned every stored run; now it hashes only what turns a
configuration into a result. For each stored run this script rebuilds the scenario as ``bufferlab validate``
does (the scenario file read by ``commands.validate.load_file``, its ``seed`` set to the run's), translates
it with the current translator, recomputes the old key from ``ns3sim.py`` as of each ``--rev`` (``git show``)
and checks it equals the stored key, then writes the record under the current key (the old file is kept
unless ``--move``). A run whose old key matches no revision is left alone and counted as failed: it was
made by another translator or configuration, and reading it back would give a result for other settings.
Finally every re-keyed run is read back through ``Ns3RunCache.get``. Exit status 1 if any run failed.

The script cannot tell whether the runner (what turns a configuration into a result) changed between REV and
now: give only revisions whose runner is today's, or a stale result would be read back as current.
Temporary files of an interrupted write (``.tmp-*``) are skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from bufferlab.commands.validate import load_file  # noqa: E402
from bufferlab.errors import BufferLabError  # noqa: E402
from bufferlab.validation import cache, ns3sim  # noqa: E402
from bufferlab.validation.cache import Ns3RunCache  # noqa: E402

OLD_SOURCE = "python/bufferlab/validation/ns3sim.py"


def old_fingerprint(rev: str) -> str:
    """The key's fingerprint before the split: sha256 of ``ns3sim.py`` as of ``rev`` + the ns-3 version."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{OLD_SOURCE}"], capture_output=True,
                            check=True).stdout
    return hashlib.sha256(source + cache.ns3_version().encode()).hexdigest()


def scenarios_by_name(paths: List[Path]) -> Dict[str, Dict[str, Any]]:
    """Every scenario file under ``paths`` (files or directories of ``*.toml``), by the name it runs as."""
    files: List[Path] = []
    for p in paths:
        files += sorted(p.glob("*.toml")) if p.is_dir() else [p]
    found: Dict[str, Dict[str, Any]] = {}
    for f in files:
        scenario = load_file(f)
        found[str(scenario["name"])] = scenario
    return found


def rekey(runs: Path, revs: List[str], scenario_paths: List[Path], *, move: bool,
          dry_run: bool) -> Dict[str, Any]:
    """Re-key every run under ``runs``; the counts by outcome and the failures (path, reason)."""
    olds = {old_fingerprint(rev): rev for rev in revs}
    scenarios = scenarios_by_name(scenario_paths)
    store = Ns3RunCache(runs)
    outcome: Counter = Counter()
    failures: List[Dict[str, str]] = []
    moved: List[Dict[str, Any]] = []
    for path in sorted(runs.glob("*/*.json")):
        if path.name.startswith(".tmp"):
            continue
        try:
            record = json.loads(path.read_text())
            stored_key, name, seed = record["key"], record["scenario"], int(record["seed"])
            record["result"]  # noqa: B018 - a record without its result cannot be read back
        except (OSError, ValueError, KeyError, TypeError) as exc:
            outcome["unreadable"] += 1
            failures.append({"path": str(path), "why": f"unreadable: {exc!r}"})
            continue
        if name not in scenarios:
            outcome["unknown scenario"] += 1
            failures.append({"path": str(path), "why": f"no scenario file named {name!r}"})
            continue
        scenario = {**scenarios[name], "seed": seed}
        try:
            config = ns3sim.translate(scenario)
        except BufferLabError as exc:
            outcome["not translated"] += 1
            failures.append({"path": str(path), "why": f"translate: {exc}"})
            continue
        new_key = cache.key_of(config, cache.runner_fingerprint())
        target = store.records.path(store.name(scenario, new_key))
        if stored_key == new_key:
            outcome["already current"] += 1
            moved.append({"scenario": scenario, "result": record["result"]})
            continue
        rev = next((r for fp, r in olds.items() if cache.key_of(config, fp) == stored_key), None)
        if rev is None:
            outcome["old key matches no revision"] += 1
            failures.append({"path": str(path), "why": "stored key matches no --rev's key for the current "
                             "configuration (another translator or configuration made it)"})
            continue
        outcome[f"re-keyed (from {rev})"] += 1
        moved.append({"scenario": scenario, "result": record["result"]})
        if dry_run:
            continue
        store.records.put(store.name(scenario, new_key), {**record, "key": new_key})
        if move and target != path:
            path.unlink()
    # Read back: each run's result through the cache, as validate reads it.
    if not dry_run:
        reader = Ns3RunCache(runs)
        for run in moved:
            if reader.get(run["scenario"]) != run["result"]:
                outcome["re-keyed but not read back"] += 1
                failures.append({"path": str(reader.entry(run["scenario"])[1]), "why": "not read back"})
        outcome["read back"] = reader.hits
    return {"outcome": dict(outcome), "failures": failures}


def main(argv: List[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", action="append", required=True,
                    help="a git revision whose ns3sim.py keyed the stored runs (repeatable)")
    ap.add_argument("--runs", type=Path, default=Path("docs/validation/runs"))
    ap.add_argument("--scenarios", type=Path, action="append", default=None,
                    help="scenario files or directories (default: validation/scenarios)")
    ap.add_argument("--move", action="store_true", help="remove each re-keyed run's old file")
    ap.add_argument("--dry-run", action="store_true", help="count only; write nothing")
    ap.add_argument("--failures", type=Path, default=None, help="write the failures as JSON here")
    args = ap.parse_args(argv)
    if not args.runs.is_dir():
        print(f"rekey_ns3_runs: {args.runs} is not a directory", file=sys.stderr)
        return 2
    report = rekey(args.runs, args.rev, args.scenarios or [ROOT / "validation" / "scenarios"],
                   move=args.move, dry_run=args.dry_run)
    for what, count in sorted(report["outcome"].items()):
        print(f"{count:6d}  {what}")
    reasons = Counter(f["why"].split(":")[0] for f in report["failures"])
    for why, count in reasons.most_common():
        print(f"failed {count:6d}  {why}")
    if args.failures:
        args.failures.write_text(json.dumps(report["failures"], indent=1))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
