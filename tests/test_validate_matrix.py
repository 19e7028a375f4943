"""scripts/validate_matrix.sh regenerates docs/validation/: every scenario of the matrix in exactly one
report, each report in a directory of its own, and the generated status last."""
import glob
import shlex
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parent.parent


def runs() -> List[Tuple[List[str], str]]:
    """Each `run` line: the scenario files its globs match and its --out."""
    out = []
    script = (ROOT / "scripts" / "validate_matrix.sh").read_text().replace("\\\n", " ")
    for line in script.splitlines():
        if not line.startswith("run "):
            continue
        args = shlex.split(line.replace("$S", "validation/scenarios").replace("$V", "docs/validation"))[1:]
        files = [f for a in args if a.endswith(".toml") for f in sorted(glob.glob(str(ROOT / a)))]
        assert all(glob.glob(str(ROOT / a)) for a in args if a.endswith(".toml")), line
        out.append((files, args[args.index("--out") + 1]))
    return out


def test_every_scenario_is_in_exactly_one_report() -> None:
    matrix = [f for files, _ in runs() for f in files]
    scenarios = sorted(glob.glob(str(ROOT / "validation" / "scenarios" / "*.toml")))
    assert sorted(matrix) == scenarios and len(set(matrix)) == len(matrix)


def test_each_report_has_a_directory_of_its_own() -> None:
    outs = [out for _, out in runs()]
    assert len(set(outs)) == len(outs)
    assert all(out.startswith("docs/validation") for out in outs)


def test_the_status_is_written_after_the_reports() -> None:
    lines = (ROOT / "scripts" / "validate_matrix.sh").read_text().splitlines()
    last_run = max(i for i, line in enumerate(lines) if line.startswith("run "))
    status = [i for i, line in enumerate(lines)
              if "validation_status.py" in line and not line.startswith("#")]
    assert status and status[0] > last_run
