"""`bufferlab reproduce`: the run cache (resume, atomic records), the statistics and verdict rules, claims as
registered functions, seeds that grow only where a claim is inconclusive, the claims table, its recheck from
the numbers alone and its check against a committed table, and the command's errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bufferlab import cli
from bufferlab import reproduce as rp
from bufferlab.errors import BufferLabError
from bufferlab.reproduce import PAPERS, check_against, runner, summary_markdown
from bufferlab.reproduce import verdicts as vd
from bufferlab.reproduce.claims import (
    Claims,
    Outcome,
    Reading,
    Test,
    between,
    difference,
    estimate,
    evaluate_claim,
    exact,
    ge,
    gt,
    le,
    lt,
    paired_difference,
    ratio,
    slope,
)

ROOT = Path(__file__).resolve().parents[1]


def small(rate: str = "10Mbps") -> dict:
    queue = {"discipline": "droptail", "limit": 20}
    return {"duration": "2s", "warmup": "0.5s", "bottleneck": {"rate": rate, "delay": "5ms", "queue": queue},
            "flows": {"count": 2, "rtt": "40ms"}}


def test_runs_are_kept_and_a_second_call_runs_nothing(tmp_path: Path, monkeypatch) -> None:
    tasks = [runner.Task(small(), seed, {"seed": seed}) for seed in (1, 2)] + [runner.Task(small("5Mbps"), 1)]
    first = runner.run_tasks(tasks, tmp_path, workers=1)
    assert len(list(tmp_path.glob("*.json"))) == 3 and not list(tmp_path.glob(".tmp-*"))
    for rec in first:
        s = rec["summary"]
        assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert first[0]["summary"] != first[1]["summary"]  # two seeds
    calls = []
    monkeypatch.setattr(runner, "run_one", lambda t: calls.append(t) or {})
    again = runner.run_tasks(tasks, tmp_path, workers=1)
    assert calls == [] and [r["summary"] for r in again] == [r["summary"] for r in first]
    # A damaged record is run again; the others are reused.
    victim = sorted(tmp_path.glob("*.json"))[0]
    victim.write_text("{truncated")
    monkeypatch.undo()
    third = runner.run_tasks(tasks, tmp_path, workers=1)
    assert [r["summary"] for r in third] == [r["summary"] for r in first]
    # Records already in memory (an earlier round of the same reproduction) are neither read nor run again.
    known: dict = {}
    runner.run_tasks(tasks[:2], tmp_path, workers=1, known=known)
    assert len(known) == 2
    for f in tmp_path.glob("*.json"):
        f.unlink()
    monkeypatch.setattr(runner, "run_one", lambda t: calls.append(t) or {})
    steps = []
    fourth = runner.run_tasks(tasks[:2], tmp_path, workers=1, known=known,
                              progress=lambda d, t: steps.append((d, t)))
    assert calls == [] and steps == [(2, 2)]
    assert [r["summary"] for r in fourth] == [r["summary"] for r in first[:2]]


def test_pool_and_serial_give_identical_records(tmp_path: Path) -> None:
    tasks = [runner.Task(small(), seed) for seed in (1, 2, 3)]
    serial = runner.run_tasks(tasks, tmp_path / "a", workers=1)
    pool = runner.run_tasks(tasks, tmp_path / "b", workers=2)
    for a, b in zip(serial, pool):
        a["summary"].pop("wall_s", None)
        b["summary"].pop("wall_s", None)
        assert a["summary"] == b["summary"]


def test_a_refused_scenario_names_its_field(tmp_path: Path) -> None:
    bad = small()
    bad["bottleneck"]["rate"] = "fast"
    with pytest.raises(BufferLabError, match="bottleneck.rate"):
        runner.run_tasks([runner.Task(bad, 1)], tmp_path)


def test_estimate_is_the_mean_with_a_student_t_interval() -> None:
    e = estimate([1.0, 2.0, 3.0])
    # t(0.975, 2) = 4.3027; s = 1; half-width 4.3027 / sqrt(3) = 2.4842.
    assert e.mean == 2.0 and e.n == 3
    assert e.high - e.mean == pytest.approx(4.302653 / math.sqrt(3), rel=1e-5)
    assert str(e) == "2 [-0.484, 4.48]"
    one = estimate([0.5, float("nan"), None])  # one sample has no interval: nothing can be decided on it
    assert (one.mean, one.n) == (0.5, 1) and one.low == -math.inf and one.high == math.inf
    assert Test("x", one, ge(0.0)).result == vd.INCONCLUSIVE
    assert estimate([]).n == 0 and Test("x", estimate([]), ge(0.0)).result == vd.INCONCLUSIVE
    assert (exact(0.25).low, exact(0.25).high) == (0.25, 0.25)


def test_differences_ratios_and_slopes_have_their_textbook_intervals() -> None:
    from scipy import stats

    a, b = [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0]
    d = difference(a, b)
    va, vb = np.var(a, ddof=1) / 4, np.var(b, ddof=1) / 3
    df = (va + vb) ** 2 / (va ** 2 / 3 + vb ** 2 / 2)
    assert d.mean == pytest.approx(2.0) and d.n == 3
    assert d.high - d.mean == pytest.approx(stats.t.ppf(0.975, df) * math.sqrt(va + vb))
    p = paired_difference([1.0, 2.0, 4.0], [0.5, 1.0, 3.0])
    assert p.mean == pytest.approx(5 / 6) and p.n == 3
    r = ratio([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])
    assert r.mean == pytest.approx(2.0) and r.low < 2.0 < r.high
    s = slope([1, 2, 3, 4, 5], [2.0, 4.1, 5.9, 8.0, 10.1])
    fit = stats.linregress([1, 2, 3, 4, 5], [2.0, 4.1, 5.9, 8.0, 10.1])
    assert s.mean == pytest.approx(fit.slope)
    assert s.high - s.mean == pytest.approx(stats.t.ppf(0.975, 3) * fit.stderr)
    assert ratio([1.0, 2.0], [0.0, 0.0]).n == 0 and slope([1, 1, 1], [1, 2, 3]).n == 0


@pytest.mark.parametrize("region, low, high, result", [
    (ge(1.0), 1.0, 2.0, vd.HOLDS), (ge(1.0), 0.5, 2.0, vd.INCONCLUSIVE), (ge(1.0), 0.1, 0.9, vd.DIFFERS),
    (gt(1.0), 1.0, 2.0, vd.INCONCLUSIVE), (gt(1.0), 0.5, 1.0, vd.DIFFERS), (gt(0.0), 0.1, 0.2, vd.HOLDS),
    (le(1.0), 0.0, 1.0, vd.HOLDS), (le(1.0), 1.01, 3.0, vd.DIFFERS), (lt(1.0), 0.0, 1.0, vd.INCONCLUSIVE),
    (lt(1.0), 1.0, 2.0, vd.DIFFERS), (between(0.0, 1.0), 0.2, 0.8, vd.HOLDS),
    (between(0.0, 1.0), 0.8, 1.2, vd.INCONCLUSIVE), (between(0.0, 1.0), 1.1, 1.2, vd.DIFFERS),
    (between(0.0, 1.0), -0.5, -0.1, vd.DIFFERS), (between(0.0, 1.0), -0.5, 1.5, vd.INCONCLUSIVE),
])
def test_a_test_holds_inside_differs_outside_and_is_inconclusive_across_an_edge(region, low, high,
                                                                               result) -> None:
    assert vd.region_result(low, high, region.op, region.bounds) == result
    assert vd.region_result(None, high, region.op, region.bounds) == vd.INCONCLUSIVE


def test_claim_verdicts_and_readings() -> None:
    assert vd.claim_result([]) == vd.NOT_TESTABLE
    assert vd.claim_result([vd.HOLDS, vd.HOLDS]) == vd.HOLDS
    assert vd.claim_result([vd.HOLDS, vd.INCONCLUSIVE]) == vd.INCONCLUSIVE
    assert vd.claim_result([vd.INCONCLUSIVE, vd.DIFFERS]) == vd.DIFFERS
    # Differs under the principal reading, holds under another: counted apart, naming the reading.
    assert vd.final_verdict(vd.DIFFERS, [("a", vd.DIFFERS), ("b", vd.HOLDS)]) == (vd.HOLDS_UNDER, 1)
    # An undecided principal reading is not turned into "holds under" by another reading.
    assert vd.final_verdict(vd.INCONCLUSIVE, [("b", vd.HOLDS)]) == (vd.INCONCLUSIVE, None)
    assert vd.final_verdict(vd.HOLDS, [("b", vd.DIFFERS)]) == (vd.HOLDS, None)


def _registry() -> Claims:
    claims = Claims()

    @claims.claim("A", "a level", paper="≥ 1", where="Sec. 1")
    def a(ctx):
        return Outcome([Test("level", estimate(r["summary"]["x"] for r in ctx["base"]), ge(1.0))],
                       why="" if True else "")

    @claims.claim("B", "a reading decides it", paper="≤ 0", where="Fig. 2")
    def b(ctx):
        alt = [Test("level", estimate(r["summary"]["x"] for r in ctx["alt"]), le(0.0))]
        return Outcome([Test("level", estimate(r["summary"]["x"] for r in ctx["base"]), le(0.0))],
                       why="the base reading is above 0 (experiment alt shows the other reading)",
                       alternatives=[Reading("alt", alt)])

    @claims.claim("C", "arithmetic", paper="4", where="Eq. (3)", model_check=True)
    def c(ctx):
        return Outcome([Test("2 + 2", exact(2 + 2), between(4, 4))])

    return claims


def test_claims_are_registered_functions_and_record_what_they_read() -> None:
    claims = _registry()
    assert [c.id for c in claims] == ["A", "B", "C"] and claims.function("A") is not None
    with pytest.raises(ValueError, match="twice"):
        claims.claim("A", "again", paper="", where="")(lambda ctx: Outcome([]))
    results = {"base": [{"summary": {"x": v}} for v in (2.0, 2.1, 1.9)],
               "alt": [{"summary": {"x": v}} for v in (-1.0, -1.1, -0.9)], "unused": []}
    ev = {c.id: evaluate_claim(claims, c, results, False, "paper's") for c in claims}
    assert ev["A"].verdict == vd.HOLDS and ev["A"].read == {"base"}
    assert ev["B"].verdict == vd.HOLDS_UNDER and ev["B"].reading == "alt" and ev["B"].read == {"base", "alt"}
    row = ev["B"].row()
    assert row["paper"] == {"value": "≤ 0", "where": "Fig. 2"} and row["alternatives"][0]["flips"]
    assert row["tests"][0]["region"] == {"op": "<=", "bounds": [0.0]} and row["tests"][0]["n"] == 3

    unexplained = Claims()
    unexplained.claim("D", "d", paper="", where="")(lambda ctx: Outcome([Test("q", exact(1.0), le(0.0))]))
    with pytest.raises(ValueError, match="without a reason"):
        evaluate_claim(unexplained, next(iter(unexplained)), results, False, "p")


class _FakePaper:
    """A paper whose claim A needs more seeds than it starts with; B is decided at once."""

    NAME, TITLE, PRINCIPAL, CHOICES = "fake", "A fake paper", "the paper's", ["a choice, with its words"]
    CLAIMS = Claims()

    @staticmethod
    @CLAIMS.claim("A", "mean of noisy values above 0", paper="> 0", where="Sec. 2")
    def a(ctx):
        e = estimate(r["summary"]["x"] for r in ctx["noisy"])
        return Outcome([Test("noisy mean", e, gt(0.0))], why="" if e.low > 0 else "not decided")

    @staticmethod
    @CLAIMS.claim("B", "a fixed level", paper="1", where="Table 1")
    def b(ctx):
        return Outcome([Test("level", estimate(r["summary"]["x"] for r in ctx["steady"]), between(0.5, 1.5))])

    @staticmethod
    @CLAIMS.claim("M", "a Monte Carlo mean above 0", paper="> 0", where="Theorem 1")
    def m(ctx):
        k = ctx.batches("mc", 2)
        e = estimate([0.5, -0.45, 0.4, 0.35, 0.45, 0.3, 0.5, 0.4, 0.45, 0.35][:k])
        return Outcome([Test("batch mean", e, gt(0.0))], why="" if e.low > 0 else "not decided")

    @staticmethod
    def experiments(quick, seeds):
        return {e: [runner.Task({"name": e}, s, {"exp": e}) for s in range(1, seeds + 1)]
                for e in ("noisy", "steady")}

    @staticmethod
    def figures(results, out):
        return []


def _fake_runs(tasks, cache, workers=1, progress=None, known=None):
    noisy = [0.5, -0.45, 0.4, 0.35, 0.45, 0.3, 0.5, 0.4, 0.45, 0.35]  # decided above 0 from about 5 seeds
    return [{"labels": t.labels, "seed": t.seed, "wall_s": 0.0,
             "summary": {"x": noisy[t.seed - 1] if t.labels["exp"] == "noisy" else 1.0 + 0.01 * t.seed}}
            for t in tasks]


def test_only_an_inconclusive_claims_experiments_get_more_seeds(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(PAPERS, "fake", "fake")
    monkeypatch.setattr(rp.importlib, "import_module", lambda name: _FakePaper)
    monkeypatch.setattr(rp, "run_tasks", _fake_runs)
    doc = rp.reproduce("fake", tmp_path / "a", seeds=2, max_seeds=10)
    # batches of ceil(2 / 2) = 1 seed; the Monte Carlo's batches grow the same way
    assert doc["seeds_by_experiment"] == {"noisy": 8, "steady": 2, "mc": 8}
    a = doc["claims"][0]
    assert a["verdict"] == vd.HOLDS and a["tests"][0]["n"] == 8 and a["tests"][0]["low"] > 0
    assert doc["tally"][vd.HOLDS] == 3
    assert vd.recheck(json.loads((tmp_path / "a" / "claims.json").read_text())) == []
    # A cap that does not decide it leaves it inconclusive, named so in the table.
    capped = rp.reproduce("fake", tmp_path / "b", seeds=2, max_seeds=3)
    assert capped["seeds_by_experiment"]["noisy"] == 3 and capped["claims"][0]["verdict"] == vd.INCONCLUSIVE
    assert "**inconclusive**: not decided" in (tmp_path / "b" / "report.md").read_text()
    with pytest.raises(BufferLabError, match="--max-seeds"):
        rp.reproduce("fake", tmp_path / "c", seeds=4, max_seeds=3)
    # The same call gives the same table.
    again = rp.reproduce("fake", tmp_path / "d", seeds=2, max_seeds=10)
    assert again["claims"] == doc["claims"]


def _doc() -> dict:
    t = {"quantity": "u", "mean": 0.9, "low": 0.85, "high": 0.95, "n": 5,
         "region": {"op": ">=", "bounds": [0.8]}, "result": vd.HOLDS, "comparable": True}
    alt = {**t, "mean": 0.5, "low": 0.45, "high": 0.55, "result": vd.DIFFERS}
    claims = [{"id": "T1", "text": "t", "paper": {"value": "0.8", "where": "Fig. 1"}, "tests": [t],
               "verdict": vd.HOLDS, "reading": "p", "why": "",
               "alternatives": [{"reading": "q", "tests": [alt], "verdict": vd.DIFFERS, "flips": True}]},
              {"id": "T2", "text": "t", "paper": {"value": "0.8", "where": "Fig. 2"}, "tests": [alt],
               "verdict": vd.DIFFERS, "reading": "p", "why": "lower", "alternatives": []}]
    return {"paper": "x", "claims": claims, "model_checks": [],
            "tally": {**{v: 0 for v in vd.VERDICTS}, vd.HOLDS: 1, vd.DIFFERS: 1}}


def test_recheck_recomputes_every_verdict_from_the_numbers() -> None:
    assert vd.recheck(_doc()) == []
    d = _doc()
    d["claims"][0]["tests"][0]["low"] = 0.7  # the interval now crosses 0.8: no longer "holds"
    problems = vd.recheck(d)
    assert any("recorded holds, recomputed inconclusive" in p for p in problems)
    assert any("tally" in p for p in problems)
    d = _doc()
    d["claims"][1]["alternatives"] = [{"reading": "q", "tests": [d["claims"][0]["tests"][0]],
                                       "verdict": vd.HOLDS, "flips": True}]
    assert any("recorded differs, recomputed holds only under a reading" in p for p in vd.recheck(d))
    d = _doc()
    d["claims"][0]["tests"][0]["mean"] = 0.99
    assert any("outside" in p for p in vd.recheck(d))


def test_the_recheck_script_agrees_with_the_committed_tables() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "recheck_claims.py")], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("all agree") == len(PAPERS)
    assert cli.main(["reproduce", "--recheck", str(ROOT / "docs" / "reproductions")]) == 0


def test_the_recheck_script_fails_on_a_tampered_table(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    d = _doc()
    d["claims"][1]["verdict"] = vd.HOLDS
    (tmp_path / "x" / "claims.json").write_text(json.dumps(d))
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "recheck_claims.py"), str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "recorded holds, recomputed differs" in out.stderr


def test_the_check_against_a_committed_table(tmp_path: Path) -> None:
    committed = tmp_path / "claims.json"
    committed.write_text(json.dumps(_doc()))
    now = _doc()
    assert check_against(now, committed) == [] and rp.compared_tests(now, committed) == 2
    moved = _doc()  # the quick interval excludes the committed mean 0.9
    moved["claims"][0]["tests"][0].update(mean=0.84, low=0.82, high=0.86)
    assert check_against(moved, committed) == [
        "T1: u: [0.8148, 0.8652] here (widened to the 97.5 % level) excludes the committed mean 0.9"]
    # Bonferroni over the two compared tests: t(0.9875, 4) / t(0.975, 4) = 1.2935 times the half-width.
    # [0.79, 0.89] excludes 0.9, but widened (half-width 0.05 -> 0.0647) it does not.
    moved["claims"][0]["tests"][0].update(mean=0.84, low=0.79, high=0.89)
    assert check_against(moved, committed) == []
    moved["claims"][0]["tests"][0]["comparable"] = False  # another design in quick mode: not compared
    assert check_against(moved, committed) == []
    # Two seeds that agree exactly give a zero-width interval: it is taken a millionth of the mean wide, so a
    # committed mean differing in the seventh digit is not a regression, one differing in the fourth is.
    steady = _doc()
    steady["claims"][0]["tests"][0].update(mean=0.9 * (1 + 4e-7), low=0.9 * (1 + 4e-7), high=0.9 * (1 + 4e-7))
    assert check_against(steady, committed) == []
    steady["claims"][0]["tests"][0].update(mean=0.9001, low=0.9001, high=0.9001)
    assert len(check_against(steady, committed)) == 1
    lost = _doc()
    lost["claims"][0]["verdict"] = vd.DIFFERS
    assert check_against(lost, committed)[0] == f"T1: held in {committed}, now differs"
    undecided = _doc()  # few quick seeds deciding less is not a regression
    undecided["claims"][0]["verdict"] = vd.INCONCLUSIVE
    assert check_against(undecided, committed) == []
    with pytest.raises(BufferLabError, match="not found"):
        check_against(now, tmp_path / "none.json")


def test_summary_and_readme_tally(tmp_path: Path) -> None:
    (tmp_path / "tiny-buffers").mkdir()
    d = _doc()
    (tmp_path / "tiny-buffers" / "claims.json").write_text(json.dumps(
        {**d, "seeds": 3, "max_seeds": 30, "runs": 400, "engine_s": 900.0, "wall_s": 950.0}))
    text = summary_markdown(tmp_path)
    row = ("| tiny-buffers | [report](tiny-buffers/report.md) | 2 | 1 | 0 | 1 | 0 | 0 | 0 | 3–30 | 400 | "
           "900 s |")
    assert row in text
    assert "| eun-wang | not yet reproduced |" in text
    assert ("All papers: 2 claims: 1 hold, 0 hold only under a non-principal reading, 1 differ, "
            "0 inconclusive, 0 not testable.") in text
    readme = tmp_path / "README.md"
    readme.write_text(f"before {rp.TALLY_START}old{rp.TALLY_END} after\n")
    rp.update_readme_tally(readme, tmp_path)
    assert readme.read_text() == (f"before {rp.TALLY_START}2 claims: 1 hold, 0 hold only under a "
                                  "non-principal reading, 1 differ, 0 inconclusive, 0 not testable"
                                  f"{rp.TALLY_END} after\n")


def test_command_errors_and_list(capsys) -> None:
    assert cli.main(["reproduce", "nonesuch"]) == 2
    assert "unknown paper 'nonesuch'" in capsys.readouterr().err
    assert cli.main(["reproduce"]) == 2
    assert cli.main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "tiny-buffers: Enachescu" in out and "T14" in out
    with pytest.raises(BufferLabError, match="--seeds"):
        rp.reproduce("tiny-buffers", Path("/nonexistent-never-written"), seeds=0)
    assert cli.main(["reproduce", "--recheck", "/nonexistent-dir"]) == 2


def test_out_and_check_are_checked_before_anything_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    """An --out that cannot be a directory and a --check DIR without the claims tables to compare with are
    one-line errors (exit 2) before any run, and nothing is written under the default --out."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(rp, "reproduce", lambda *a, **k: pytest.fail("the reproduction ran"))
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    (tmp_path / "empty").mkdir()
    for name, text in (("nan", '{"claims": NaN}'), ("partial", '{"claims": [{"id": "T1"}]}')):
        (tmp_path / name / "tiny-buffers").mkdir(parents=True)
        (tmp_path / name / "tiny-buffers" / "claims.json").write_text(text)
    cases = [
        (["--out", "/proc/x"], "--out: cannot create directory '/proc/x': No such file or directory"),
        (["--out", str(a_file)], f"--out: cannot create directory {str(a_file)!r}: File exists"),
        (["--check", "missing"], "--check missing: no such directory; give the directory holding "
                                 "PAPER/claims.json (e.g. docs/reproductions)"),
        (["--check", str(a_file)], f"--check {a_file}: is not a directory"),
        (["--check", "empty"], "--check: empty/tiny-buffers/claims.json not found (run the full "
                               "reproduction first)"),
        (["--check", "nan"], "--check: nan/tiny-buffers/claims.json is not a claims table (NaN is not a "
                             "JSON number"),
        (["--check", "partial"], "--check: partial/tiny-buffers/claims.json is not a claims table (no "
                                 "'verdict' field)"),
    ]
    for argv, message in cases:
        assert cli.main(["reproduce", "tiny-buffers", "--quick", *argv]) == 2, argv
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"bufferlab: error: {message}"), (argv, err)
    assert not (tmp_path / "docs").exists()
    committed = rp.read_claims(ROOT / "docs" / "reproductions" / "tiny-buffers" / "claims.json")
    assert committed["paper"] == "tiny-buffers"


