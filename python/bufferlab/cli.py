"""The `bufferlab` command line: `run`, `model`, `advise`, `validate`, `bench`.

Each sub-command lives in its own module that exposes ``register(subparsers)``; the module sets
``func`` on its parser. Every :class:`~bufferlab.errors.BufferLabError` becomes one line on stderr and
exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Iterator, Optional, Sequence

from bufferlab.errors import BufferLabError

#: Modules that contribute sub-commands, in the order they appear in ``--help``.
COMMAND_MODULES = (
    "bufferlab.commands.run",
    "bufferlab.models.cli",
    "bufferlab.validation.cli",
    "bufferlab.reproduce.cli",
    "bufferlab.commands.bench",
)


def optional_modules(names: Sequence[str]) -> Iterator[ModuleType]:
    """Import each named module, skipping those that are absent (an error inside one still raises)."""
    for name in names:
        try:
            yield importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bufferlab",
        description="Router buffer sizing and AQM laboratory: simulate, model, advise, validate.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in optional_modules(COMMAND_MODULES):
        module.register(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BufferLabError as exc:
        print(f"bufferlab: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bufferlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
