"""Claims as code: each claim of a paper is one function, registered by id, that turns the runs into *tests*.

A :class:`Test` is a simulated (or computed) quantity's :class:`Estimate` (mean, 95 % interval, number of
seeds or independent batches) and the :class:`Region` the paper's statement puts it in. The verdict rules
are in :mod:`bufferlab.reproduce.verdicts`: a test holds when its whole interval lies inside the region,
differs when it lies wholly outside, and is inconclusive otherwise; a claim holds when all its tests hold.

A paper module declares its claims with a :class:`Claims` registry::

    claims = Claims()

    @claims.claim("T1", "Fig. 1c: 40 paced flows, B = 10: utilization about 80 % or more",
                  paper="≥ ~0.80", where="Sec. III, Fig. 1(c)")
    def t1(ctx: Context) -> Outcome:
        u = utilization(ctx["fig1"], n=40, paced=True, buffer=10)
        return Outcome([Test("utilization, 40 paced flows, B = 10", u, ge(0.77))])

``where`` is the paper's own section, figure or table. An :class:`Outcome` holds the tests under the
principal (paper-faithful) reading, the tests under each alternative reading (:class:`Reading`), and *why*:
for anything but "holds", the cause and the experiment that shows it (or "cause unknown"). Claims that are
arithmetic or formula checks are registered with ``model_check=True``: they are reported in a table of
their own and not counted among the claims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set

import numpy as np

from bufferlab.reproduce.verdicts import (
    DIFFERS,
    HOLDS,
    HOLDS_UNDER,
    INCONCLUSIVE,
    NOT_TESTABLE,
    VERDICTS,
    claim_result,
    final_verdict,
    region_result,
)
from bufferlab.reproduce.verdicts import tally as count_verdicts
from bufferlab.stats import mean_interval, t_quantile, welch_df, welch_interval

__all__ = ["HOLDS", "HOLDS_UNDER", "DIFFERS", "INCONCLUSIVE", "NOT_TESTABLE", "VERDICTS", "Estimate",
           "estimate", "exact", "difference", "paired_difference", "paired_by_seed", "ratio", "slope",
           "select", "all_hold", "table_row", "Region", "ge", "gt",
           "le", "lt", "between", "Test", "Reading", "Outcome", "Claim", "Claims", "Context", "Evaluated",
           "claims_markdown", "tally"]

LEVEL = 0.95


# ------------------------------------------------------------------------------------------- estimates


@dataclass(frozen=True)
class Estimate:
    """A mean over ``n`` seeds (or independent batches) and its 95 % interval; an exact number has
    ``low == mean == high``."""

    mean: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if self.n <= 1 or self.low == self.high:
            return _num(self.mean)
        return f"{_num(self.mean)} [{_num(self.low)}, {_num(self.high)}]"

    @property
    def defined(self) -> bool:
        return self.n > 0 and all(math.isfinite(v) for v in (self.mean, self.low, self.high))


NONE = Estimate(math.nan, math.nan, math.nan, 0)


def _finite(values: Iterable[Any]) -> np.ndarray:
    return np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)


def estimate(values: Iterable[float]) -> Estimate:
    """The mean of ``values`` (NaN and None left out) with its Student-t interval
    (:func:`bufferlab.stats.mean_interval`). One value has no interval: it is returned with ``n = 1`` and an
    infinite interval, so that no test can be decided on it (use :func:`exact` for a number that is not a
    sample)."""
    x = _finite(values)
    if x.size == 0:
        return NONE
    if x.size == 1:
        return Estimate(float(x[0]), -math.inf, math.inf, 1)
    iv = mean_interval(x, LEVEL)
    return Estimate(iv.mean, iv.low, iv.high, iv.n)


def exact(value: float) -> Estimate:
    """A computed number (an analytic model, a closed form): its own interval."""
    v = float(value)
    return Estimate(v, v, v, 1) if math.isfinite(v) else NONE


def difference(a: Iterable[float], b: Iterable[float]) -> Estimate:
    """mean(a) − mean(b) of two independent samples, with Welch's interval (:func:`bufferlab.stats.
    welch_interval`; n: the smaller sample). A sample of one value has no spread: nothing is decided."""
    xa, xb = _finite(a), _finite(b)
    if xa.size < 2 or xb.size < 2:
        return NONE if not (xa.size and xb.size) else Estimate(float(xa.mean() - xb.mean()), -math.inf,
                                                                math.inf, 1)
    iv = welch_interval(xa, xb, LEVEL)
    return Estimate(iv.difference, iv.low, iv.high, int(min(xa.size, xb.size)))


def paired_difference(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """The mean of a_i − b_i over seeds run under both settings (common random numbers)."""
    return estimate([x - y for x, y in zip(a, b) if x is not None and y is not None])


def paired_by_seed(a: Mapping[int, float], b: Mapping[int, float]) -> Estimate:
    """:func:`paired_difference` of two ``{seed: value}`` maps, over the seeds in both (in seed order)."""
    seeds = sorted(set(a) & set(b))
    return paired_difference([a[s] for s in seeds], [b[s] for s in seeds])


def select(records: Iterable[Dict[str, Any]], **labels: Any) -> List[Dict[str, Any]]:
    """The run records whose labels include ``labels``."""
    return [r for r in records if all(r["labels"].get(k) == v for k, v in labels.items())]


def ratio(a: Iterable[float], b: Iterable[float]) -> Estimate:
    """mean(a) / mean(b) of two independent samples, with the delta-method interval (Welch's degrees of
    freedom on the relative variances); undefined when mean(b) is 0."""
    xa, xb = _finite(a), _finite(b)
    if xa.size < 2 or xb.size < 2 or xb.mean() == 0:
        return NONE
    ma, mb = float(xa.mean()), float(xb.mean())
    r = ma / mb
    ra = xa.var(ddof=1) / xa.size / (ma * ma) if ma else 0.0
    rb = xb.var(ddof=1) / xb.size / (mb * mb)
    rel = float(ra + rb)
    if rel <= 0:
        return Estimate(r, r, r, int(min(xa.size, xb.size)))
    half = t_quantile(welch_df(ra, rb, xa.size, xb.size), LEVEL) * abs(r) * math.sqrt(rel)
    return Estimate(r, r - half, r + half, int(min(xa.size, xb.size)))


def slope(x: Sequence[float], y: Sequence[float], n: Optional[int] = None) -> Estimate:
    """The least-squares slope of y on x with its t interval (n − 2 degrees of freedom over the points);
    ``n`` records the seeds behind each point (default: the number of points)."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[ok], ys[ok]
    if xs.size < 3 or np.ptp(xs) == 0:
        return NONE
    b, a = np.polyfit(xs, ys, 1)
    resid = ys - (a + b * xs)
    se = math.sqrt(float(resid @ resid) / (xs.size - 2) / float(((xs - xs.mean()) ** 2).sum()))
    half = t_quantile(xs.size - 2, LEVEL) * se
    return Estimate(float(b), float(b) - half, float(b) + half, int(n if n is not None else xs.size))


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


# ------------------------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class Region:
    """Where a quantity must lie: ``op`` one of ``>=``, ``>``, ``<=``, ``<`` (one bound) or ``between``."""

    op: str
    bounds: tuple

    def __str__(self) -> str:
        if self.op == "between":
            return f"in [{_num(self.bounds[0])}, {_num(self.bounds[1])}]"
        return f"{self.op} {_num(self.bounds[0])}"


def all_hold(tests: Sequence[Test]) -> bool:
    """Whether a claim with these tests holds (:func:`bufferlab.reproduce.verdicts.claim_result`)."""
    return claim_result([t.result for t in tests]) == HOLDS


def ge(x: float) -> Region:
    return Region(">=", (float(x),))


def gt(x: float) -> Region:
    return Region(">", (float(x),))


def le(x: float) -> Region:
    return Region("<=", (float(x),))


def lt(x: float) -> Region:
    return Region("<", (float(x),))


def between(a: float, b: float) -> Region:
    return Region("between", (float(a), float(b)))


@dataclass(frozen=True)
class Test:
    """A quantity, its estimate and its region. ``comparable`` is False when a quick run measures this
    quantity on a different design than the full run (shorter runs, other points), so that ``--check``
    does not hold the quick interval against the committed mean."""

    __test__ = False  # not a pytest class

    quantity: str
    est: Estimate
    region: Region
    comparable: bool = True

    @property
    def result(self) -> str:
        return region_result(self.est.low if self.est.defined else None,
                             self.est.high if self.est.defined else None, self.region.op, self.region.bounds)

    def row(self) -> Dict[str, Any]:
        def num(v: float) -> Optional[float]:
            return float(v) if math.isfinite(v) else None

        return {"quantity": self.quantity, "mean": num(self.est.mean), "low": num(self.est.low),
                "high": num(self.est.high), "n": self.est.n,
                "region": {"op": self.region.op, "bounds": list(self.region.bounds)}, "result": self.result,
                "comparable": self.comparable}

    def __str__(self) -> str:
        return f"{self.quantity} = {self.est} ({self.region}: {self.result})"


@dataclass(frozen=True)
class Reading:
    """The same claim's tests under another reading of what the paper leaves open."""

    name: str
    tests: List[Test]


@dataclass(frozen=True)
class Outcome:
    """What a claim's function returns: the tests under the principal reading, the other readings'
    tests, and why (the cause of anything but "holds", with the experiment that shows it)."""

    tests: List[Test]
    why: str = ""
    alternatives: List[Reading] = field(default_factory=list)


@dataclass(frozen=True)
class Claim:
    """A claim of a paper: its id, the claim in one line, the paper's value and where the paper says it."""

    id: str
    text: str
    paper: str
    where: str
    model_check: bool = False


Evaluator = Callable[["Context"], Outcome]


class Claims:
    """A paper's claims, in order, each with the function that evaluates it."""

    def __init__(self) -> None:
        self._claims: Dict[str, Claim] = {}
        self._functions: Dict[str, Evaluator] = {}

    def claim(self, id: str, text: str, *, paper: str, where: str,
              model_check: bool = False) -> Callable[[Evaluator], Evaluator]:
        if id in self._claims:
            raise ValueError(f"claim {id} registered twice")

        def register(fn: Evaluator) -> Evaluator:
            self._claims[id] = Claim(id, text, paper, where, model_check)
            self._functions[id] = fn
            return fn

        return register

    def __iter__(self):
        return iter(self._claims.values())

    def __len__(self) -> int:
        return len(self._claims)

    def function(self, cid: str) -> Evaluator:
        return self._functions[cid]


class Context(Mapping):
    """The runs of every experiment, by name (``ctx["fig1"]``), and ``quick``; records which experiments a
    claim read, so that an inconclusive claim gets more seeds of those and only those. A claim that is not
    made of engine runs (a Monte Carlo of a model) asks for its number of independent batches with
    :meth:`batches`, which grows like an experiment's seeds while the claim is inconclusive."""

    def __init__(self, results: Dict[str, List[Dict[str, Any]]], quick: bool,
                 counts: Optional[Dict[str, int]] = None) -> None:
        self._results = results
        self._counts = counts if counts is not None else {}
        self.quick = quick
        self.read: Set[str] = set()

    def __getitem__(self, name: str) -> List[Dict[str, Any]]:
        self.read.add(name)
        return self._results[name]

    def batches(self, name: str, start: int) -> int:
        """How many independent batches the computation ``name`` runs now: ``start`` at first, more while a
        claim that asked for it stays inconclusive (up to the seed cap)."""
        if name in self._results:
            raise ValueError(f"batches({name!r}): an experiment already has that name")
        self.read.add(name)
        return self._counts.setdefault(name, start)

    def __iter__(self):
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)


@dataclass(frozen=True)
class Evaluated:
    """A claim with its outcome and verdict (:func:`bufferlab.reproduce.verdicts.final_verdict`)."""

    claim: Claim
    outcome: Outcome
    principal: str  # the reading the paper's setting is closest to
    read: frozenset = frozenset()

    @property
    def principal_verdict(self) -> str:
        return claim_result([t.result for t in self.outcome.tests])

    def _alternatives(self) -> List[tuple]:
        return [(a.name, claim_result([t.result for t in a.tests])) for a in self.outcome.alternatives]

    @property
    def verdict(self) -> str:
        return final_verdict(self.principal_verdict, self._alternatives())[0]

    @property
    def reading(self) -> str:
        _v, i = final_verdict(self.principal_verdict, self._alternatives())
        return self.principal if i is None else self._alternatives()[i][0]

    def row(self) -> Dict[str, Any]:
        c = self.claim
        alts = [{"reading": a.name, "tests": [t.row() for t in a.tests], "verdict": v,
                 "flips": v != self.principal_verdict}
                for a, (_n, v) in zip(self.outcome.alternatives, self._alternatives())]
        return {"id": c.id, "text": c.text, "paper": {"value": c.paper, "where": c.where},
                "tests": [t.row() for t in self.outcome.tests], "verdict": self.verdict,
                "reading": self.reading, "why": self.outcome.why, "alternatives": alts}


def evaluate_claim(claims: Claims, claim: Claim, results: Dict[str, List[Dict[str, Any]]], quick: bool,
                   principal: str, counts: Optional[Dict[str, int]] = None) -> Evaluated:
    """Run a claim's function on ``results``; ``counts`` holds the batch counts of :meth:`Context.batches`
    (and receives the first request of each)."""
    ctx = Context(results, quick, counts)
    outcome = claims.function(claim.id)(ctx)
    if not isinstance(outcome, Outcome):
        raise TypeError(f"claim {claim.id}: its function returned {type(outcome).__name__}, not an Outcome")
    ev = Evaluated(claim, outcome, principal, frozenset(ctx.read))
    if ev.verdict not in (HOLDS,) and not outcome.why:
        raise ValueError(f"claim {claim.id} is {ev.verdict} without a reason (Outcome.why)")
    return ev


# ------------------------------------------------------------------------------------------- tables


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _tests_cell(tests: Sequence[Test]) -> str:
    return "<br>".join(_cell(f"{t.quantity}: {t.est}{'' if t.est.n <= 1 else f' (n={t.est.n})'} "
                             f"{t.region} → {t.result}") for t in tests)


def claims_markdown(evaluated: Sequence[Evaluated]) -> List[str]:
    """The claims table: the paper's value and where it says it, each test (estimate over n seeds, region,
    result), the verdict with its reason, and every other reading's verdict (marked where it flips)."""
    lines = ["| claim | the claim | paper (where) | tests: estimate [95 % CI] (n) region → result | "
             "verdict | other readings |", "|---|---|---|---|---|---|"]
    for e in evaluated:
        c = e.claim
        verdict = f"**{e.verdict}**" + (f" ({_cell(e.reading)})" if e.verdict == HOLDS_UNDER else "")
        if e.outcome.why:
            verdict += f": {_cell(e.outcome.why)}"
        others = "<br>".join(
            _cell(f"{a['reading']}: {a['verdict']}") + (" (**flips**)" if a["flips"] else "")
            for a in e.row()["alternatives"]) or "-"
        lines.append(f"| {c.id} | {_cell(c.text)} | {_cell(c.paper)} ({_cell(c.where)}) | "
                     f"{_tests_cell(e.outcome.tests) or '-'} | {verdict} | {others} |")
    return lines


def table_row(label: str, cells: Sequence[Any]) -> str:
    """A markdown table row: ``label``, then each cell, an :class:`Estimate` (``-`` when undefined) or as
    written."""
    return f"| {label} | " + " | ".join(
        (str(c) if c.defined else "-") if isinstance(c, Estimate) else str(c) for c in cells) + " |"


def tally(evaluated: Sequence[Evaluated]) -> Dict[str, int]:
    """Verdicts counted over the claims (model checks are not claims)."""
    return count_verdicts([e.verdict for e in evaluated if not e.claim.model_check])
