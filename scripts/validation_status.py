"""Write the validation status generated from the committed reports (docs/validation/**/results) into
README.md and docs/validation/README.md; `--check` only says whether they are current (exit 1 if not)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from bufferlab.validation import status  # noqa: E402

if __name__ == "__main__":
    repo = Path(__file__).resolve().parent.parent
    if "--check" in sys.argv[1:]:
        readme, vreadme = (repo / "README.md").read_text(), (repo / "docs/validation/README.md").read_text()
        current = status.rendered(readme, vreadme, repo / "docs" / "validation") == (readme, vreadme)
        print("validation status is current" if current else "validation status is stale: run "
              "python3 scripts/validation_status.py")
        sys.exit(0 if current else 1)
    print("updated" if status.update(repo) else "already current")
