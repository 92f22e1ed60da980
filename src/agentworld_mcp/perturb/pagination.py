"""Serving list and search results in pages, with stable opaque cursors.

The full result is fixed when the first page is served: it is stored as a *snapshot* in
the episode's state, and every later page is cut from that snapshot, never from a new
prediction. Following the cursors therefore yields every item exactly once, in order,
even if the world changes in between (which is what careful real APIs promise, and what
an agent's bookkeeping may rely on).

The tool's own conventions are used when its schemas declare them:

=============  ==========================================================  ====================
style          arguments                                                   output fields
=============  ==========================================================  ====================
cursor         ``cursor`` / ``page_token`` / ``pageToken`` / ``after``...    ``next_cursor`` / ``nextPageToken``...
page           ``page`` (+ ``per_page`` / ``page_size`` / ``limit``)        ``has_more``, ``total``, ``page``
offset         ``offset`` (+ ``limit``)                                    ``has_more``, ``total``
=============  ==========================================================  ====================

Otherwise the default is a ``cursor`` argument (when the input schema accepts extra
arguments) and a ``next_cursor`` output field (or, for text tools returning a JSON list,
a second text block naming the cursor).
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass
from typing import Any, Literal

from ..world.catalog import ToolSpec
from ..world.paging_names import (
    CURSOR_ARGS,
    MORE_FIELDS,
    NEXT_FIELDS,
    OFFSET_ARGS,
    PAGE_ARGS,
    PAGE_FIELDS,
    SIZE_ARGS,
    SIZE_FIELDS,
)
from ..world.paging_names import TOTAL_FIELDS as _TOTAL_FIELDS
from ..state.result import ToolResult, dump_json

JSONDict = dict[str, Any]

#: A ``count`` output beside a page is the listing's total here: the page's own size is the page.
TOTAL_FIELDS = (*_TOTAL_FIELDS, "count")
DEFAULT_CURSOR_ARG = "cursor"
DEFAULT_NEXT_FIELD = "next_cursor"
#: Snapshots kept per episode; cursors of older ones are "expired".
MAX_SNAPSHOTS = 64


@dataclass(frozen=True)
class Conventions:
    """How one tool pages (``mode`` None: it cannot, so it is never paginated)."""

    mode: Literal["cursor", "page", "offset"] | None
    cursor_arg: str | None = None
    page_arg: str | None = None
    offset_arg: str | None = None
    size_arg: str | None = None
    next_field: str | None = None
    more_field: str | None = None
    total_field: str | None = None
    page_field: str | None = None
    size_field: str | None = None
    #: The next field may hold null (else it is dropped, or "" if required).
    next_nullable: bool = True
    next_required: bool = False

    @property
    def paging_args(self) -> tuple[str, ...]:
        return tuple(a for a in (self.cursor_arg, self.page_arg, self.offset_arg, self.size_arg) if a)


def conventions(spec: ToolSpec) -> Conventions:
    props: JSONDict = spec.input_schema.get("properties") or {}
    out = spec.output_schema
    out_props: JSONDict = (out or {}).get("properties") or {}
    open_input = spec.input_schema.get("additionalProperties", True) is not False
    open_output = out is None or out.get("additionalProperties", True) is not False

    def first(names: tuple[str, ...], where: JSONDict) -> str | None:
        return next((n for n in names if n in where), None)

    cursor_arg, page_arg, offset_arg = first(CURSOR_ARGS, props), first(PAGE_ARGS, props), first(OFFSET_ARGS, props)
    size_arg = first(SIZE_ARGS, props)
    next_field = first(NEXT_FIELDS, out_props)
    common: dict[str, Any] = dict(size_arg=size_arg, more_field=first(MORE_FIELDS, out_props), total_field=first(TOTAL_FIELDS, out_props),
                  page_field=first(PAGE_FIELDS, out_props), size_field=first(SIZE_FIELDS, out_props))
    if cursor_arg or (not page_arg and not offset_arg and open_input):
        next_field = next_field or (DEFAULT_NEXT_FIELD if open_output else None)
        if next_field is None:
            return Conventions(None)  # nowhere to put the cursor
        found = out_props.get(next_field)
        schema: JSONDict = found if isinstance(found, dict) else {}
        kinds = schema.get("type", ["string", "null"])
        nullable = "null" in (kinds if isinstance(kinds, list) else [kinds]) or next_field not in out_props
        required = next_field in ((out or {}).get("required") or ())
        return Conventions("cursor", cursor_arg=cursor_arg or DEFAULT_CURSOR_ARG, next_field=next_field,
                           next_nullable=nullable, next_required=required, **common)
    if page_arg:
        return Conventions("page", page_arg=page_arg, **common)
    if offset_arg:
        return Conventions("offset", offset_arg=offset_arg, **common)
    return Conventions(None)


# -- cursors ---------------------------------------------------------------------------


def encode_cursor(snapshot_id: str, offset: int) -> str:
    raw = json.dumps([snapshot_id, offset], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: Any) -> tuple[str, int] | None:
    if not isinstance(cursor, str) or not cursor:
        return None
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    if (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], int)
            and value[1] >= 0):
        return value[0], value[1]
    return None


# -- snapshots ---------------------------------------------------------------------------


@dataclass
class Listing:
    """A list result taken apart: its items and where they go back."""

    items: list[Any]
    body: Any  # the whole value (object with an items field, or the list itself)
    field: str | None  # the items field; None when the value is the list
    structured: bool


def listing_of(spec: ToolSpec, result: ToolResult) -> Listing | None:
    """The items of a successful list result, or None if it holds no list."""
    if result.structured is not None:
        body, structured = result.structured, True
    else:
        try:
            body, structured = json.loads(result.text), False
        except ValueError:
            return None
    if isinstance(body, list):
        return Listing(body, body, None, structured)
    if not isinstance(body, dict):
        return None
    field = spec.role.items_field if isinstance(body.get(spec.role.items_field or ""), list) else None
    field = field or next((k for k, v in body.items() if isinstance(v, list)), None)
    if field is None:
        return None
    return Listing(body[field], body, field, structured)


def snapshot_key(spec: ToolSpec, arguments: JSONDict, conv: Conventions) -> str:
    """Calls with the same tool and the same non-paging arguments share a listing."""
    rest = {k: v for k, v in arguments.items() if k not in conv.paging_args}
    return spec.name + ":" + json.dumps(rest, sort_keys=True, default=str)


def store_snapshot(state: JSONDict, snapshot_id: str, key: str, listing: Listing, page_size: int) -> JSONDict:
    snapshots: JSONDict = state.setdefault("snapshots", {})
    snap = {"key": key, "items": copy.deepcopy(listing.items), "body": copy.deepcopy(listing.body),
            "field": listing.field, "structured": listing.structured, "size": page_size}
    snapshots[snapshot_id] = snap
    state.setdefault("latest", {})[key] = snapshot_id
    while len(snapshots) > MAX_SNAPSHOTS:  # oldest first: dicts keep insertion order
        old = next(iter(snapshots))
        del snapshots[old]
    return snap


def page_size(conv: Conventions, arguments: JSONDict, default: int) -> int:
    value = arguments.get(conv.size_arg) if conv.size_arg else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def start_of(conv: Conventions, arguments: JSONDict, size: int) -> int | None:
    """Where the requested page starts for page/offset styles (None: a cursor-style call)."""
    if conv.mode == "page":
        page = arguments.get(conv.page_arg or "")
        page = page if isinstance(page, int) and not isinstance(page, bool) and page >= 1 else 1
        return (page - 1) * size
    if conv.mode == "offset":
        offset = arguments.get(conv.offset_arg or "")
        return offset if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0 else 0
    return None


def is_continuation(conv: Conventions, arguments: JSONDict) -> bool:
    """Does this call ask for a later page (rather than start a listing)?"""
    if conv.mode == "cursor":
        return arguments.get(conv.cursor_arg or "") not in (None, "")
    start = start_of(conv, arguments, 1)
    return bool(start)


def render_page(spec: ToolSpec, conv: Conventions, snap: JSONDict, snapshot_id: str, start: int, size: int) -> ToolResult:
    """The page of ``snap`` starting at ``start``, shaped like the full result."""
    items: list[Any] = snap["items"]
    chunk = copy.deepcopy(items[start : start + size])
    end = start + len(chunk)
    more = end < len(items)
    next_cursor = encode_cursor(snapshot_id, end) if more else None
    if snap["field"] is None:  # the result is a bare list
        body: Any = chunk
        extra = None
        if conv.mode == "cursor" and next_cursor:
            extra = (f"More results are available: call {spec.name} again with "
                     f"{conv.cursor_arg}={json.dumps(next_cursor)} to get the next page.")
        text = dump_json(body)
        blocks = [{"type": "text", "text": text}] + ([{"type": "text", "text": extra}] if extra else [])
        return ToolResult(blocks, body if snap["structured"] else None)
    body = copy.deepcopy(snap["body"])
    body[snap["field"]] = chunk
    if conv.mode == "cursor" and conv.next_field:
        if next_cursor is not None or conv.next_nullable:
            body[conv.next_field] = next_cursor
        elif conv.next_required:
            body[conv.next_field] = ""
        else:
            body.pop(conv.next_field, None)
    if conv.more_field:
        body[conv.more_field] = more
    if conv.total_field and not isinstance(body.get(conv.total_field), int):
        body[conv.total_field] = len(items)
    if conv.page_field and conv.mode == "page":
        body[conv.page_field] = start // size + 1
    if conv.size_field:
        body[conv.size_field] = size
    if snap["structured"]:
        return ToolResult.from_json(body, structured=True)
    return ToolResult.from_json(body, structured=False)
