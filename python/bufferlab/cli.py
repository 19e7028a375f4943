"""The `bufferlab` command line: `run`, `advise`, `model`, `validate`, `reproduce`, `bench`, `report`,
`describe`, `sweep`, `plot`.

Each sub-command lives in its own module under :mod:`bufferlab.commands` that exposes
``register(subparsers)``; the module sets ``func`` on its parser. Every
:class:`~bufferlab.errors.BufferLabError` becomes one line on stderr and its exit status (2 for bad input, 1
when results could not be written), never a traceback. Ctrl-C exits with 130; a closed standard output
(``bufferlab run X --json | head -1``) ends the command quietly with 141, as a Unix tool killed by
SIGPIPE.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from bufferlab.commands import command_modules
from bufferlab.errors import BufferLabError

#: Exit status after Ctrl-C (128 + SIGINT) and after a closed standard output (128 + SIGPIPE).
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bufferlab",
        description="Router buffer sizing and AQM laboratory: simulate, model, advise, validate.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in command_modules():
        module.register(sub)
    return parser


def silence_stdout() -> None:
    """Point standard output at /dev/null after its reader went away, so no later write or the flush at
    exit raises ``BrokenPipeError`` again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


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
        return exc.exit_status
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as exc:
        print(f"bufferlab: {exc or 'interrupted'}", file=sys.stderr)
        _exit_if_engine_running(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED


def _exit_if_engine_running(status: int) -> None:
    """End the process at once when an interrupted engine step is still running on its worker thread
    (interpreter shutdown must not wait for it or tear it down mid-step)."""
    simulate = sys.modules.get("bufferlab.simulate")
    if simulate is not None and simulate.engine_running():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                pass
        os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
