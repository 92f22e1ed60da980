"""The arguments spreadsheet tools give a workbook file, a sheet, a range, a pattern: by name, else by role.

The usual names come first (``path``, ``sheet``, ``range``...). A catalog that names them
otherwise still says what each is: ``name`` described as "Name of the sheet to delete",
``source_name`` as "Name of the existing sheet to duplicate", ``range_str`` as "Cell range in
A1 notation", ``pattern`` as "Regular expression pattern to search for". :func:`by_role` reads
the tool's parameter names and descriptions for the role when no usual name is given.
"""

from __future__ import annotations

import re
from typing import Any

from ....world.catalog import ToolSpec

PATH_ARGS = ("path", "filepath", "file_path", "filename", "file_name", "workbook_path", "workbook", "file")
SHEET_ARGS = ("sheet", "sheet_name", "sheetname", "worksheet", "worksheet_name", "source_sheet", "tab")
RANGE_ARGS = ("range", "cell_range", "a1_range", "source_range", "source")

_A1 = re.compile(r"\bA1\b|\bcell (?:range|reference)\b|\brange\b", re.IGNORECASE)
_SHEET = re.compile(r"\b(?:work)?sheets?\b|\btab\b", re.IGNORECASE)
_NEW = re.compile(r"\bnew\b|\bcopy\b|\brenamed?\b to|\bfor the (?:new|copy)", re.IGNORECASE)
_PATTERN = re.compile(r"\b(?:pattern|regular expression|regex|search (?:for|text|term)|to find|query text)\b",
                      re.IGNORECASE)
SQL_WORDS = re.compile(r"\bsql\b|\bselect\b", re.IGNORECASE)
#: Roles :func:`by_role` knows; each is judged from a parameter's name and description.
ROLES = ("sheet", "new_sheet", "range", "pattern")


def _params(tool: ToolSpec) -> dict[str, dict[str, Any]]:
    props = (tool.input_schema or {}).get("properties") or {}
    return {str(k): v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}


def role_of(name: str, spec: dict[str, Any]) -> str | None:
    """The role a parameter plays, from its name and description (None: none of :data:`ROLES`)."""
    lowered, text = name.lower(), str(spec.get("description") or "")
    if lowered in PATH_ARGS or lowered.startswith(("dest", "target")) and "sheet" not in lowered:
        return None
    if lowered in ("pattern", "regex", "query", "search", "search_term", "needle") or _PATTERN.search(text) and \
            "sheet" not in lowered and "range" not in lowered:
        return "pattern"
    if "range" in lowered or lowered in ("cell", "cells") or lowered.endswith("_cell") and _A1.search(text):
        return "range"
    named = lowered == "name" or lowered.endswith("_name") or "sheet" in lowered
    if named and (_SHEET.search(text) or "sheet" in lowered):
        return "new_sheet" if lowered.startswith("new") or _NEW.search(text) else "sheet"
    return None


def by_role(tool: ToolSpec, arguments: dict[str, Any], role: str) -> Any:
    """The value of the first given argument whose parameter plays ``role`` (None: none given)."""
    for name, spec in _params(tool).items():
        if arguments.get(name) is not None and role_of(name, spec) == role:
            return arguments[name]
    return None


def optional(tool: ToolSpec, role: str) -> bool:
    """Whether the tool takes a parameter of ``role`` and leaves it optional (a sheet "defaults to the first")."""
    required = set((tool.input_schema or {}).get("required") or ())
    found = [n for n, s in _params(tool).items() if role_of(n, s) == role or role == "sheet" and n.lower() in
             SHEET_ARGS]
    return bool(found) and not any(n in required for n in found)


def regex_search(tool: ToolSpec) -> bool:
    """Whether the tool's pattern is a regular expression (its description says so)."""
    return any(role_of(n, s) == "pattern" and re.search(r"regular expression|regex", str(s.get("description") or ""),
                                                        re.IGNORECASE) for n, s in _params(tool).items())



def takes_sql(tool_text: str, params: dict[str, Any]) -> bool:
    """Whether a spreadsheet tool runs SQL: a parameter named for it, described as SQL."""
    for name in ("sql", "query", "statement", "sql_query"):
        spec = params.get(name)
        if isinstance(spec, dict) and (name == "sql" or SQL_WORDS.search(str(spec.get("description") or ""))):
            return bool(SQL_WORDS.search(tool_text) or name == "sql")
    return False


__all__ = ["SQL_WORDS", "takes_sql", "PATH_ARGS", "RANGE_ARGS", "ROLES", "SHEET_ARGS", "by_role", "optional", "regex_search", "role_of"]
