"""`bufferlab describe [NAME]`: the parameter reference of a queue discipline, a congestion controller or
the `[tcp]` table (names, defaults, ranges and meanings, as the engine declares them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bufferlab import jsonout, reference


def handle(args: argparse.Namespace) -> int:
    if args.update_docs:
        stale = reference.update_document(args.update_docs, write=True)
        print(f"{args.update_docs}: " + (f"updated {', '.join(stale)}" if stale else "current"))
        return 0
    if args.name is None:
        if args.json:
            print(jsonout.dumps(reference.reference(), indent=2))
            return 0
        for section, names in reference.names().items():
            print(f"{section}: {', '.join(names)}")
        print("bufferlab describe NAME: the parameters of one")
        return 0
    if args.json:
        print(jsonout.dumps(reference.entry(args.name), indent=2))
    elif args.markdown:
        print(reference.markdown_table(args.name))
    else:
        print(reference.text(args.name))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("describe", help="the parameters of a discipline, a congestion controller or [tcp]",
                       description="Print the parameter reference of a queue discipline (e.g. red), a "
                       "congestion controller (e.g. cubic) or the [tcp] table (tcp): each parameter's kind, "
                       "default, allowed range and meaning. Without NAME, list the names.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a discipline, a controller, or tcp")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="the reference as JSON")
    form.add_argument("--markdown", action="store_true", help="the parameter table in Markdown")
    form.add_argument("--update-docs", metavar="FILE", type=Path,
                      help="regenerate the generated parts of a Markdown file (<!-- reference NAME --> "
                      "parameter tables, <!-- list WHAT --> lists)")
    p.set_defaults(func=handle)

