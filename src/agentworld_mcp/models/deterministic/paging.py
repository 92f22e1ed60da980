"""A listing cut into the page the tool's own arguments ask for (``limit``, ``page``, ``offset``, ``cursor``).

Real list and search tools answer one page at a time when asked for one: ``limit: 5`` gives
five results and a way to the next five. The deterministic model does the same in the tool's
own convention, read from its inputSchema: a size (``limit``, ``per_page``, ``page_size``...,
or its schema ``default``), and a start (``page``, ``offset``, or an opaque ``cursor`` the
previous page gave, or the id of the last item seen: Stripe's ``starting_after``). A listing of
the same arguments is the same in every call (ranked, then in ledger order), so the cursor only
needs to say where the next page starts. A cursor that is neither is refused, as real APIs do.

The perturbation stage's ``paginate`` rule pages a whole listing itself (with snapshots);
then the step says ``whole_listing`` and this module leaves the listing whole. The argument
names are those :mod:`agentworld_mcp.perturb.pagination` reads (a world model may not import it).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from ...world.paging_names import CURSOR_ARGS, MORE_FIELDS, NEXT_FIELDS, OFFSET_ARGS, PAGE_ARGS, SIZE_ARGS, TOTAL_FIELDS
from ..base import Step

JSONDict = dict[str, Any]

_CURSOR_TAG = "p"  # ``{"p": offset}``: a cursor of this model, not one of the perturbation stage


@dataclass(frozen=True)
class Page:
    """Where the page starts and ends in the whole listing, and the argument that asks for the next one."""

    start: int
    size: int | None
    total: int
    cursor_arg: str | None

    @property
    def end(self) -> int:
        return self.total if self.size is None else min(self.start + self.size, self.total)

    @property
    def more(self) -> bool:
        return self.end < self.total

    @property
    def next_cursor(self) -> str | None:
        return encode_cursor(self.end) if self.more else None


class InvalidCursor(ValueError):
    """A cursor this model never gave and no item of the listing is named by."""

    def __init__(self, arg: str, cursor: Any) -> None:
        super().__init__(f"Invalid {arg} {str(cursor)[:80]!r}: pass the cursor the previous page gave"
                         f" (or leave {arg} out for the first page).")


def page_of(step: Step, keys: list[str]) -> Page | None:
    """The page the call asks for, or None when it asks for none (or the perturbation stage pages it).

    ``keys`` are the listing's item keys in order. Raises :class:`InvalidCursor`.
    """
    total = len(keys)
    if step.whole_listing:
        return None
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    size_arg = next((a for a in SIZE_ARGS if a in props), None)
    size = _positive(step.arguments.get(size_arg)) if size_arg else None
    if size is None and size_arg and isinstance(props[size_arg], dict):
        size = _positive(props[size_arg].get("default"))
    cursor_arg = next((a for a in CURSOR_ARGS if a in props), None)
    start = 0
    if cursor_arg and (cursor := step.arguments.get(cursor_arg)) not in (None, ""):
        ours = decode_cursor(cursor)
        if ours is not None:
            start = ours
        elif str(cursor) in keys:  # the last item seen
            start = keys.index(str(cursor)) + 1
        else:
            raise InvalidCursor(cursor_arg, cursor)
    elif (page_arg := next((a for a in PAGE_ARGS if a in props), None)) and size:
        start = ((_positive(step.arguments.get(page_arg)) or 1) - 1) * size
    elif offset_arg := next((a for a in OFFSET_ARGS if a in props), None):
        offset = step.arguments.get(offset_arg)
        start = offset if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0 else 0
    if size is None and start == 0:
        return None
    return Page(min(start, total), size, total, cursor_arg)


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({_CURSOR_TAG: offset}).encode()).decode().rstrip("=")


def decode_cursor(cursor: Any) -> int | None:
    """Where a cursor of this model starts; None for a cursor it never gave."""
    try:
        value = json.loads(base64.urlsafe_b64decode(str(cursor) + "=" * (-len(str(cursor)) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    offset = value.get(_CURSOR_TAG) if isinstance(value, dict) else None
    return offset if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0 else None


def paged_body(body: Any, page: Page, out_schema: JSONDict | None) -> Any:
    """The rendered page with the fields that say where the listing goes on (those the output schema has)."""
    if not isinstance(body, dict) or not out_schema:
        return body
    props: JSONDict = out_schema.get("properties") or {}
    for name in TOTAL_FIELDS:
        if name in props and _kind(props[name]) in ("integer", "number"):
            body[name] = page.total
    for name in MORE_FIELDS:
        if name in props and _kind(props[name]) == "boolean":
            body[name] = page.more
    next_field = next((n for n in NEXT_FIELDS if n in props), None)
    if next_field:
        cursor = page.next_cursor
        nullable = "null" in _kinds(props[next_field])
        if cursor is not None or nullable:
            body[next_field] = cursor
        elif next_field in (out_schema.get("required") or ()):
            body[next_field] = ""
        else:
            body.pop(next_field, None)
    return body


def more_text(tool: str, page: Page) -> str | None:
    """What a server without an output schema prints under a page that has a next one."""
    if not page.more:
        return None
    if page.cursor_arg:
        return (f"Showing {page.start + 1}-{page.end} of {page.total}. More results are available: call {tool} "
                f"again with {page.cursor_arg}={json.dumps(page.next_cursor)} to get the next page.")
    return f"Showing {page.start + 1}-{page.end} of {page.total}."


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _kind(schema: Any) -> Any:
    kinds = _kinds(schema)
    return next((k for k in kinds if k != "null"), None)


def _kinds(schema: Any) -> list[Any]:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, list) else [kind]


__all__ = ["InvalidCursor", "Page", "page_of", "paged_body", "more_text", "encode_cursor", "decode_cursor"]
