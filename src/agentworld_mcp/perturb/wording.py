"""How injected failures are worded: like the kind of service the tool belongs to.

Agents learn to recognise real failure messages (``429 Too Many Requests``, ``ETIMEDOUT``,
Postgres SQLSTATEs), so an injected error must read like one. Three families cover most
catalogs: REST-ish APIs (``http``, the default), file tools (``fs``, node-style errno as the
reference filesystem server prints them) and databases (``sql``, Postgres wording).
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..world.catalog import ToolSpec
from ..world.roles import singular, words
from .policy import Rule, Style

JSONDict = dict[str, Any]

_HTTP_STATUS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
                429: "Too Many Requests", 404: "Not Found", 403: "Forbidden", 409: "Conflict", 422: "Unprocessable Entity",
                400: "Bad Request", 408: "Request Timeout", 401: "Unauthorized"}
#: node's syscall name per role, as in ``ENOENT: no such file or directory, open '/x'``.
_FS_OP = {"read": "open", "list": "scandir", "search": "scandir", "create": "open", "update": "open",
          "delete": "unlink", "move": "rename", "action": "open"}
_VERB = {"read": "read", "list": "list", "search": "search", "create": "create", "update": "update",
         "delete": "delete", "move": "move", "action": "use"}


def style_of(spec: ToolSpec, forced: Style = "auto") -> Style:
    """The failure vocabulary of ``spec``'s service."""
    if forced != "auto":
        return forced
    role = spec.role
    props = (spec.input_schema.get("properties") or {})
    if role.collection == "files" or "path" in props:
        return "fs"
    tokens = set(words(spec.name)) | set(words(" ".join(props)))
    if tokens & {"sql", "database", "db", "table", "postgres", "mysql", "sqlite"} or "sql" in spec.description.lower():
        return "sql"
    return "http"


def retry_seconds(seconds: float) -> int:
    """The hint an agent reads: whole seconds, never 0 (a real ``Retry-After`` is an integer)."""
    return max(1, math.ceil(seconds - 1e-9))


def error_text(kind: str, spec: ToolSpec, arguments: JSONDict, rule: Rule, style: Style, rng: random.Random,
               *, retry_after: float | None = None) -> str:
    """The message of an injected error of ``kind`` for a call of ``spec``."""
    retry = retry_seconds(retry_after if retry_after is not None else rule.retry_after)
    if rule.message:
        return rule.message.format(retry_after=retry, tool=spec.name, status=rule.status or "")
    role = spec.role
    target = _target(spec, arguments)
    noun = singular(role.collection).replace("_", " ")
    if style == "fs":
        op, path = _FS_OP.get(role.kind, "open"), target or "."
        return {
            "rate_limit": f"Error: EAGAIN: resource temporarily unavailable, {op} '{path}' (too many requests; retry after {retry}s)",
            "timeout": f"Error: ETIMEDOUT: connection timed out, {op} '{path}'",
            "unavailable": f"Error: EBUSY: resource busy or locked, {op} '{path}'",
            "server_error": f"Error: EIO: i/o error, {op} '{path}'",
            "not_found": f"Error: ENOENT: no such file or directory, {op} '{path}'",
            "permission_denied": f"Error: EACCES: permission denied, {op} '{path}'",
            "conflict": f"Error: EEXIST: file already exists, {op} '{path}'",
            "validation": f"Error: EINVAL: invalid argument, {op} '{path}'",
        }[kind]
    if style == "sql":
        table = role.collection
        field = _field(arguments, rng)
        return {
            "rate_limit": f'ERROR: 53300: too many connections for role "agent"; retry after {retry}s',
            "timeout": "ERROR: 57014: canceling statement due to statement timeout",
            "unavailable": "ERROR: 57P03: the database system is starting up",
            "server_error": "ERROR: XX000: internal error: could not read block 0 in file \"base/16384/2619\"",
            "not_found": f'ERROR: 42P01: relation "{table}" does not exist',
            "permission_denied": f"ERROR: 42501: permission denied for table {table}",
            "conflict": "ERROR: 40001: could not serialize access due to concurrent update",
            "validation": f'ERROR: 22P02: invalid input syntax for column "{field or "value"}"',
        }[kind]
    subject = f"{noun} {target}" if target else noun
    verb = _VERB.get(role.kind, "use")
    request_id = f"req_{rng.getrandbits(48):012x}"
    status = rule.status
    messages = {
        "rate_limit": (429, f"rate limit exceeded, retry after {retry}s"),
        "timeout": (status or 504, "the upstream service did not respond in time; the request was not completed"),
        "unavailable": (status or 503, "the service is temporarily unavailable, try again later"),
        "server_error": (status or 500, f"an unexpected error occurred (request id {request_id})"),
        "not_found": (404, f"{subject} does not exist" if target else "the requested resource was not found"),
        "permission_denied": (403, f"you do not have permission to {verb} {subject}"),
        "conflict": (409, f"{noun} already exists or is being created by another request; retry later"
                     if role.kind == "create" and not target else
                     f"{subject} was modified by another request; fetch the latest version and retry"),
        "validation": (422, f"validation failed: {_field(arguments, rng) or 'request'}: is invalid"),
    }
    code, detail = messages[kind]
    return f"{code} {_HTTP_STATUS.get(code, 'Error')}: {detail}"


def bad_cursor_text(spec: ToolSpec, cursor: Any, style: Style) -> str:
    """An unknown or expired pagination cursor, worded like the service."""
    if style == "fs":
        return f"Error: EINVAL: invalid argument, cursor '{cursor}' is unknown or expired"
    if style == "sql":
        return f'ERROR: 34000: cursor "{cursor}" does not exist'
    return f"400 Bad Request: invalid or expired cursor {cursor!r}; request the first page again without a cursor"


def _target(spec: ToolSpec, arguments: JSONDict) -> str | None:
    for name in spec.role.key_args:
        value = arguments.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def _field(arguments: JSONDict, rng: random.Random) -> str | None:
    names = sorted(arguments)
    return rng.choice(names) if names else None
