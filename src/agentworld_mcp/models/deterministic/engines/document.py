"""Word-processing documents held by python-docx: headings, paragraphs, tables, find and replace.

What selects it. A catalog whose tool names speak of paragraphs and of headings, or
whose descriptions name the ``.docx`` format; in such a catalog each tool whose name
says what it does to a document (create, add a heading/paragraph/table/page break, get
the text/a paragraph/the outline/the info, find, search and replace, delete a paragraph,
format text, list or copy documents) and that takes a document argument (``filename``,
``document_path``...) is answered here; other tools of the catalog (footnotes, comments,
table formatting) are left to the record model.

What it does. Each document is one entity of the ``documents`` collection (its JSON form,
:mod:`.document_body`); a call rebuilds it in python-docx, does what the tool says with
python-docx's own API, and returns the new form as an effect. Answers are worded as the
reference document server words them, failures in band as it reports them (``Document
x.docx does not exist``, ``Invalid paragraph index. Document has 7 paragraphs (0-6).``);
a replacement is counted per text run that held the text, as python-docx replaces it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from .document_body import TooLarge
from .document_ops import (DOCUMENT_ARGS, FIND_ARGS, INDEX_ARGS, OPS, REPLACE_ARGS, TARGET_ARGS, TEXT_ARGS,
                           list_documents, open_call)

_VERBS_ADD = {"add", "append", "insert", "write"}
#: Parts of a document this engine does not keep: tools about them are left to the record model.
_OTHER_PARTS = {"comment", "comments", "footnote", "footnotes", "endnote", "endnotes", "style", "styles", "image",
                "picture", "xml", "pdf", "protect", "unprotect", "protection", "merge", "cell", "cells", "header",
                "footer", "list", "bookmark", "hyperlink", "toc", "contents"}


#: How the reference server names each operation in its ``Failed to ...: reason`` answers.
_FAILED = {"create": "create document", "heading": "add heading", "paragraph": "add paragraph", "table": "add table",
           "page_break": "add page break", "replace": "search and replace", "format": "format text",
           "delete_paragraph": "delete paragraph", "text": "extract text", "get_paragraph": "get paragraph text",
           "find": "search for text", "info": "get document properties", "outline": "get document structure",
           "copy": "copy document"}


def _tokens(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t}


def _props(tool: ToolSpec) -> dict[str, Any]:
    props = tool.input_schema.get("properties")
    return props if isinstance(props, dict) else {}


def _first(names: tuple[str, ...], props: dict[str, Any]) -> str | None:
    return next((n for n in names if n in props), None)


def operation(tool: ToolSpec) -> str | None:
    """What ``tool`` does to a document, from its name and arguments (None: nothing this engine models)."""
    words, props = _tokens(tool.name), _props(tool)
    if "list" in words and words & {"documents", "docs"}:
        return "list"
    if _first(DOCUMENT_ARGS, props) is None or words & _OTHER_PARTS:
        return None
    has = {kind: _first(names, props) is not None for kind, names in
           (("find", FIND_ARGS), ("replace", REPLACE_ARGS), ("index", INDEX_ARGS), ("target", TARGET_ARGS),
            ("text", TEXT_ARGS))}
    rules: list[tuple[str, bool]] = [
        ("replace", "replace" in words and has["find"] and has["replace"]),
        ("find", bool(words & {"find", "search"}) and has["find"] and not has["replace"]),
        ("copy", "copy" in words),
        ("create", bool(words & {"create", "new"}) and bool(words & {"document", "doc", "docx"})),
        ("page_break", {"page", "break"} <= words or "pagebreak" in words),
        ("heading", "heading" in words and bool(words & _VERBS_ADD) and has["text"] and not has["target"]),
        ("table", "table" in words and bool(words & _VERBS_ADD) and "rows" in props and not has["index"]),
        ("delete_paragraph", "paragraph" in words and bool(words & {"delete", "remove"}) and has["index"]),
        ("paragraph", "paragraph" in words and bool(words & _VERBS_ADD) and has["text"]
         and not has["target"] and not has["index"]),
        ("get_paragraph", "paragraph" in words and bool(words & {"get", "read"}) and has["index"]),
        ("outline", bool(words & {"outline", "structure"})),
        ("info", bool(words & {"info", "information", "properties", "metadata", "stats", "statistics"})),
        ("text", "text" in words and bool(words & {"get", "read", "extract"}) and not has["index"]),
        ("format", "format" in words and "text" in words and has["index"]),
    ]
    return next((op for op, applies in rules if applies), None)


def is_document_catalog(world: World) -> bool:
    """Tools about paragraphs and headings, a tool named for .docx, or descriptions naming .docx on a third of the
    tools at least: a word-processing catalog. (A file server whose reader also opens .docx is none: one mention
    among many file tools made its ``get_file_info`` a document's.)"""
    names = set().union(*(_tokens(str(t.get("name", ""))) for t in world.tools)) if world.tools else set()
    if "paragraph" in names and ("heading" in names or "headings" in names):
        return True
    if any("docx" in _tokens(str(t.get("name", ""))) for t in world.tools):
        return True
    naming = sum(".docx" in json.dumps(t.get("description") or "") for t in world.tools)
    return naming > 0 and naming * 3 >= len(world.tools)


def claims(world: World, tool: ToolSpec) -> bool:
    """Whether this engine answers ``tool``: a document operation it models, in a word-processing catalog."""
    return operation(tool) is not None and is_document_catalog(world)


def predict(step: Step) -> Prediction | None:
    """The document's answer to ``step``; None (the record model answers) for a call it cannot place."""
    op = step.derived(("document_operation", step.tool.name), lambda: operation(step.tool))
    if op == "list":
        return list_documents(step)
    call = open_call(step, next((step.arguments[n] for n in DOCUMENT_ARGS if step.arguments.get(n) is not None), None))
    if op is None or call is None:
        return None
    try:
        return OPS[op](call)
    except TooLarge as exc:
        return call.say(f"Failed to modify document: {exc}")
    except ValueError as exc:  # python-docx refusing text XML cannot hold (a NUL, control characters), as the server reports it
        return call.say(f"Failed to {_FAILED.get(op, op.replace('_', ' '))}: {exc}")


__all__ = ["claims", "is_document_catalog", "operation", "predict"]
