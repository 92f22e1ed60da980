"""The document tools' operations, each done with python-docx and worded as the reference server words it.

A call opens the stored document (:class:`Call`), rebuilds it (:func:`.document_body.build`),
changes it with python-docx's own API and stores the new JSON form with one effect;
reads return no effect. Failures are in band, as the reference server reports them.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ....state.ledger import Effect
from ....world.roles import normalise_path
from ...base import Prediction, Step
from ..common import structured_text
from .document_body import COLLECTION, MAX_DOCUMENTS, build, check_growth, check_table, fields_of, size_kb

from docx.document import Document as DocxDocument  # noqa: E402  # after .document_body: it names the missing extra
from docx.text.paragraph import Paragraph  # noqa: E402

JSONDict = dict[str, Any]

#: Argument names of the document a tool works on, the first present wins.
DOCUMENT_ARGS = ("filename", "file_name", "document_path", "doc_path", "docx_path", "file_path", "document",
                 "document_name", "doc_name", "doc", "path", "file", "source_filename", "source_path", "source")
TEXT_ARGS = ("text", "content", "paragraph_text", "paragraph", "body")
FIND_ARGS = ("find_text", "search_text", "text_to_find", "old_text", "find", "search", "query", "pattern")
REPLACE_ARGS = ("replace_text", "new_text", "replacement", "replace_with", "replace")
INDEX_ARGS = ("paragraph_index", "para_index", "index", "paragraph_number")
TARGET_ARGS = ("target_text", "target_paragraph_index", "after_paragraph", "before_paragraph")


# -- one call --------------------------------------------------------------------------------------


@dataclass
class Call:
    """One call on one document: the step, the document's name and key, and what is stored under it."""

    step: Step
    name: str  # the document as the server names it: the argument, with .docx added
    key: str  # the entity's key: the normalised path
    fields: JSONDict | None  # the stored document, None when there is none

    def arg(self, names: tuple[str, ...], default: Any = None) -> Any:
        return next((self.step.arguments[n] for n in names if self.step.arguments.get(n) is not None), default)

    def missing(self) -> Prediction:
        return self.say(f"Document {self.name} does not exist")

    def say(self, text: str, effects: list[Effect] | None = None) -> Prediction:
        return structured_text(self.step, text, effects=effects or [])

    def saved(self, document: DocxDocument, text: str) -> Prediction:
        """``text``, with the changed document stored (an answer saying why, when it grew too large)."""
        fields = fields_of(document, self.key, self.fields)
        return self.say(text, [Effect("update" if self.fields is not None else "create", COLLECTION, self.key, fields)])


def _docx_name(value: str) -> str:
    return value if value.endswith(".docx") else value + ".docx"


def open_call(step: Step, value: Any) -> Call | None:
    """The call on the document ``value`` names (None: no document named)."""
    if not isinstance(value, str):
        return None
    name = _docx_name(value)  # "" too: the server calls that document ".docx"
    entity = step.episode.ledger.get(COLLECTION, normalise_path(name))
    return Call(step, name, normalise_path(name), dict(entity.fields) if entity is not None else None)


# -- the operations, each as the reference server words it -------------------------------------------------


def _directory_exists(step: Step, folder: str) -> bool:
    """The working directory, and any directory a document is in (the simulation keeps no empty ones)."""
    folder = normalise_path(folder)
    return folder in (".", "") or any(e.key.startswith(folder.rstrip("/") + "/")
                                      for e in step.episode.ledger.items(COLLECTION))


def _create(call: Call) -> Prediction:
    folder = posixpath.dirname(call.name)
    if folder and not _directory_exists(call.step, folder):
        return call.say(f"Cannot create document: Directory {folder} does not exist")
    if call.fields is None and len(call.step.episode.ledger.items(COLLECTION)) >= MAX_DOCUMENTS:
        return call.say(f"Cannot create document: the simulated workspace is limited to {MAX_DOCUMENTS} documents")
    properties = {n: call.arg((n,)) for n in ("title", "author", "subject", "keywords")}
    document = build({n: v for n, v in properties.items() if isinstance(v, str)})
    fields = fields_of(document, call.key)
    return call.say(f"Document {call.name} created successfully", [Effect("create", COLLECTION, call.key, fields)])


