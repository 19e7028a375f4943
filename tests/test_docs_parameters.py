"""docs/scenario.md names every parameter the engine knows: each discipline's and controller's (from the
engine's resolved tables, every default filled in) in that discipline's or controller's row of its section, or
in a parameter table of the section; every `[tcp]` field in the reference block."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

import bufferlab
from bufferlab import _engine

DOC = (Path(__file__).resolve().parents[1] / "docs" / "scenario.md").read_text(encoding="utf-8")
BASE: Dict[str, Any] = {"duration": "1s", "flows": {"count": 2, "rtt": "50ms"}, "tcp": {"ecn": True},
                        "bottleneck": {"rate": "10Mbps", "delay": "5ms"}}
DISCIPLINES, CONTROLLERS = _engine.names()
DROPTAIL = {"discipline": "droptail", "limit": 100}


def _scenario(queue: Dict[str, Any], **extra: Any) -> Dict[str, Any]:
    return {**BASE, "bottleneck": {**BASE["bottleneck"], "queue": queue}, **extra}


def _section(heading: str) -> str:
    start = DOC.index(f"\n## {heading}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end >= 0 else len(DOC)]


def _undocumented(params: List[str], name: str, section: str) -> List[str]:
    row = next((line for line in section.splitlines() if line.startswith(f"| `{name}` |")), "")
    tables = {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", section, re.M)}
    return [p for p in params if f"`{p}`" not in row and p not in tables]


def _resolved_queue(discipline: str) -> Dict[str, Any]:
    for extra in ({}, {"limit": 100}, {"limit": 100, "threshold": 20}):
        try:
            return bufferlab.resolve(_scenario({"discipline": discipline, **extra}))["links"][0]["queue"]
        except bufferlab.BufferLabError:
            continue
    raise AssertionError(f"{discipline}: no minimal table resolves")


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_every_discipline_parameter_is_documented(discipline: str) -> None:
    params = [k for k in _resolved_queue(discipline) if k != "discipline"]
    assert params or discipline == "droptail"
    assert _undocumented(params, discipline, _section("Queue disciplines")) == []


#: Controllers that need a table to resolve (the Whittle index's windows).
NEEDS = {"whittle": {"index": [1.0, 0.5, 0.25]}}


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_every_controller_parameter_is_documented(controller: str) -> None:
    table = {"kind": controller, **NEEDS.get(controller, {})}
    scenario = _scenario(DROPTAIL, tcp={"ecn": True, "congestion_control": table})
    cc = bufferlab.resolve(scenario)["groups"][0]["congestion_control"]
    params = [k for k in cc if k != "kind"]
    assert _undocumented(params, controller, _section("Congestion control")) == []


def test_every_tcp_field_is_in_the_reference_block() -> None:
    fields = bufferlab.resolve(_scenario(DROPTAIL))["groups"][0]["tcp"]
    block = DOC[DOC.index("\n[tcp] "):DOC.index("\n[monitor]\n")]
    derived = {"payload"}  # packet_size - header_size, not a field one sets
    assert len(fields) > 20
    assert [k for k in fields if k not in derived and not re.search(rf"^#? ?{k} +=", block, re.M)] == []
