"""scripts/validate_matrix.sh regenerates docs/validation/: every scenario of the matrix once at the default
cap, and every extra-seeds run into a directory of its own."""
import glob
import shlex
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parent.parent


def runs() -> List[Tuple[List[str], str, bool]]:
    """Each `run` line: the scenario files its globs match, its --out, whether it sets a cap."""
    out = []
    for line in (ROOT / "scripts" / "validate_matrix.sh").read_text().splitlines():
        if not line.startswith("run "):
            continue
        args = shlex.split(line.replace("$S", "validation/scenarios").replace("$V", "docs/validation"))[1:]
        files = [f for a in args if a.endswith(".toml") for f in sorted(glob.glob(str(ROOT / a)))]
        assert all(glob.glob(str(ROOT / a)) for a in args if a.endswith(".toml")), line
        out.append((files, args[args.index("--out") + 1], "--max-replications" in args))
    return out


def test_every_scenario_runs_once_at_the_default_cap() -> None:
    matrix = [f for files, _, capped in runs() if not capped for f in files]
    scenarios = sorted(glob.glob(str(ROOT / "validation" / "scenarios" / "*.toml")))
    assert sorted(matrix) == scenarios and len(set(matrix)) == len(matrix)


def test_each_report_has_a_directory_of_its_own() -> None:
    outs = [out for _, out, _ in runs()]
    assert len(set(outs)) == len(outs)
    assert all(out.startswith("docs/validation") for out in outs)
    extra = [files for files, _, capped in runs() if capped]
    assert extra and all(files for files in extra)