def test_every_claim_cites_the_papers_own_text() -> None:
    """The repository stands alone: claims cite the paper's sections, figures and tables, not a note."""
    for name in rp.available():
        mod = rp.paper_module(name)
        assert len(mod.CLAIMS) and mod.PRINCIPAL
        for c in mod.CLAIMS:
            assert c.where and "note" not in c.where.lower(), (name, c.id, c.where)
            kinds = ("Sec", "Fig", "Table", "Eq", "Thm", "Theorem", "Lemma", "Appendix", "Abstract",
                     "Assumption", "Sim")
            assert any(k in c.where for k in kinds), (name, c.id, c.where)


NOTES = {"eun-wang": "eun_wang_2008_aggressive_marking.md",
         "index-policy": "avrachenkov_2013_index_policy.md",
         "tiny-buffers": "enachescu_2005_tiny_buffers.md",
         "global-notifier": "tsioliaridou_global_notifier.md",
         "odt-ob": "stanojevic_shorten_odt_ob.md"}


def _note_claim_ids(text: str) -> set:
    """The ids of a reading note's testable claims: its "Testable claims" section's items, numbered
    ("3. **") or named ("**T3", "- T3.", "- S-c.")."""
    import re

    head = re.search(r"^(#+) .*Testable claims.*$", text, re.M)
    assert head, "no Testable claims section"
    rest = text[head.end():]
    end = re.search(rf"^#{{1,{len(head.group(1))}}} ", rest, re.M)
    section = rest[:end.start()] if end else rest
    named = set(re.findall(r"^(?:\d+\. \*\*|- )(T\d+|S-[a-z])\b", section, re.M))
    numbered = set(re.findall(r"^(\d+)\. \*\*", section, re.M))
    return named or numbered


@pytest.mark.parametrize("name", list(NOTES))
def test_every_claim_of_the_reading_notes_is_judged(name: str) -> None:
    from conftest import paper_note

    ids = {c.id for c in rp.paper_module(name).CLAIMS}
    wanted = _note_claim_ids(paper_note(NOTES[name]))
    assert len(wanted) >= 12 and wanted <= ids, sorted(wanted - ids)
