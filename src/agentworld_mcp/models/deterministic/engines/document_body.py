"""A document's JSON form, and the python-docx Document rebuilt from it for one call.

Why JSON and not the .docx bytes. A saved .docx is about 36 KB of zipped XML even when
empty; as a ledger entity it would be rewritten whole on every change and unreadable in
a state dump or a world's ``seed:``. What the tools read and change is the body: its
paragraphs (style and runs: python-docx replaces text run by run, so the runs decide how
many replacements a find-and-replace counts) and its tables (cell texts), in order. So
the entity holds that, plus the core properties the tools report, and each call rebuilds
a real ``docx.Document`` from it (about 5 ms), lets python-docx do the work, and reads the
body back. Character formatting, images, custom styles, sections and comments are not
kept.

Nothing here touches the host's files: documents are built from python-docx's own
template in memory, and sizes are bounded (:data:`MAX_ELEMENTS`, :data:`MAX_CHARS`,
:data:`MAX_CELLS`).
"""

from __future__ import annotations

import io
from typing import Any

from ....errors import MissingExtraError

try:
    import docx
    from docx.document import Document as DocxDocument
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph
except ImportError as exc:  # the engines extra
    raise MissingExtraError("Document tools", "engines", "python-docx") from exc

JSONDict = dict[str, Any]

#: The collection that holds one entity per document, keyed by its normalised path.
COLLECTION = "documents"
#: Paragraphs and tables one document may hold.
MAX_ELEMENTS = 2000
#: Characters of text one document may hold (paragraphs and table cells together).
MAX_CHARS = 500_000
#: Cells one table may have.
MAX_CELLS = 2000
#: Documents one episode may hold.
MAX_DOCUMENTS = 200
#: Core properties a document reports; the rest come from python-docx's template.
PROPERTIES = ("title", "author", "subject", "keywords")


class TooLarge(Exception):
    """A change would make the document larger than the simulation keeps."""


def build(fields: JSONDict | None) -> DocxDocument:
    """A python-docx Document with the body and properties of ``fields`` (an empty one for None)."""
    document = docx.Document()
    fields = fields or {}
    for name in PROPERTIES:
        if isinstance(fields.get(name), str) and fields[name]:
            setattr(document.core_properties, name, fields[name])
    for element in body_of(fields):
        if "table" in element:
            _add_table(document, element)
        elif element.get("page_break"):
            document.add_page_break()
        else:
            paragraph = document.add_paragraph()
            _set_style(paragraph, element.get("style"))
            for text in element.get("runs") or []:
                paragraph.add_run(str(text))
    return document


def body_of(fields: JSONDict) -> list[JSONDict]:
    """The body of a stored document; a seeded one may list ``paragraphs`` (strings or {text, style}) and ``tables``."""
    body = fields.get("body")
    if isinstance(body, list):
        return [e for e in body if isinstance(e, dict)]
    elements: list[JSONDict] = []
    for paragraph in fields.get("paragraphs") or []:
        if isinstance(paragraph, dict):
            elements.append({"style": paragraph.get("style") or "Normal", "runs": [str(paragraph.get("text", ""))]})
        else:
            elements.append({"style": "Normal", "runs": [str(paragraph)]})
    for table in fields.get("tables") or []:
        rows = table.get("rows") if isinstance(table, dict) else table
        if isinstance(rows, list):
            elements.append({"table": [[str(c) for c in row] if isinstance(row, list) else [str(row)] for row in rows]})
    return elements


def _set_style(paragraph: Paragraph, style: Any) -> None:
    if isinstance(style, str) and style and style != "Normal":
        try:
            paragraph.style = style
        except (KeyError, ValueError):  # a style this template lacks: python-docx's Normal, as the server falls back
            pass


def _add_table(document: DocxDocument, element: JSONDict) -> None:
    rows = [r for r in element.get("table") or [] if isinstance(r, list)]
    cols = max((len(r) for r in rows), default=0)
    if not rows or not cols:
        return
    table = document.add_table(rows=len(rows), cols=cols)
    table.style = element.get("style") or "Table Grid"
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            if text != "":  # a cell never written has no run; python-docx's text setter would add one
                table.cell(i, j).text = str(text)


def fields_of(document: DocxDocument, path: str, before: JSONDict | None = None) -> JSONDict:
    """The JSON form of ``document`` (stored as the entity ``documents/<path>``); raises :class:`TooLarge`."""
    body: list[JSONDict] = []
    chars = 0
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            paragraph = Paragraph(child, document)
            runs = [run.text for run in paragraph.runs]
            chars += sum(map(len, runs))
            element: JSONDict = {"style": paragraph.style.name if paragraph.style is not None else "Normal",
                                 "runs": runs}
            if any(br.get(qn("w:type")) == "page" for br in child.iter(qn("w:br"))):
                element = {"style": element["style"], "runs": [""], "page_break": True}
            body.append(element)
        elif child.tag == qn("w:tbl"):
            table = Table(child, document)
            cells = [[cell.text for cell in row.cells] for row in table.rows]
            chars += sum(len(c) for row in cells for c in row)
            body.append({"table": cells, "style": table.style.name if table.style is not None else "Table Grid"})
    if len(body) > MAX_ELEMENTS:
        raise TooLarge(f"the simulated document is limited to {MAX_ELEMENTS} paragraphs and tables")
    if chars > MAX_CHARS:
        raise TooLarge(f"the simulated document is limited to {MAX_CHARS} characters")
    fields: JSONDict = {"path": path}
    for name in PROPERTIES:
        value = getattr(document.core_properties, name) or (before or {}).get(name)
        if value:
            fields[name] = value
    fields["body"] = body
    return fields


def size_kb(document: DocxDocument) -> float:
    """The size the document would have saved as a .docx, in KB (saved to memory, never to disk)."""
    buffer = io.BytesIO()
    document.save(buffer)
    return len(buffer.getvalue()) / 1024


def check_table(rows: int, cols: int) -> None:
    """Refuse a table larger than :data:`MAX_CELLS` before python-docx builds it (each bound alone too: 10**9 x 0)."""
    if max(rows, 0) * max(cols, 0) > MAX_CELLS or rows > MAX_CELLS or cols > MAX_CELLS:
        raise TooLarge(f"the simulated document is limited to {MAX_CELLS} cells per table")


def check_growth(texts: list[str], old: str, new: str) -> None:
    """Refuse a replacement that would take the document past :data:`MAX_CHARS`, before making it."""
    grown = sum(len(t) + t.count(old) * (len(new) - len(old)) for t in texts if old in t)
    if grown > MAX_CHARS:
        raise TooLarge(f"the simulated document is limited to {MAX_CHARS} characters")


__all__ = ["COLLECTION", "MAX_CELLS", "MAX_CHARS", "MAX_DOCUMENTS", "MAX_ELEMENTS", "TooLarge", "body_of", "build",
           "check_growth", "check_table", "fields_of", "size_kb"]
