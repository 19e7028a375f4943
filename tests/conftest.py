"""Shared test helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The papers' reading notes, beside the checkout (CI places them there).
PAPER_NOTES = ROOT.parent / "shared" / "papers"


def paper_note(name: str) -> str:
    """The text of ``../shared/papers/NAME``. Missing, the test fails rather than skips, so that a CI machine
    without the notes cannot pass a check it did not make; ``BUFFERLAB_WITHOUT_NOTES=1`` skips instead, for a
    checkout used on its own."""
    path = PAPER_NOTES / name
    if not path.exists():
        if os.environ.get("BUFFERLAB_WITHOUT_NOTES") == "1":
            pytest.skip(f"{path} is missing and BUFFERLAB_WITHOUT_NOTES=1")
        pytest.fail(f"{path} is missing: this test compares the reproduction with the paper's reading note; "
                    "place ../shared beside the checkout (or set BUFFERLAB_WITHOUT_NOTES=1 to skip)")
    return path.read_text()
