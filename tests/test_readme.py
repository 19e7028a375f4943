"""Every command of README.md runs, from the repository root, and exits with status 0.

The commands are read from the README's fenced ``bash`` blocks (one command a line; ``\\`` continues a
line, ``#`` starts a comment) and its ``python`` blocks are executed, so a command added to the README is
tested without touching this file. What the test changes, and why:

* ``pip install ...`` is not run: the package under test is already installed (``pip install . && X``
  runs ``X`` alone). A README command that is only an install has nothing left to run and fails the test.
* ``bufferlab validate`` writes its report under ``--out`` (by default ``docs/validation``, the committed
  full report): here it writes to a temporary directory. It needs ns-3 (``pip install ns3==3.44.post0``)
  and is skipped when that is not installed; ``scripts/test.sh`` installs it when it can.
* ``bash scripts/test.sh`` runs every test, this file included. It is run for real, which also reinstalls
  the package into this environment as the script does (``pip install ".[test]"``, not editable); inside
  it this file does not run it again. When this pytest is itself run by ``scripts/test.sh`` (CI), the
  script is already running and is not started a second time.
* Commands run with this interpreter's ``bin`` directory first on ``PATH``, so ``bufferlab`` and
  ``python3`` are the ones under test. What a command writes into the repository with ``--out``
  (``--out out/red``) is removed afterwards when its top directory did not exist before.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from bufferlab.validation import ns3sim

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Seconds a README command may take; the whole test script gets longer.
TIMEOUT_S = 900
TEST_SH_TIMEOUT_S = 3600

_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_SHELL = {"bash", "sh", "shell", "console"}


def readme_blocks(text: str) -> List[Tuple[str, str]]:
    """(language, body) of every fenced code block, in order."""
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def strip_comment(line: str) -> str:
    """``line`` without a trailing shell comment (a ``#`` at a word start, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def shell_commands(text: str) -> List[str]:
    """The commands of the README's shell blocks, comments removed, continuation lines joined."""
    commands = []
    for lang, body in readme_blocks(text):
        if lang not in _SHELL:
            continue
        pending = ""
        for raw in body.splitlines():
            line = raw.rstrip()
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            line = strip_comment(pending + line).strip()
            pending = ""
            if line.startswith("$ "):
                line = line[2:]
            if line:
                commands.append(line)
    return commands


def python_blocks(text: str) -> List[str]:
    return [body for lang, body in readme_blocks(text) if lang in ("python", "py")]


def without_install(command: str) -> str:
    """``command`` without its ``pip install`` steps (the package under test is installed already)."""
    steps = [s.strip() for s in command.split("&&")]
    kept = [s for s in steps if not re.match(r"^(python3? -m )?pip3? install\b", s)]
    return " && ".join(kept)


README_TEXT = README.read_text(encoding="utf-8")
COMMANDS = shell_commands(README_TEXT)
PYTHON_BLOCKS = python_blocks(README_TEXT)


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _run(command: str, timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(
        ["bash", "-c", command], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{command!r} did not finish in {timeout} s\n{out[-3000:]}\n{err[-3000:]}")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def out_dirs(command: str) -> List[Path]:
    """The top directories inside the repository that ``--out DIR`` arguments of ``command`` write to."""
    words = shlex.split(command)
    found = []
    for i, word in enumerate(words):
        value = words[i + 1] if word == "--out" and i + 1 < len(words) else None
        if word.startswith("--out="):
            value = word[len("--out="):]
        if value and not Path(value).is_absolute() and Path(value).parts:
            found.append(ROOT / Path(value).parts[0])
    return found


def test_readme_has_commands():
    assert COMMANDS and PYTHON_BLOCKS, "no ```bash or ```python block found in README.md"


def test_extraction():
    text = "x\n```bash\n$ a --b 1   # note\nc \\\n  d  # more\n# only a comment\n\n```\n```python\np()\n```\n"
    assert shell_commands(text) == ["a --b 1", "c    d"]
    assert python_blocks(text) == ["p()\n"]
    assert strip_comment("echo '# kept' \"#\" x#y # gone") == "echo '# kept' \"#\" x#y"
    assert without_install("pip install . && bufferlab run droptail") == "bufferlab run droptail"
    assert without_install("python3 -m pip install x") == ""
    dirs = out_dirs("bufferlab run a --out out/red && b --out=/tmp/x --out=res")
    assert dirs == [ROOT / "out", ROOT / "res"]


@pytest.mark.slow  # the README's commands, scripts/test.sh (every test, and a reinstall) among them
@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command(command, tmp_path):
    run = without_install(command)
    assert run, f"{command!r} only installs: nothing to test"
    timeout = TIMEOUT_S
    if re.search(r"\bscripts/test\.sh\b", run):
        if os.environ.get("BUFFERLAB_IN_TEST_SH"):
            pytest.skip("this pytest is being run by scripts/test.sh, whose exit status covers it")
        timeout = TEST_SH_TIMEOUT_S
    if re.match(r"^bufferlab validate\b", run):
        if not ns3sim.ns3_available():
            pytest.skip("bufferlab validate needs ns-3: pip install ns3==3.44.post0 (not installed here)")
        run += f" --out {tmp_path / 'validation'}"
    created = [d for d in out_dirs(run) if not d.exists()]
    try:
        result = _run(run, timeout)
    finally:
        for d in created:
            shutil.rmtree(d, ignore_errors=True)
    assert result.returncode == 0, (
        f"{run!r} exited with {result.returncode}\n--- stdout\n{result.stdout[-4000:]}\n"
        f"--- stderr\n{result.stderr[-4000:]}"
    )


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_readme_python(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        exec(compile(PYTHON_BLOCKS[index], f"README.md python block {index + 1}", "exec"), {})
    finally:
        plt.close("all")
