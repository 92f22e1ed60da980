"""Record tools of a database catalog, served by the episode's SQL database.

``create_record(table, data)``, ``read_records(table, conditions, limit, offset)``,
``update_records(table, data, conditions)`` and ``delete_records(table, conditions)`` (see
:func:`agentworld_mcp.world.sql_roles._record_op`) become an INSERT, a SELECT, an UPDATE and a DELETE
over the same database the statement tool runs on, so rows one writes the other reads.

How such a server words its answers is its own (``{"message": ..., "insertedId": N}``,
``{"changes": N}``...): where the world has demonstrations of the tool, its answer object is a
template whose integer fields are the statement's new row id or row count (by their names) and whose
other fields are the server's constants; where it has error demonstrations, they give the tool's lead
(``Error creating record: ``), whether the driver's result code precedes SQLite's message
(``SQLITE_CONSTRAINT: ...``) and how the server words its own checks of a table and a column
(``Table "x" does not exist``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...world.sql_roles import CONDITION_ARGS, DATABASE_PATH_ARGS, ROW_ARGS, SQL_ARGS, TABLE_ARGS
from ...world.world import World

JSONDict = dict[str, Any]
_ID_KEY = re.compile(r"id$|rowid", re.IGNORECASE)
_COUNT_KEY = re.compile(r"count|affected|changes|rows|deleted|updated|inserted|modified", re.IGNORECASE)
_CODE = re.compile(r"^(SQLITE_[A-Z_]+): ")
_LEAD = re.compile(r'^([^"\'\n:]{1,60}: )')


@dataclass
class Wording:
    """What the demonstrations show of a catalog's record and table tools' answers."""

    #: tool -> its answer object with ``{"$": "lastrowid"|"rowcount"}`` in place of the values the statement decides
    templates: dict[str, JSONDict] = field(default_factory=dict)
    #: tool -> the text its errors start with
    leads: dict[str, str] = field(default_factory=dict)
    #: whether SQLite's message is preceded by its result code (``SQLITE_ERROR: near "x": syntax error``)
    codes: bool = False
    #: tool -> the indent its template's JSON text was printed with (a demonstration recorded as text)
    indents: dict[str, int | None] = field(default_factory=dict)
    missing_table: str | None = None  # with {table}
    missing_column: str | None = None  # with {column} and {table}
    #: how a read-only statement tool refuses another statement, word for word, and whether flagged ``isError``
    read_only: tuple[str, bool] | None = None
    #: tool -> how it refuses a table or a database file that is not there, word for word (``{table}``,
    #: ``{database}`` in place of the names), and whether flagged ``isError``
    absent: dict[str, tuple[str, bool]] = field(default_factory=dict)


def wording(world: World) -> Wording:
    """The catalog's wording, from its demonstrations (none: an empty :class:`Wording`)."""
    out = Wording()
    for demo in world.demonstrations:
        out.read_only = out.read_only or _read_only_refusal(demo.arguments, demo.response, demo.is_error)
        if demo.tool not in out.absent and (absent := _absent_refusal(demo.arguments, demo.response,
                                                                      demo.is_error)) is not None:
            out.absent[demo.tool] = absent
        response, printed = demo.response, None
        if isinstance(response, str) and not demo.is_error:
            try:
                response, printed = json.loads(response), response
            except ValueError:
                continue
        if not demo.is_error:
            if isinstance(response, dict) and demo.tool not in out.templates and _row_tool(demo.arguments):
                out.templates[demo.tool] = {k: _slot(k, v) for k, v in response.items()}
                if printed is not None:  # the server printed its answer as JSON text: so do we, alike
                    out.indents[demo.tool] = 2 if "\n" in printed else None
            continue
        if not isinstance(response, str):
            continue
        lead = _LEAD.match(response)
        rest = response[lead.end():] if lead else response
        if lead and not _CODE.match(response):
            out.leads.setdefault(demo.tool, lead.group(1))
        if _CODE.match(rest):
            out.codes = True
            continue
        table = next((demo.arguments[a] for a in TABLE_ARGS if isinstance(demo.arguments.get(a), str)), None)
        if not table or table not in rest:
            continue
        named = [k for a in (*ROW_ARGS, *CONDITION_ARGS) if isinstance(demo.arguments.get(a), dict)
                 for k in demo.arguments[a] if re.search(rf"\b{re.escape(k)}\b", rest)]
        if named and out.missing_column is None:
            out.missing_column = rest.replace(table, "{table}").replace(named[0], "{column}")
        elif not named and out.missing_table is None:
            out.missing_table = rest.replace(table, "{table}")
    return out


