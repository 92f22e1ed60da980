"""What a shell command is given and what it gives back.

:class:`Call` reads a command's operands under the argument names shell-like catalogs give
them (``file_name``, ``path``, ``folder``...; the tuples below), and :class:`Output` is what
the command prints together with the data under it, for catalogs that answer in an
outputSchema (see :mod:`.shell`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .shell_tree import ShellError

JSONDict = dict[str, Any]
_ABSENT = ("", "none", "null")


@dataclass
class Output:
    #: ``lines``: a list of names or lines; ``text``: one text; ``count``: a number; ``message``:
    #: what was done; ``none``: the command prints nothing.
    kind: Literal["lines", "text", "count", "message", "none"]
    value: Any = None
    printed: str = ""
    unit: str | None = None


@dataclass
class Call:
    """One call's operands, read under the names shell-like catalogs give them."""

    command: str
    arguments: JSONDict
    #: The tool's description and its arguments' descriptions, lower case: what the catalog says it does.
    hints: str
    #: ``rm``/``cp`` take directories whole: the tool says it acts on "a file or directory" and has no
    #: ``recursive`` option to ask for it.
    whole_directories: bool = False

    def text(self, names: tuple[str, ...]) -> str | None:
        for name in names:
            value = self.arguments.get(name)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                value = str(value)
                if value.strip().lower() not in _ABSENT:  # a documented default of "None" means none given
                    return value
        return None

    def required(self, names: tuple[str, ...]) -> str:
        value = self.text(names)
        if value is None:
            raise ShellError(f"{self.command}: missing operand")
        return value

    def flag(self, names: tuple[str, ...]) -> bool:
        return any(self.arguments.get(n) is True or str(self.arguments.get(n)).lower() in ("true", "1", "yes")
                   for n in names)

    def number(self, names: tuple[str, ...], default: int) -> int:
        for name in names:
            value = self.arguments.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value)
            if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
                return int(value)
        return default


# Operand names, by what they are.
TARGET = ("folder", "path", "dir", "directory", "dir_name", "dirname", "target", "destination")
LISTED = ("path", "dir", "directory", "folder", "dir_name", "dirname", "target")
HIDDEN = ("a", "all", "show_hidden", "hidden", "include_hidden", "A")
NEW_DIR = ("dir_name", "dirname", "path", "directory", "dir", "folder", "name")
PARENTS = ("parents", "p", "recursive")
FILE = ("file_name", "filename", "file", "file_path", "filepath", "path", "name", "target")
CONTENT = ("content", "text", "message", "string", "value", "data")
OUT_FILE = ("file_name", "filename", "file", "file_path", "filepath", "path", "output")
APPEND = ("append",)
SOURCE = ("source", "src", "from", "source_path", "old_path", "old_name")
DEST = ("destination", "dest", "to", "target", "destination_path", "new_path", "new_name")
RECURSIVE = ("recursive", "r", "R")
PATTERN = ("pattern", "regex", "query", "search", "expression", "text")
IGNORE_CASE = ("ignore_case", "i", "case_insensitive")
MODE = ("mode", "option", "flag", "unit")
LINES = ("lines", "n", "count", "num_lines", "number")
SORT_FLAGS = ("reverse", "numeric", "unique")
FIRST = ("file_name1", "file1", "path1", "first", "from_file", "left", "a", "source")
SECOND = ("file_name2", "file2", "path2", "second", "to_file", "right", "b", "destination")
UNIFIED = ("unified", "u")
START = ("path", "dir", "directory", "start", "root", "folder")
NAME = ("name", "pattern", "filename", "file_name", "query")
HUMAN = ("human_readable", "h", "human")

__all__ = ["Call", "Output"]
