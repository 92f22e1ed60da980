"""Log lines on stderr that say only what happened: control characters in a record are escaped.

Episode ids, tool names and arguments come from clients. Written raw, a newline in one forges a
second log line and an ANSI escape repaints the terminal; escaped, they show as ``\\n`` and
``\\x1b``. Only the record's own line is escaped: a traceback appended after it keeps its lines.
"""

from __future__ import annotations

import logging
import re
import sys

#: C0 and C1 controls, DEL, Unicode line/paragraph separators and bidirectional overrides.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def escape_controls(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\x1b``, ``\\u2028``)."""
    return _CONTROLS.sub(lambda m: _NAMED.get(m[0]) or (f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100
                                                        else f"\\u{ord(m[0]):04x}"), text)


class EscapingFormatter(logging.Formatter):
    """A formatter whose record line (time, level, logger, message) has its control characters escaped."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802  (logging's name)
        return escape_controls(super().formatMessage(record))


def configure(level: int) -> None:
    """Log to stderr at ``level`` through :class:`EscapingFormatter` (unless logging is already set up)."""
    root = logging.getLogger()
    before = list(root.handlers)
    logging.basicConfig(level=level, stream=sys.stderr, format=LOG_FORMAT)
    for handler in root.handlers:
        if handler not in before:  # the handler basicConfig made, not a host application's (pytest's)
            handler.setFormatter(EscapingFormatter(LOG_FORMAT))


__all__ = ["EscapingFormatter", "LOG_FORMAT", "configure", "escape_controls"]
