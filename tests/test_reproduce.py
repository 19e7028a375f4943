"""`bufferlab reproduce`: the run cache (resume, atomic records), the statistics, the claims table and its
check against a committed table, the command's errors, and the tiny-buffers reproduction's design."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bufferlab import cli
from bufferlab.errors import BufferLabError
from bufferlab.reproduce import PAPERS, check_against, paper_module, runner, summary_markdown
from bufferlab.reproduce import tiny_buffers as tb
from bufferlab.reproduce.claims import HOLDS, Claim, claims_markdown, estimate, judge

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
    one = estimate([0.5, float("nan"), None])
    assert (one.mean, one.low, one.high, one.n) == (0.5, 0.5, 0.5, 1) and str(one) == "0.5"
    assert estimate([]).n == 0


def test_claims_table_and_the_check_against_a_committed_table(tmp_path: Path) -> None:
    c1, c2 = Claim("X1", "a claim", "1"), Claim("X2", "another", "2")
    rows = [judge(c1, "1.0", "±0.1", True).row(), judge(c2, "5", "±1", False, "because").row()]
    md = "\n".join(claims_markdown([judge(c1, "1.0", "±0.1", True), judge(c2, "5", "±1", None, "no data")]))
    assert "| X1 | a claim | 1 | 1.0 | ±0.1 | **holds** |" in md and "**not testable**: no data" in md
    committed = tmp_path / "claims.json"
    committed.write_text(json.dumps({"claims": [{**rows[0]}, {**rows[1], "verdict": HOLDS}]}))
    assert check_against(rows, committed) == ["X2: held in " + str(committed) + ", now differs (5)"]
    with pytest.raises(BufferLabError, match="not found"):
        check_against(rows, tmp_path / "none.json")


def test_summary_lists_every_paper(tmp_path: Path) -> None:
    (tmp_path / "tiny-buffers").mkdir()
    (tmp_path / "tiny-buffers" / "claims.json").write_text(json.dumps(
        {"claims": [{}] * 14, "tally": {"holds": 10, "differs": 4, "not testable": 0}, "seeds": 3,
         "runs": 400, "wall_s": 900.0}))
    text = summary_markdown(tmp_path)
    assert "| tiny-buffers | [report](tiny-buffers/report.md) | 14 | 10 | 4 | 0 | 3 | 400 | 900 s |" in text
    assert "| eun-wang (`eun_wang_2008_aggressive_marking.md`) | not yet reproduced |" in text


def test_command_errors_and_list(capsys) -> None:
    assert cli.main(["reproduce", "nonesuch"]) == 2
    assert "unknown paper 'nonesuch'" in capsys.readouterr().err
    missing = [name for name, module in PAPERS.items() if module is None]
    if missing:  # a paper without its reproduction yet
        assert cli.main(["reproduce", missing[0]]) == 2
        assert "no reproduction yet" in capsys.readouterr().err
    assert cli.main(["reproduce"]) == 2
    assert cli.main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "tiny-buffers: Enachescu" in out and "T14" in out
    with pytest.raises(BufferLabError, match="--seeds"):
        from bufferlab.reproduce import reproduce
        reproduce("tiny-buffers", Path("/nonexistent-never-written"), seeds=0)


def test_tiny_buffers_design_covers_every_claim_of_the_note() -> None:
    note = (ROOT.parent / "shared" / "papers" / "enachescu_2005_tiny_buffers.md")
    ids = [c.id for c in tb.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 15)]
    if note.exists():
        text = note.read_text()
        assert all(f"**{i} (" in text for i in ids)
    ex = tb.experiments(quick=True, seeds=1)
    assert {"fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "theorem1", "rtt", "sensitivity"} <= set(ex)
    # Fig. 3 keeps the peak load at 0.8: C = N x 3.2 Mb/s, W_max = 32, RTT 100 ms.
    for t in ex["fig3"]:
        n = t.labels["n"]
        assert t.scenario["bottleneck"]["rate"] == f"{n * 3.2e6:.10g}bps"
        assert n * 32 * 8000 / (0.1 * n * 3.2e6) == pytest.approx(0.8)
    # Fig. 6: the log buffer is round(5 log10 W), 5 at W = 10.
    logs = {t.labels["w_max"]: t.labels["buffer"] for t in ex["fig6"] if t.labels["kind"] == "log"}
    assert logs[10] == 5 and logs[1529] == 16
    # The full design follows the paper's 1,000 s runs where the packet budget allows.
    full = tb.experiments(quick=False, seeds=1)
    t = next(t for t in full["fig1"] if t.labels["n"] == 40)
    assert (t.scenario["duration"], t.scenario["warmup"]) == ("1000s", "200s")
    assert paper_module("tiny-buffers") is tb
