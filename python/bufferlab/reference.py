"""The parameter reference of every queue discipline, congestion controller and the ``[tcp]`` table, as the
engine declares them (one declaration per parameter: name, kind, default, allowed range, description).

``bufferlab describe NAME`` prints one at the terminal; the parameter tables of ``docs/scenario.md`` are
generated from the same data (:func:`markdown_table`, :func:`update_document`), and a test keeps them current.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List

from bufferlab.errors import BufferLabError

__all__ = ["reference", "entry", "names", "markdown_table", "list_table", "text", "update_document"]

#: The sections of the reference, in the order they are listed.
SECTIONS = ("disciplines", "controllers", "tcp")


@lru_cache(maxsize=1)
def reference() -> Dict[str, Any]:
    """``{"disciplines": {name: table}, "controllers": {name: table}, "tcp": {"tcp": table}}``, each table
    ``{"about": str, "params": [{"name", "kind", "default", "default_value", "range", "names", "context",
    "doc"}]}``."""
    from bufferlab import _engine  # noqa: PLC0415

    data = json.loads(_engine.reference())
    disciplines, controllers = _engine.names()
    order = {"disciplines": disciplines, "controllers": controllers, "tcp": ["tcp"]}
    return {section: {n: data[section][n] for n in order[section] if n in data[section]}
            for section in SECTIONS}


def names() -> Dict[str, List[str]]:
    """The names ``describe`` takes, by section."""
    return {section: list(reference()[section]) for section in SECTIONS}


def entry(name: str) -> Dict[str, Any]:
    """The reference of discipline, controller or table ``name`` (``"tcp"`` for ``[tcp]``)."""
    for section in SECTIONS:
        if name in reference()[section]:
            return {"section": section, "name": name, **reference()[section][name]}
    known = ", ".join(n for section in SECTIONS for n in reference()[section])
    raise BufferLabError(f"describe: unknown name {name!r}: expected one of {known}")


def _range(p: Dict[str, Any]) -> str:
    parts = [p["range"]] if p["range"] else []
    if p["context"]:
        parts.append(p["context"])
    return "; ".join(parts)


def markdown_table(name: str) -> str:
    """The parameter table of ``name`` in Markdown: parameter, default, range, meaning."""
    rows = ["| parameter | default | range | meaning |", "|---|---|---|---|"]
    for p in entry(name)["params"]:
        cells = [f"`{p['name']}`", f"`{p['default']}`" if p["default"] != "none" else "none",
                 _range(p).replace("|", "\\|"), p["doc"].replace("|", "\\|")]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def text(name: str, width: int | None = None) -> str:
    """The reference of ``name`` for a terminal: what it is, then each parameter with its kind, default,
    range and description, wrapped to ``width`` columns (the terminal's by default)."""
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 110)
    e = entry(name)
    label = {"disciplines": "queue discipline", "controllers": "congestion control", "tcp": "table"}
    out = [f"{name} ({label[e['section']]})", *textwrap.wrap(e["about"], width), ""]
    for p in e["params"]:
        head = f"{p['name']}  {p['kind']}, default {p['default']}"
        rng = _range(p)
        out.append(head + (f", {rng}" if rng else ""))
        out += textwrap.wrap(p["doc"], width, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(out)


def _summary(about: str) -> str:
    """The first clause of an ``about``: up to its first colon, or full stop before a capital."""
    m = re.search(r": |\. (?=[A-Z])", about)
    return about[:m.start()] if m else about.rstrip(".")


def _handler_module(parser: Any) -> str:
    """The module of the function a (sub-)command runs, or of its first sub-command's."""
    func = parser.get_default("func")
    if func is not None:
        return func.__module__
    sub = next(a for a in parser._actions if isinstance(a.choices, dict))
    return _handler_module(next(iter(sub.choices.values())))


def list_table(what: str) -> str:
    """A generated list in Markdown: ``disciplines`` or ``controllers`` (name, source file, what it is) or
    ``commands`` (the ``bufferlab`` sub-commands, their module and help)."""
    if what == "commands":
        from bufferlab.cli import build_parser  # noqa: PLC0415

        rows = ["| command | module | what |", "|---|---|---|"]
        action = next(a for a in build_parser()._actions if a.choices and a.dest == "command")
        helps = {c.dest: c.help for c in action._choices_actions}
        for name, parser in action.choices.items():
            module = _handler_module(parser)
            rows.append(f"| `{name}` | `{module}` | {(helps.get(name) or '').replace('%%', '%')} |")
        return "\n".join(rows)
    if what not in ("disciplines", "controllers"):
        raise BufferLabError(f"list: unknown list {what!r}: expected disciplines, controllers or commands")
    rows = ["| name | file | what |", "|---|---|---|"]
    for name, e in reference()[what].items():
        source = e["source"].split("src/", 1)[-1]
        rows.append(f"| `{name}` | `{source}` | {_summary(e['about'])} |")
    return "\n".join(rows)


#: ``<!-- reference NAME -->`` (a parameter table) or ``<!-- list WHAT -->`` (:func:`list_table`), then the
#: generated text, then ``<!-- /reference -->`` or ``<!-- /list -->``: where generated text stands.
MARKER = re.compile(
    r"(<!-- (?P<kind>reference|list) (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /(?P=kind) -->)", re.S)


def update_document(path: Path, write: bool = False) -> List[str]:
    """Regenerate every marked table of the Markdown file ``path``; returns the names whose table was out
    of date (written back with ``write``). A marker naming nothing the engine knows is an error."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise BufferLabError(f"--update-docs: cannot read {path}: {reason}") from None
    stale: List[str] = []

    def replace(m: re.Match) -> str:
        table = (markdown_table(m["name"]) if m["kind"] == "reference" else list_table(m["name"])) + "\n"
        if m["body"] != table:
            stale.append(m["name"])
        return m.group(1) + table + m.group(5)

    updated = MARKER.sub(replace, source)
    if write and updated != source:
        try:
            path.write_text(updated, encoding="utf-8")
        except OSError as exc:
            raise BufferLabError(f"--update-docs: cannot write {path}: {exc.strerror}") from None
    return stale
