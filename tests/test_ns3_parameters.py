"""The translator's table of what it does with each engine parameter (``translate.PARAMETERS``) names exactly
the parameters the engine declares for every translated discipline, for newreno and cubic and for ``[tcp]``:
a new engine parameter fails here until the translator decides about it."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from bufferlab import _engine
from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3sim, translate

REFERENCE = json.loads(_engine.reference())


def _declared(section: str, name: str) -> Dict[str, Any]:
    return {p["name"]: p for p in REFERENCE[section][name]["params"]}


@pytest.mark.parametrize("name", sorted(translate.DISCIPLINES))
def test_the_table_names_every_declared_parameter_of_a_translated_discipline(name: str) -> None:
    assert set(translate.PARAMETERS[name]) == set(_declared("disciplines", name))


@pytest.mark.parametrize("name", sorted(ns3sim.NS3_CONGESTION_CONTROL))
def test_the_table_names_every_declared_parameter_of_a_translated_controller(name: str) -> None:
    assert set(translate.PARAMETERS[name]) == set(_declared("controllers", name))


def test_the_table_names_every_declared_tcp_parameter() -> None:
    assert set(translate.PARAMETERS["tcp"]) == set(_declared("tcp", "tcp"))


def test_the_dispatch_mirrors_the_engine_registry_and_the_table() -> None:
    assert set(translate.DISCIPLINES) == set(ns3sim.NS3_QUEUE_DISCS) <= set(REFERENCE["disciplines"])
    named = set(translate.DISCIPLINES) | set(ns3sim.NS3_CONGESTION_CONTROL) | {"tcp"}
    assert set(translate.PARAMETERS) == named
    for table in translate.PARAMETERS.values():
        for param in table.values():
            assert param.how in ("translated", "refused", "noted", "irrelevant") and param.why


def _scenario(queue: Dict[str, Any], **tcp: Any) -> Dict[str, Any]:
    return {"name": "t", "duration": "10s", "warmup": "2s", "tcp": {"profile": "ns3", **tcp},
            "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": queue},
            "flows": {"count": 2, "rtt": "50ms"}}


@pytest.mark.parametrize("field,value", [("hash", "flow"), ("perturbation", 7)])
def test_fq_codel_hash_and_perturbation_are_refused_unless_ns3s(field: str, value: Any) -> None:
    assert translate.PARAMETERS["fq-codel"][field].how == "refused"
    translate.translate(_scenario({"discipline": "fq-codel"}))
    with pytest.raises(BufferLabError, match=rf"bottleneck\.queue\.{field}:"):
        translate.translate(_scenario({"discipline": "fq-codel", field: value}))


@pytest.mark.parametrize("field,rfc", [("recovery_exit", "deflate"), ("ecn_states", "open")])
def test_tcp_switches_where_ns3_differs_are_noted(field: str, rfc: str) -> None:
    ns3_value = translate.PARAMETERS["tcp"][field].value
    queue = {"discipline": "droptail", "limit": 50}
    assert not any(field in n for n in translate.translate(_scenario(queue))["notes"])
    assert not any(field in n for n in translate.translate(_scenario(queue, **{field: ns3_value}))["notes"])
    notes = translate.translate(_scenario(queue, **{field: rfc}))["notes"]
    assert any(n.startswith(f"tcp.{field}:") for n in notes)
