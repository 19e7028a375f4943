"""Results stay bit-identical across changes meant to leave them alone (speed, memory): every built-in
example and validation scenario gives the results recorded in ``tests/data/result_fingerprints.json``
(``scripts/result_fingerprints.py`` says how they are taken, and rewrites them when a change is meant to
move results)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "result_fingerprints.py"
spec = importlib.util.spec_from_file_location("result_fingerprints", SCRIPT)
assert spec is not None and spec.loader is not None
fingerprints = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fingerprints)


def test_every_scenario_gives_its_recorded_results() -> None:
    stored = json.loads(fingerprints.STORED.read_text())
    assert set(stored) == set(fingerprints.scenarios()), "a scenario was added or removed: --write"
    moved = [name for name, digest in fingerprints.current().items() if stored[name] != digest]
    assert not moved, f"results changed for {moved} (scripts/result_fingerprints.py --write if meant)"


def test_a_fingerprint_sees_a_changed_seed(tmp_path: Path) -> None:
    path = fingerprints.scenarios()["example/droptail"]
    assert fingerprints.fingerprint(path) == json.loads(fingerprints.STORED.read_text())["example/droptail"]
    text = path.read_text()
    assert "seed = 1" in text
    other = tmp_path / "droptail-seed2.toml"
    other.write_text(text.replace("seed = 1", "seed = 2", 1))
    assert fingerprints.fingerprint(other) != fingerprints.fingerprint(path)
