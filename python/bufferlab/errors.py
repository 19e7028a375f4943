"""The exception types users see: every bad input is reported through them, never a traceback."""


class BufferLabError(Exception):
    """Bad input or an impossible request; the message names the field and the allowed range.

    The command line prints the message on one line and exits with ``exit_status``."""

    exit_status = 2


class LimitError(BufferLabError):
    """A request whose work or memory is above a documented limit; the message names the parameter and
    the estimate."""


class OutputError(BufferLabError):
    """Results could not be written after the run (a full disk, a directory that became read-only);
    nothing partial is left in place of the output."""

    exit_status = 1
