"""The one exception type users see: every bad input is reported through it, never a traceback."""


class BufferLabError(Exception):
    """Bad input or an impossible request; the message names the field and the allowed range."""
