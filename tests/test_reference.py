"""The parameter reference (`bufferlab describe`, the generated tables of docs/scenario.md) against what the
engine does with the tables: the declared parameters are those a table resolves to, each declared default
written out resolves as leaving it out, every declared name is accepted, a value just outside either end
of a declared range is refused naming its field, and the documents' generated tables are current."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import bufferlab
from bufferlab import reference

DOC = Path(__file__).resolve().parents[1] / "docs" / "scenario.md"
BASE: Dict[str, Any] = {"duration": "1s", "flows": {"count": 2, "rtt": "50ms"}, "tcp": {"ecn": True},
                        "bottleneck": {"rate": "10Mbps", "delay": "5ms",
                                       "queue": {"discipline": "droptail", "limit": 100}}}
#: What a table needs besides its name to resolve (a required limit, the Whittle index's windows).
NEEDS: Dict[str, Dict[str, Any]] = {"whittle": {"index": [1.0, 0.5, 0.25]}, "step": {"threshold": 20}}
REQUIRED_LIMIT = {"limit": 100}
SECTIONS = reference.names()


def _scenario(section: str, name: str, params: Dict[str, Any]) -> Dict[str, Any]:
    if section == "disciplines":
        queue = {"discipline": name, **NEEDS.get(name, {}), **params}
        return {**BASE, "bottleneck": {**BASE["bottleneck"], "queue": queue}}
    if section == "controllers":
        return {**BASE, "tcp": {**BASE["tcp"], "congestion_control": {"kind": name, **NEEDS.get(name, {}),
                                                                        **params}}}
    return {**BASE, "tcp": {**BASE["tcp"], **params}}


def _resolved(section: str, name: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """The resolved table, with the smallest extra a discipline needs to resolve (a limit)."""
    last: Exception | None = None
    for extra in ({}, REQUIRED_LIMIT):
        if section != "disciplines" and extra:
            break
        try:
            r = bufferlab.resolve(_scenario(section, name, {**extra, **params}))
        except bufferlab.BufferLabError as exc:
            last = exc
            continue
        if section == "disciplines":
            return r["links"][0]["queue"]
        group = r["groups"][0]
        return group["congestion_control"] if section == "controllers" else group
    raise AssertionError(f"{name}: {params} does not resolve: {last}")


ENTRIES: List[Tuple[str, str]] = [(s, n) for s, names in SECTIONS.items() for n in names]


def test_every_discipline_controller_and_tcp_has_a_reference() -> None:
    import bufferlab._engine as engine  # noqa: PLC0415

    disciplines, controllers = engine.names()
    assert SECTIONS["disciplines"] == list(disciplines)
    assert SECTIONS["controllers"] == list(controllers)
    assert SECTIONS["tcp"] == ["tcp"]
    everything = [n for names in SECTIONS.values() for n in names]
    assert len(everything) == len(set(everything)), "describe NAME must be unambiguous"


@pytest.mark.parametrize("section,name", [e for e in ENTRIES if e[0] != "tcp"])
def test_declared_parameters_are_those_the_table_resolves_to(section: str, name: str) -> None:
    declared = [p["name"] for p in reference.entry(name)["params"]]
    resolved = [k for k in _resolved(section, name, {}) if k not in ("discipline", "kind")]
    # A parameter left out of the export when unset (red's mark_p) is still declared.
    assert set(resolved) <= set(declared) and len(declared) == len(set(declared))
    assert set(declared) - set(resolved) <= {"mark_p"}


@pytest.mark.parametrize("section,name", ENTRIES)
def test_every_declaration_is_described(section: str, name: str) -> None:
    e = reference.entry(name)
    assert e["about"] and len(e["about"]) > 20
    for p in e["params"]:
        assert p["doc"] and p["kind"] and p["default"], (name, p)


def _explicit_defaults(name: str) -> Dict[str, Any]:
    return {p["name"]: p["default_value"] for p in reference.entry(name)["params"]
            if p["default_value"] is not None and p["kind"] != "table"}


@pytest.mark.parametrize("section,name", ENTRIES)
def test_declared_defaults_written_out_resolve_as_left_out(section: str, name: str) -> None:
    explicit = _explicit_defaults(name)
    if section == "tcp":
        explicit.pop("profile", None)  # a profile fills what the table leaves out
        for key in BASE["tcp"]:  # set by the base scenario
            explicit.pop(key, None)
    assert _resolved(section, name, explicit) == _resolved(section, name, {})


@pytest.mark.parametrize("section,name", ENTRIES)
def test_declared_names_are_accepted(section: str, name: str) -> None:
    for p in reference.entry(name)["params"]:
        for value in p["names"]:
            try:
                _resolved(section, name, {p["name"]: value})
            except AssertionError as exc:
                # Accepted by the table, refused by a rule on the port or flows (said in its context).
                assert p["context"] and "must be one of" not in str(exc), (name, p["name"], value, exc)


def _outside(p: Dict[str, Any]) -> List[Any]:
    """Values just outside each numeric end of ``p``'s declared range (an open end itself)."""
    out: List[float] = []
    integer = p["kind"] in ("integer", "name")
    if p["low"] is not None:
        low = p["low"]
        below = low if p["low_open"] else (low - 1 if integer else low - max(abs(low), 1e-9) * 0.5)
        if not (integer and below < 0):  # a negative whole number is refused by its type already
            out.append(int(below) if integer else below)
    if p["high"] is not None and not (integer and p["high"] >= 2**32 - 1):  # the type's own bound
        high = p["high"]
        above = high if p["high_open"] else (high + 1 if integer else high + max(abs(high), 1.0))
        out.append(int(above) if integer else above)
    return out


