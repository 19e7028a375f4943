"""Whittle index tables for the ``whittle`` congestion controller, filled in before a scenario runs.

The engine's ``whittle`` sender (Avrachenkov, Ayesta, Doncel & Jacko 2013, Sec. 7) tags every packet with
the Whittle index of its window, read from an explicit table ``index = [nu(1), ..., nu(N)]``.  A scenario may
instead ask for the table by name::

    congestion_control = { kind = "whittle", gamma = 0.5, max_window = 30,
                           index = "whittle", alpha = 1, beta = 0.99, reward = "normalised" }

:func:`fill_index_tables` replaces such a table by ``{ kind, gamma, max_window, index = [...] }`` with the
values of :func:`bufferlab.models.whittle.index_table` ``(max_window, alpha, beta, gamma, reward)``, once
per ``congestion_control`` table (the scenario's ``[tcp]`` and each group's ``tcp``).  ``bufferlab.run``
and ``bufferlab.resolve`` call it, so the engine only ever sees the numbers.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Iterator, List, Mapping, Tuple

from bufferlab.errors import BufferLabError

#: Defaults of the index parameters: the paper's alpha = 1 (proportional fairness), a discount close to 1
#: ("approximates the time-average criterion"; the value is not given) and the normalised reward.
DEFAULTS = {"alpha": 1.0, "beta": 0.99, "reward": "normalised"}

#: Largest N computed here (the computation grows as N^3).
MAX_WINDOW = 5000


def _tcp_tables(scenario: Mapping[str, Any]) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """Every ``tcp`` table of a scenario with its field name."""
    if isinstance(scenario.get("tcp"), dict):
        yield "tcp", scenario["tcp"]
    flows = scenario.get("flows")
    groups: List[Tuple[str, Any]] = (
        [(f"flows[{i}]", g) for i, g in enumerate(flows)] if isinstance(flows, list) else [("flows", flows)]
    )
    lot = scenario.get("parking_lot")
    if isinstance(lot, dict):
        groups.append(("parking_lot.cross", lot.get("cross")))
    for field, group in groups:
        if isinstance(group, dict) and isinstance(group.get("tcp"), dict):
            yield f"{field}.tcp", group["tcp"]


def _wants_table(cc: Any) -> bool:
    return isinstance(cc, dict) and cc.get("kind") == "whittle" and isinstance(cc.get("index"), str)


def whittle_controller(cc: Mapping[str, Any], field: str) -> Dict[str, Any]:
    """The ``whittle`` controller table ``cc`` (at scenario field ``field``) with its ``index = "whittle"``
    replaced by the computed table; ``alpha``, ``beta`` and ``reward`` are consumed."""
    from bufferlab.models import whittle as w

    out = dict(cc)
    if out["index"] != "whittle":
        raise BufferLabError(f'{field}.index: expected a list of index values or "whittle" '
                             f'(got {out["index"]!r})')
    params = {k: out.pop(k, v) for k, v in DEFAULTS.items()}
    gamma = out.get("gamma", 0.5)
    if "max_window" not in out:
        raise BufferLabError(f'{field}.max_window: required with index = "whittle": N, the largest window '
                             "(the table has one value per window 1..N)")
    checks = (("max_window", w._check_n_max, out["max_window"]), ("alpha", w._check_alpha, params["alpha"]),
              ("beta", w._check_beta, params["beta"]), ("gamma", w._check_gamma, gamma),
              ("reward", w._check_reward, params["reward"]))
    values = {}
    for name, check, value in checks:
        if name == "reward" and not isinstance(value, str):
            raise BufferLabError(f"{field}.reward: must be one of {', '.join(w.REWARD_CONVENTIONS)} "
                                 f"(got {value!r})")
        try:
            values[name] = check(value)
        except BufferLabError as exc:
            raise BufferLabError(f"{field}.{name}: {exc}") from None
    if values["max_window"] > MAX_WINDOW:
        raise BufferLabError(f'{field}.max_window: must be at most {MAX_WINDOW} with index = "whittle" '
                             f"(got {values['max_window']})")
    table = w.index_table(values["max_window"], values["alpha"], values["beta"], values["gamma"],
                          values["reward"])
    out["index"] = [float(x) for x in table]
    return out


def fill_index_tables(scenario: Mapping[str, Any]) -> Dict[str, Any]:
    """The scenario with every ``index = "whittle"`` computed (a copy when something changes; errors name
    the field)."""
    if not any(_wants_table(t.get("congestion_control")) for _, t in _tcp_tables(scenario)):
        return dict(scenario)
    filled = copy.deepcopy(dict(scenario))
    for field, tcp in _tcp_tables(filled):
        if _wants_table(tcp.get("congestion_control")):
            tcp["congestion_control"] = whittle_controller(tcp["congestion_control"],
                                                           f"{field}.congestion_control")
    return filled
