"""What a presentation reports about itself, read from the python-pptx Presentation rebuilt for the call.

Every figure is python-pptx's own: layout names and placeholder counts of the default
template, the slide size in EMU, shape ids, names, types and geometry, the template's
core properties. The keys are those of the reference presentation server; where it
reads text the way python-pptx lets it (a text box counts in the combined text but, as
its placeholder check raises for a shape that is not one, in no list), so does this.
"""

from __future__ import annotations

from typing import Any

from . import presentation_deck  # noqa: F401  # first: without python-pptx it names the missing extra

from pptx.presentation import Presentation  # noqa: E402
from pptx.slide import Slide  # noqa: E402

JSONDict = dict[str, Any]


def layouts(deck: Presentation) -> list[JSONDict]:
    return [{"index": i, "name": layout.name, "placeholder_count": len(layout.placeholders)}
            for i, layout in enumerate(deck.slide_layouts)]


def core_properties(deck: Presentation) -> JSONDict:
    core = deck.core_properties
    return {"title": core.title, "subject": core.subject, "author": core.author, "keywords": core.keywords,
            "comments": core.comments, "created": core.created.isoformat() if core.created else None,
            "last_modified_by": core.last_modified_by,
            "modified": core.modified.isoformat() if core.modified else None}


def deck_info(deck: Presentation) -> JSONDict:
    found = layouts(deck)
    return {"slide_count": len(deck.slides), "layout_count": len(found), "slide_layouts": found,
            "core_properties": core_properties(deck), "slide_width": deck.slide_width,
            "slide_height": deck.slide_height}


def slide_info(slide: Slide, index: int) -> JSONDict:
    placeholders = [{"idx": p.placeholder_format.idx, "type": str(p.placeholder_format.type), "name": p.name}
                    for p in slide.placeholders]
    shapes = [{"index": i, "name": s.name, "shape_type": str(s.shape_type), "left": s.left, "top": s.top,
               "width": s.width, "height": s.height} for i, s in enumerate(slide.shapes)]
    return {"slide_index": index, "layout_name": slide.slide_layout.name, "placeholder_count": len(placeholders),
            "placeholders": placeholders, "shape_count": len(shapes), "shapes": shapes}


def _table_rows(shape: Any, texts: list[str]) -> list[JSONDict]:
    rows = []
    for r, row in enumerate(shape.table.rows):
        cells = [t for t in (cell.text_frame.text.strip() for cell in row.cells) if t]
        texts.extend(cells)
        if cells:
            rows.append({"row": r, "cells": cells})
    return rows


def slide_text(slide: Slide) -> JSONDict:
    """The text of one slide: its title, placeholders, other text shapes and tables, and all of it joined."""
    content: JSONDict = {"slide_title": "", "placeholders": [], "text_shapes": [], "table_text": [],
                         "all_text_combined": ""}
    texts: list[str] = []
    title = slide.shapes.title
    if title is not None and title.text_frame.text.strip():
        content["slide_title"] = title.text_frame.text.strip()
        texts.append(content["slide_title"])
    for i, shape in enumerate(slide.shapes):
        if getattr(shape, "has_text_frame", False):
            text = shape.text_frame.text.strip()  # type: ignore[attr-defined]
            if not text:
                continue
            texts.append(text)
            if shape.is_placeholder:
                content["placeholders"].append({
                    "shape_index": i, "shape_name": shape.name, "shape_type": str(shape.shape_type), "text": text,
                    "placeholder_type": str(shape.placeholder_format.type),
                    "placeholder_idx": shape.placeholder_format.idx})
            # a text shape that is no placeholder: python-pptx raises on its placeholder format, and the
            # reference server skips the shape there, after its text joined the combined text
        elif getattr(shape, "has_table", False):
            rows = _table_rows(shape, texts)
            if rows:
                content["table_text"].append({"shape_index": i, "shape_name": shape.name, "table_content": rows})
    content["all_text_combined"] = "\n".join(texts)
    return {"success": True, "text_content": content,
            "total_text_shapes": len(content["placeholders"]) + len(content["text_shapes"]),
            "has_title": bool(content["slide_title"]), "has_tables": bool(content["table_text"])}


def deck_text(deck: Presentation, ident: str, with_info: bool) -> JSONDict:
    slides, combined = [], []
    shapes = titled = tabled = 0
    for index, slide in enumerate(deck.slides):
        found = slide_text(slide)
        entry: JSONDict = {"slide_index": index, "text_content": found["text_content"]}
        if with_info:
            entry.update(layout_name=slide.slide_layout.name, total_text_shapes=found["total_text_shapes"],
                         has_title=found["has_title"], has_tables=found["has_tables"])
        slides.append(entry)
        shapes += found["total_text_shapes"]
        titled += found["has_title"]
        tabled += found["has_tables"]
        if found["text_content"]["all_text_combined"]:
            combined += [f"=== SLIDE {index + 1} ===", found["text_content"]["all_text_combined"], ""]
    return {"success": True, "presentation_id": ident, "total_slides": len(deck.slides),
            "slides_with_text": len(slides), "total_text_shapes": shapes, "slides_with_titles": titled,
            "slides_with_tables": tabled, "slides_text": slides, "all_presentation_text_combined": "\n".join(combined)}


__all__ = ["core_properties", "deck_info", "deck_text", "layouts", "slide_info", "slide_text"]