@pytest.mark.parametrize("section,name", ENTRIES)
def test_a_value_just_out_of_range_is_refused_naming_its_field(section: str, name: str) -> None:
    tried = 0
    for p in reference.entry(name)["params"]:
        for value in _outside(p):
            with pytest.raises(bufferlab.BufferLabError) as info:
                _strict_resolve(section, name, {p["name"]: value})
            assert f'{p["name"]}:' in str(info.value), (name, p["name"], value, str(info.value))
            assert "must be" in str(info.value), (name, p["name"], value, str(info.value))
            tried += 1
    numeric = [p for p in reference.entry(name)["params"] if _outside(p)]
    assert tried >= len(numeric), (name, tried, len(numeric))


def _strict_resolve(section: str, name: str, params: Dict[str, Any]) -> None:
    extra = REQUIRED_LIMIT if section == "disciplines" and "limit" not in params else {}
    bufferlab.resolve(_scenario(section, name, {**extra, **params}))


def test_numbers_in_the_reference_are_finite() -> None:
    for _, name in ENTRIES:
        for p in reference.entry(name)["params"]:
            v = p["default_value"]
            assert not (isinstance(v, float) and not math.isfinite(v)), (name, p)


def test_the_document_tables_are_current_and_complete() -> None:
    text = DOC.read_text(encoding="utf-8")
    marked = {m["name"] for m in reference.MARKER.finditer(text)}
    assert marked == {n for _, n in ENTRIES}, "every discipline, controller and [tcp] has a generated table"
    stale = reference.update_document(DOC)
    assert stale == [], f"out of date: {stale}; run bufferlab describe --update-docs docs/scenario.md"


@pytest.mark.slow  # four subprocesses
def test_describe_at_the_terminal() -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bufferlab", "describe", *args], capture_output=True,
                              text=True, timeout=60)

    listing = run()
    assert listing.returncode == 0 and "droptail" in listing.stdout and "tcp" in listing.stdout
    red = run("red")
    assert red.returncode == 0 and "max_th" in red.stdout and ">= min_th" in red.stdout
    assert run("red", "--markdown").stdout.startswith("| parameter | default | range | meaning |")
    bad = run("nonesuch")
    assert bad.returncode == 2 and "unknown name 'nonesuch'" in bad.stderr


def test_the_architecture_lists_are_current() -> None:
    arch = DOC.parent / "architecture.md"
    text = arch.read_text(encoding="utf-8")
    lists = {m["name"] for m in reference.MARKER.finditer(text) if m["kind"] == "list"}
    assert lists == {"disciplines", "controllers", "commands"}
    stale = reference.update_document(arch)
    assert stale == [], f"out of date: {stale}; run bufferlab describe --update-docs docs/architecture.md"


def test_update_docs_on_a_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from bufferlab.cli import main  # noqa: PLC0415

    assert main(["describe", "--update-docs", str(tmp_path / "none.md")]) == 2
    assert "cannot read" in capsys.readouterr().err
