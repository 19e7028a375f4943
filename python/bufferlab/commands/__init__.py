"""The sub-commands of ``bufferlab``: one module per command, each exposing ``register(subparsers)``, which
adds the command's parser and sets its ``func``. The library modules they call know nothing of argparse."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import List

#: The commands, in the order they appear in ``bufferlab --help`` (module ``bufferlab.commands.<name>``).
COMMANDS = ("run", "advise", "model", "validate", "reproduce", "bench", "report", "describe", "sweep", "plot")


def command_modules() -> List[ModuleType]:
    """The module of every command, imported, in ``--help`` order."""
    return [importlib.import_module(f"{__name__}.{name}") for name in COMMANDS]
