"""The verdict rules, on plain numbers: a test's result from its interval and region, a claim's verdict from
its tests and readings, a table's tally, and a recheck of a whole ``claims.json`` against them.

Standard library only, so that ``scripts/recheck_claims.py`` can load this file on a machine without
BufferLab and recompute every committed verdict from the committed numbers alone.

* A **test** is a quantity's estimate ``[low, high]`` (a 95 % interval over ``n`` seeds or batches; an exact
  number has ``low == mean == high``) and a **region** it must lie in: ``{"op": ">=", "bounds": [x]}``
  (also ``>``, ``<=``, ``<``) or ``{"op": "between", "bounds": [a, b]}``. It *holds* when the whole interval
  lies in the region, *differs* when the whole interval lies outside it, and is *inconclusive* otherwise
  (and when there is no estimate).
* A **claim** holds when all its tests hold, differs when one differs, is inconclusive otherwise, and is
  *not testable* when it has no test. A claim that differs under the principal (paper-faithful) reading
  but holds under an alternative one is counted as *holds only under a reading*, naming it.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

HOLDS, DIFFERS, INCONCLUSIVE, NOT_TESTABLE = "holds", "differs", "inconclusive", "not testable"
HOLDS_UNDER = "holds only under a reading"
#: Every verdict, in the order the tables count them.
VERDICTS = (HOLDS, HOLDS_UNDER, DIFFERS, INCONCLUSIVE, NOT_TESTABLE)
OPS = (">=", ">", "<=", "<", "between")


def region_result(low: Optional[float], high: Optional[float], op: str, bounds: Sequence[float]) -> str:
    """holds / differs / inconclusive for the interval ``[low, high]`` against the region ``op bounds``."""
    if op not in OPS:
        raise ValueError(f"region op {op!r}: one of {', '.join(OPS)}")
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    if op == "between":
        a, b = bounds
        if a <= low and high <= b:
            return HOLDS
        return DIFFERS if high < a or low > b else INCONCLUSIVE
    (x,) = bounds
    inside = {">=": low >= x, ">": low > x, "<=": high <= x, "<": high < x}[op]
    outside = {">=": high < x, ">": high <= x, "<=": low > x, "<": low >= x}[op]
    return HOLDS if inside else DIFFERS if outside else INCONCLUSIVE


def claim_result(results: Sequence[str]) -> str:
    """A claim's verdict under one reading from its tests' results."""
    if not results:
        return NOT_TESTABLE
    if all(r == HOLDS for r in results):
        return HOLDS
    return DIFFERS if DIFFERS in results else INCONCLUSIVE


def final_verdict(principal: str, alternatives: Sequence[tuple]) -> tuple:
    """(verdict, reading index) from the principal reading's verdict and ``(name, verdict)`` of the others:
    a claim that differs under the principal reading but holds under another holds only under that one."""
    if principal == DIFFERS:
        for i, (_name, verdict) in enumerate(alternatives):
            if verdict == HOLDS:
                return HOLDS_UNDER, i
    return principal, None


def tally(verdicts: Sequence[str]) -> Dict[str, int]:
    out = {v: 0 for v in VERDICTS}
    for v in verdicts:
        out[v] += 1
    return out


def _test_result(t: Dict[str, Any]) -> str:
    return region_result(t.get("low"), t.get("high"), t["region"]["op"], t["region"]["bounds"])


def recheck(doc: Dict[str, Any]) -> List[str]:
    """Every disagreement between a ``claims.json`` document and the rules above (empty when it agrees):
    each test's result, each reading's and claim's verdict, the reading named, and the tally."""
    problems: List[str] = []
    where = doc.get("paper", "?")
    verdicts = []
    for c in doc.get("claims", []) + doc.get("model_checks", []):
        cid = f"{where} {c['id']}"
        for t in c["tests"] + [t for a in c.get("alternatives", []) for t in a["tests"]]:
            mean, low, high = t.get("mean"), t.get("low"), t.get("high")
            if None not in (mean, low, high) and not low <= mean <= high:
                problems.append(f"{cid}: {t['quantity']}: mean {mean} outside [{low}, {high}]")
            result = _test_result(t)
            if result != t["result"]:
                problems.append(f"{cid}: {t['quantity']}: recorded {t['result']}, recomputed {result}")
        principal = claim_result([_test_result(t) for t in c["tests"]])
        alts = [(a["reading"], claim_result([_test_result(t) for t in a["tests"]]))
                for a in c.get("alternatives", [])]
        for a, (_n, v) in zip(c.get("alternatives", []), alts):
            if a["verdict"] != v:
                problems.append(f"{cid}: under {a['reading']!r} recorded {a['verdict']}, recomputed {v}")
        verdict, i = final_verdict(principal, alts)
        if c["verdict"] != verdict:
            problems.append(f"{cid}: recorded {c['verdict']}, recomputed {verdict}")
        if i is not None and c.get("reading") != alts[i][0]:
            problems.append(f"{cid}: holds only under {alts[i][0]!r}, recorded reading {c.get('reading')!r}")
        if verdict == NOT_TESTABLE and not c.get("why"):
            problems.append(f"{cid}: not testable without a reason")
        if c in doc.get("claims", []):
            verdicts.append(verdict)
    if doc.get("tally") != tally(verdicts):
        problems.append(f"{where}: recorded tally {doc.get('tally')}, recomputed {tally(verdicts)}")
    return problems


def tally_sentence(t: Dict[str, int]) -> str:
    """The tally in words, as the README states it."""
    total = sum(t.values())
    return (f"{total} claims: {t[HOLDS]} hold, {t[HOLDS_UNDER]} hold only under a non-principal reading, "
            f"{t[DIFFERS]} differ, {t[INCONCLUSIVE]} inconclusive, {t[NOT_TESTABLE]} not testable")
