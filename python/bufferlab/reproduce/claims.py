"""Claims, their verdicts, and the statistics behind them: means over seeds with 95 % Student-t intervals.

A :class:`Claim` is one testable statement of a paper's note (its id, e.g. ``T4``, the claim in one line, the
paper's value); a reproduction evaluates it into a :class:`Verdict`: our value (a mean over seeds with its
interval, or an exact number), the tolerance, and ``holds``, ``differs`` or ``not testable`` with why. The
tables in the reports are generated from these objects, never written by hand.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy as np
from scipy import stats

HOLDS, DIFFERS, NOT_TESTABLE = "holds", "differs", "not testable"


@dataclass(frozen=True)
class Estimate:
    """A mean over ``n`` seeds and its 95 % confidence interval (Student t; the mean itself when n = 1)."""

    mean: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if self.n <= 1 or self.low == self.high:
            return _num(self.mean)
        return f"{_num(self.mean)} [{_num(self.low)}, {_num(self.high)}]"


def estimate(values: Iterable[float]) -> Estimate:
    """The mean of ``values`` (NaN and None left out) with its 95 % interval."""
    x = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if x.size == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    m = float(x.mean())
    if x.size == 1:
        return Estimate(m, m, m, 1)
    half = float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return Estimate(m, m - half, m + half, int(x.size))


def _num(v: float) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 0.01:
        return f"{v:.3g}" if a < 10 else f"{v:.1f}"
    return f"{v:.2e}"


@dataclass(frozen=True)
class Claim:
    """A testable claim of a paper's note (§ "Testable claims")."""

    id: str
    text: str
    paper: str  # the paper's value, as the note gives it


@dataclass(frozen=True)
class Verdict:
    """A claim evaluated: ours, the tolerance, and the verdict with its reason."""

    claim: Claim
    ours: str
    tolerance: str
    verdict: str
    why: str = ""

    def row(self) -> Dict[str, Any]:
        return {**asdict(self.claim), "ours": self.ours, "tolerance": self.tolerance, "verdict": self.verdict,
                "why": self.why}


def judge(claim: Claim, ours: str, tolerance: str, ok: Optional[bool], why: str = "") -> Verdict:
    """``ok`` True/False gives holds/differs; None gives "not testable" (``why`` says why)."""
    verdict = NOT_TESTABLE if ok is None else (HOLDS if ok else DIFFERS)
    return Verdict(claim, ours, tolerance, verdict, why)


def claims_markdown(verdicts: Sequence[Verdict]) -> List[str]:
    """The claims table."""
    lines = ["| claim | the claim | paper | ours (mean [95 % CI] over seeds) | tolerance | verdict |",
             "|---|---|---|---|---|---|"]
    for v in verdicts:
        verdict = f"**{v.verdict}**" + (f": {v.why}" if v.why else "")
        c = v.claim
        lines.append(f"| {c.id} | {c.text} | {c.paper} | {v.ours} | {v.tolerance} | {verdict} |")
    return lines


def tally(verdicts: Sequence[Verdict]) -> Dict[str, int]:
    out = {HOLDS: 0, DIFFERS: 0, NOT_TESTABLE: 0}
    for v in verdicts:
        out[v.verdict] += 1
    return out