def _heading(call: Call) -> Prediction:
    try:
        level = int(call.arg(("level", "heading_level"), 1))
    except (TypeError, ValueError):
        return call.say("Invalid parameter: level must be an integer between 1 and 9")
    if not 1 <= level <= 9:
        return call.say(f"Invalid heading level: {level}. Level must be between 1 and 9.")
    if call.fields is None:
        return call.missing()
    text = str(call.arg(TEXT_ARGS, ""))
    document = build(call.fields)
    document.add_heading(text, level=level)
    return call.saved(document, f"Heading '{text}' (level {level}) added to {call.name}")


def _paragraph(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    paragraph = document.add_paragraph(str(call.arg(TEXT_ARGS, "")))
    style = call.arg(("style", "style_name"))
    if isinstance(style, str) and style:
        try:
            paragraph.style = style
        except KeyError:  # python-docx knows no such style: Normal, and the server says so
            paragraph.style = document.styles["Normal"]
            return call.saved(document, f"Style '{style}' not found, paragraph added with default style to {call.name}")
        except ValueError as exc:  # a table or character style given for a paragraph
            return call.say(f"Failed to add paragraph: {exc}")
    return call.saved(document, f"Paragraph added to {call.name}")


def _table(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    try:
        rows, cols = int(call.arg(("rows", "num_rows"), 0)), int(call.arg(("cols", "columns", "num_cols"), 0))
    except (TypeError, ValueError) as exc:
        return call.say(f"Failed to add table: {exc}")
    check_table(max(rows, 0), max(cols, 0))
    document = build(call.fields)
    try:
        table = document.add_table(rows=rows, cols=cols)
        table.style = "Table Grid"
        data = call.arg(("data", "table_data", "values", "cells"))
        for i, row in enumerate(data if isinstance(data, list) else []):
            for j, text in enumerate(row[:cols] if isinstance(row, list) and i < rows else []):
                table.cell(i, j).text = str(text)
    except (ValueError, IndexError, TypeError) as exc:
        return call.say(f"Failed to add table: {exc}")
    return call.saved(document, f"Table ({rows}x{cols}) added to {call.name}")


def _page_break(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    document.add_page_break()
    return call.saved(document, f"Page break added to {call.name}.")


def _text(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    lines = [p.text for p in document.paragraphs]
    lines += [p.text for table in document.tables for row in table.rows for cell in row.cells for p in cell.paragraphs]
    return call.say("\n".join(lines))


def _index(call: Call) -> int | None:
    try:
        return int(call.arg(INDEX_ARGS))
    except (TypeError, ValueError):
        return None


def _get_paragraph(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    index = _index(call)
    if index is None or index < 0:
        return call.say("Invalid parameter: paragraph_index must be a non-negative integer")
    paragraphs = build(call.fields).paragraphs
    if index >= len(paragraphs):
        body: JSONDict = {"error": f"Invalid paragraph index: {index}. Document has {len(paragraphs)} paragraphs."}
    else:
        style = _style(paragraphs[index])
        body = {"index": index, "text": paragraphs[index].text, "style": style,
                "is_heading": style.startswith("Heading")}
    return call.say(json.dumps(body, indent=2))


def _style(paragraph: Paragraph) -> str:
    style = paragraph.style
    return str(style.name) if style is not None else "Normal"


def _clip(text: str, limit: int) -> str:
    return text[:limit] + ("..." if len(text) > limit else "")


def _outline(call: Call) -> Prediction:
    if call.fields is None:
        return call.say(json.dumps({"error": f"Document {call.name} does not exist"}, indent=2))
    document = build(call.fields)
    paragraphs = [{"index": i, "text": _clip(p.text, 100), "style": _style(p)}
                  for i, p in enumerate(document.paragraphs)]
    tables = []
    for i, table in enumerate(document.tables):
        grid = [[cell.text for cell in row.cells] for row in table.rows]
        preview = [[_clip(row[c], 20) if c < len(row) else "N/A" for c in range(min(3, len(table.columns)))]
                   for row in grid[:3]]
        tables.append({"index": i, "rows": len(table.rows), "columns": len(table.columns), "preview": preview})
    return call.say(json.dumps({"paragraphs": paragraphs, "tables": tables}, indent=2))


def _info(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    core = document.core_properties
    info = {"title": core.title or "", "author": core.author or "", "subject": core.subject or "",
            "keywords": core.keywords or "", "created": str(core.created) if core.created else "",
            "modified": str(core.modified) if core.modified else "", "last_modified_by": core.last_modified_by or "",
            "revision": core.revision or 0, "page_count": len(document.sections),
            "word_count": sum(len(p.text.split()) for p in document.paragraphs),
            "paragraph_count": len(document.paragraphs), "table_count": len(document.tables)}
    return call.say(json.dumps(info, indent=2))


def _cell_paragraphs(document: DocxDocument) -> list[tuple[str, Paragraph]]:
    return [(f"Table {t}, Row {r}, Column {c}", p) for t, table in enumerate(document.tables)
            for r, row in enumerate(table.rows) for c, cell in enumerate(row.cells) for p in cell.paragraphs]


def _find(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    query = call.arg(FIND_ARGS, "")
    if not isinstance(query, str) or not query:
        return call.say("Search text cannot be empty")
    match_case, whole_word = call.arg(("match_case",), True) is not False, call.arg(("whole_word",), False) is True
    document = build(call.fields)
    places: list[tuple[str, Any, Paragraph]] = [("paragraph_index", i, p) for i, p in enumerate(document.paragraphs)]
    places += [("location", where, p) for where, p in _cell_paragraphs(document)]
    occurrences = []
    for key, where, paragraph in places:
        text, wanted = (paragraph.text, query) if match_case else (paragraph.text.lower(), query.lower())
        if whole_word:
            positions = [i for i, word in enumerate(text.split()) if word == wanted]
        else:
            positions, start = [], 0
            while (found := text.find(wanted, start)) != -1:
                positions.append(found)
                start = found + len(wanted)
        occurrences += [{key: where, "position": pos, "context": _clip(paragraph.text, 100)} for pos in positions]
    body = {"query": query, "match_case": match_case, "whole_word": whole_word, "occurrences": occurrences,
            "total_count": len(occurrences)}
    return call.say(json.dumps(body, indent=2))


def _replace(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    old, new = str(call.arg(FIND_ARGS, "")), str(call.arg(REPLACE_ARGS, ""))
    document = build(call.fields)
    # A table of contents is regenerated, not edited; python-docx replaces run by run: a run counts once.
    runs = [run for paragraph in [*document.paragraphs, *(p for _, p in _cell_paragraphs(document))]
            if not _style(paragraph).startswith("TOC") and old in paragraph.text for run in paragraph.runs]
    check_growth([run.text for run in runs], old, new)
    count = 0
    for run in runs:
        if old in run.text:
            run.text = run.text.replace(old, new)
            count += 1
    if count == 0:
        return call.say(f"No occurrences of '{old}' found.")
    return call.saved(document, f"Replaced {count} occurrence(s) of '{old}' with '{new}'.")


def _paragraph_at(call: Call, document: DocxDocument) -> Paragraph | str:
    paragraphs, index = document.paragraphs, _index(call)
    if index is None or not 0 <= index < len(paragraphs):
        return f"Invalid paragraph index. Document has {len(paragraphs)} paragraphs (0-{len(paragraphs) - 1})."
    return paragraphs[index]


def _delete_paragraph(call: Call) -> Prediction:
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    paragraph = _paragraph_at(call, document)
    if isinstance(paragraph, str):
        return call.say(paragraph)
    element = paragraph._p  # python-docx has no paragraph deletion: the element leaves its parent
    element.getparent().remove(element)
    return call.saved(document, f"Paragraph at index {_index(call)} deleted successfully.")


def _format(call: Call) -> Prediction:
    """The text is split into runs around the range, as the server does; how it looks is not kept."""
    try:
        start, end = int(call.arg(("start_pos", "start"), 0)), int(call.arg(("end_pos", "end"), 0))
    except (TypeError, ValueError):
        return call.say("Invalid parameter: paragraph_index, start_pos, end_pos, and font_size must be integers")
    if call.fields is None:
        return call.missing()
    document = build(call.fields)
    paragraph = _paragraph_at(call, document)
    if isinstance(paragraph, str):
        return call.say(paragraph)
    text = paragraph.text
    if start < 0 or end > len(text) or start >= end:
        return call.say(f"Invalid text positions. Paragraph has {len(text)} characters.")
    for run in paragraph.runs:
        run.clear()
    for part in (text[:start], text[start:end], text[end:]):
        if part:
            paragraph.add_run(part)
    return call.saved(document, f"Text '{text[start:end]}' formatted successfully in paragraph {_index(call)}.")


def _copy(call: Call) -> Prediction:
    source = call.name
    if call.fields is None:
        return call.say(f"Failed to copy document: Source document {source} does not exist")
    target = call.arg(("destination_filename", "destination", "target", "new_filename", "output_filename"))
    if isinstance(target, str) and target:
        target = _docx_name(target)
    else:
        base, ext = posixpath.splitext(source)
        target = f"{base}_copy{ext}"
    key = normalise_path(target)
    if call.step.episode.ledger.get(COLLECTION, key) is None and \
            len(call.step.episode.ledger.items(COLLECTION)) >= MAX_DOCUMENTS:
        return call.say(f"Failed to copy document: the simulated workspace is limited to {MAX_DOCUMENTS} documents")
    fields = {**call.fields, "path": key}
    return call.say(f"Document copied to {target}", [Effect("create", COLLECTION, key, fields)])


def list_documents(step: Step) -> Prediction:
    directory = next((step.arguments[n] for n in ("directory", "folder", "path", "dir")
                      if isinstance(step.arguments.get(n), str) and step.arguments[n]), ".")
    folder = normalise_path(str(directory))
    if not _directory_exists(step, folder):
        return structured_text(step, f"Directory {directory} does not exist")
    found = [e for e in step.episode.ledger.items(COLLECTION)  # the record model's own entities are not documents
             if (posixpath.dirname(e.key) or ".") == folder and ("body" in e.fields or "paragraphs" in e.fields)]
    if not found:
        return structured_text(step, f"No Word documents found in {directory}")
    lines = [f"- {posixpath.basename(e.key)} ({size_kb(build(e.fields)):.2f} KB)\n" for e in found]
    return structured_text(step, f"Found {len(found)} Word documents in {directory}:\n" + "".join(lines))


OPS: dict[str, Callable[[Call], Prediction]] = {
    "create": _create, "heading": _heading, "paragraph": _paragraph, "table": _table, "page_break": _page_break,
    "text": _text, "get_paragraph": _get_paragraph, "outline": _outline, "info": _info, "find": _find,
    "replace": _replace, "delete_paragraph": _delete_paragraph, "format": _format, "copy": _copy,
}

__all__ = ["Call", "DOCUMENT_ARGS", "FIND_ARGS", "INDEX_ARGS", "OPS", "REPLACE_ARGS", "TARGET_ARGS", "TEXT_ARGS",
           "list_documents", "open_call"]
