"""The table a row tool creates where the table is missing, as its description states it.

``add_record(table_name, title, content)``: "If the table doesn't exist, it will be created with columns: id,
title, content, and created_at." The statement that makes it: ``id`` the row's counter, a ``*_at`` or date
column stamped when the row is written, the others typed as the tool's arguments are. A description that
names no columns gets ``id`` and the columns the call gives; one that says nothing of creating gets None
(the insert fails as the database says: no such table).
"""

from __future__ import annotations

import re

from .sql_records import quoted

#: The description says a missing table is made.
_CREATES = re.compile(r"(?:n'?t|not) exist\w*[^.]{0,40}\b(?:created?|made)\b|\bcreates? (?:the |a )?(?:new )?table",
                      re.IGNORECASE)
#: "... with columns: id, title, content, and created_at." (up to the sentence's end).
_COLUMNS = re.compile(r"\bcolumns?\s*:?\s*([^.;]*)", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STAMP = re.compile(r"(?:_at|_on|^date|_date|^timestamp|_time)$", re.IGNORECASE)


def stated_table(description: str, table: str, given: list[str]) -> str | None:
    """``CREATE TABLE`` for ``table`` as the description says the tool makes it, else None."""
    if not _CREATES.search(description or ""):
        return None
    found = _COLUMNS.search(description)
    parts_said = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", found.group(1).strip()) if found else []
    columns = [c for c in parts_said if _NAME.fullmatch(c)] if all(_NAME.fullmatch(c) for c in parts_said) else []
    names = list(dict.fromkeys(["id", *columns, *given] if not columns else [*columns, *given]))
    parts = []
    for name in names:
        if name == "id":
            parts.append("id INTEGER PRIMARY KEY AUTOINCREMENT")
        elif _STAMP.search(name) and name not in given:
            parts.append(f"{quoted(name)} DATETIME DEFAULT CURRENT_TIMESTAMP")
        else:
            parts.append(f"{quoted(name)} TEXT")
    return f"CREATE TABLE {quoted(table)} (" + ", ".join(parts) + ")"


__all__ = ["stated_table"]
