"""The validation status in README.md and docs/validation/README.md is generated from the committed
reports' results, and is current."""
import json
from pathlib import Path

from bufferlab.validation import status

ROOT = Path(__file__).resolve().parent.parent


def _result(directory: Path, name: str, verdict: str, replications: int) -> None:
    (directory / "results").mkdir(parents=True, exist_ok=True)
    (directory / "results" / f"{name}.json").write_text(
        json.dumps({"name": name, "verdict": verdict, "replications": replications, "rows": []}))


def test_status_counts_every_report(tmp_path: Path) -> None:
    _result(tmp_path, "v01-a", "pass", 10)
    _result(tmp_path, "v02-b", "inconclusive", 30)
    _result(tmp_path / "tiny", "v37-c", "fail", 60)
    (tmp_path / "runs" / "results").mkdir(parents=True)  # stored ns-3 runs are not a report
    assert status.status_sentence(tmp_path) == "3 scenarios against ns-3: 1 pass, 1 fail, 1 undecided"
    table = status.status_table(tmp_path).splitlines()
    report = "# BufferLab against ns-3\n\nGenerated 2026-11-28 01:00 UTC on x\n"
    (tmp_path / "tiny" / "report.md").write_text(report)
    assert table[2] == "| [.](report.md) | ? | v01 pass (10), v02 inconclusive (30) | 1 | 0 | 1 |"
    assert status.status_table(tmp_path).splitlines()[3] == (
        "| [tiny](tiny/report.md) | 2026-11-28 | v37 fail (60) | 0 | 1 | 0 |")
    readme = f"a {status.SENTENCE_START}old{status.SENTENCE_END} b"
    vreadme = f"{status.TABLE_START}\nold\n{status.TABLE_END}"
    new_readme, new_vreadme = status.rendered(readme, vreadme, tmp_path)
    assert new_readme == f"a {status.SENTENCE_START}{status.status_sentence(tmp_path)}{status.SENTENCE_END} b"
    assert status.status_table(tmp_path) in new_vreadme


def test_the_committed_status_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    vreadme = (ROOT / "docs" / "validation" / "README.md").read_text()
    assert status.SENTENCE_START in readme and status.TABLE_START in vreadme
    assert status.rendered(readme, vreadme, ROOT / "docs" / "validation") == (readme, vreadme), (
        "run python3 scripts/validation_status.py")