def _read_only_refusal(arguments: JSONDict, response: Any, is_error: bool) -> tuple[str, bool] | None:
    """The words of a refusal to run a statement other than a SELECT (``Security violation: Only SELECT queries
    are allowed.``), in text or as an answer's ``error``, where the demonstration is one."""
    statement = next((v for a in SQL_ARGS if isinstance(v := arguments.get(a), str)), None)
    if statement is None or re.match(r"\s*(?:SELECT|WITH)\b", statement, re.IGNORECASE):
        return None
    text = _failure_text(response, True)  # a text answer counts here: the statement was refused, flagged or not
    if text is not None and re.search(r"\bSELECT\b", text) and re.search(
            r"\bonly\b|\bnot allowed\b|\bread[- ]?only\b", text, re.IGNORECASE):
        return text, is_error
    return None


def _failure_text(response: Any, is_error: bool) -> str | None:
    """A failure's words: an ``isError`` text, or the ``error`` of an answer (in a one-item list) that reports one."""
    if isinstance(response, str):
        try:
            response = json.loads(response)
        except ValueError:
            return response if is_error else None
    while isinstance(response, list) and len(response) == 1:
        response = response[0]
    text = response.get("error") if isinstance(response, dict) else None
    return text if isinstance(text, str) and text else None


def _absent_refusal(arguments: JSONDict, response: Any, is_error: bool) -> tuple[str, bool] | None:
    """A failure naming the call's table or database file as missing, its names as ``{table}``/``{database}``."""
    text = _failure_text(response, is_error)
    if text is None or not re.search(r"not found|no such|does not exist|doesn't exist|missing", text, re.IGNORECASE):
        return None
    table = next((v for a in TABLE_ARGS if isinstance(v := arguments.get(a), str) and v), None)
    database = next((v for a in DATABASE_PATH_ARGS if isinstance(v := arguments.get(a), str) and v), None)
    if database is not None and database in text:
        return text.replace(database, "{database}"), is_error
    if table is not None and re.search(rf"\b{re.escape(table)}\b", text):
        return re.sub(rf"\b{re.escape(table)}\b", "{table}", text), is_error
    return None


def _row_tool(arguments: JSONDict) -> bool:
    return any(isinstance(arguments.get(a), str) for a in TABLE_ARGS)


def _slot(key: str, value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if _ID_KEY.search(key):
            return {"$": "lastrowid"}
        if _COUNT_KEY.search(key):
            return {"$": "rowcount"}
    return value


def filled(template: JSONDict, lastrowid: int | None, rowcount: int) -> JSONDict:
    """The template with this statement's values."""
    values = {"lastrowid": lastrowid, "rowcount": rowcount}
    return {k: values[v["$"]] if isinstance(v, dict) and set(v) == {"$"} else v for k, v in template.items()}


def result_code(message: str) -> str:
    """SQLite's primary result code for one of its messages, as drivers that print codes name it."""
    if "constraint failed" in message:
        return "SQLITE_CONSTRAINT"
    if "readonly" in message:
        return "SQLITE_READONLY"
    if "datatype mismatch" in message:
        return "SQLITE_MISMATCH"
    return "SQLITE_ERROR"


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def where_clause(conditions: Any) -> tuple[str, list[Any]]:
    """``WHERE`` for a conditions object (equalities, ANDed; None is ``IS NULL``) or a SQL condition string."""
    if isinstance(conditions, str) and conditions.strip():
        return f" WHERE {conditions}", []
    if not isinstance(conditions, dict) or not conditions:
        return "", []
    parts, params = [], []
    for column, value in conditions.items():
        if value is None:
            parts.append(f"{quoted(str(column))} IS NULL")
        else:
            parts.append(f"{quoted(str(column))} = ?")
            params.append(json.dumps(value) if isinstance(value, (dict, list)) else value)
    return " WHERE " + " AND ".join(parts), params


def first_object(arguments: JSONDict, names: tuple[str, ...]) -> Any:
    return next((arguments[a] for a in names if a in arguments and arguments[a] is not None), None)


__all__ = ["Wording", "filled", "first_object", "quoted", "result_code", "where_clause", "wording"]
