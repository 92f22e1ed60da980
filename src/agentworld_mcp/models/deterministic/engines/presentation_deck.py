"""A presentation's JSON form, and the python-pptx Presentation rebuilt from it for one call.

Why JSON and not the .pptx bytes. A saved .pptx is about 28 KB of zipped XML even when
empty; as a ledger entity it would be rewritten whole on every change and unreadable in a
state dump or a world's ``seed:``. What the tools read and change is each slide's layout
and its shapes in tree order: placeholders (their index and text), text boxes, auto
shapes and tables (their geometry in EMU and text). The entity holds that plus the core
properties, and each call rebuilds a real ``pptx.Presentation`` from python-pptx's own
default template (a few ms): python-pptx then names the shapes, numbers their ids, clones
the layout's placeholders and reports the slide size as a real file would. Fonts, colours,
backgrounds, pictures and charts are not kept.

Nothing here touches the host's files, and sizes are bounded (:data:`MAX_SLIDES`,
:data:`MAX_SHAPES`, :data:`MAX_CHARS`, :data:`MAX_CELLS`).
"""

from __future__ import annotations

from typing import Any

from ....errors import MissingExtraError

try:
    from pptx import Presentation as new_presentation
    from pptx.presentation import Presentation
    from pptx.shapes.autoshape import Shape
    from pptx.shapes.base import BaseShape
    from pptx.shapes.graphfrm import GraphicFrame
    from pptx.slide import Slide
    from pptx.util import Emu
except ImportError as exc:  # the engines extra
    raise MissingExtraError("Presentation tools", "engines", "python-pptx") from exc

JSONDict = dict[str, Any]

#: The collection of loaded presentations, keyed by the presentation's id.
COLLECTION = "presentations"
#: The collection of presentations saved to a file, keyed by the file's normalised path.
FILES = "presentation_files"
#: The collection holding which presentation is the current one (one entity, :data:`CURRENT_KEY`).
SESSION = "presentation_session"
CURRENT_KEY = "current"
#: Core properties a presentation keeps; the others are the template's.
PROPERTIES = ("title", "subject", "author", "keywords", "comments")
MAX_SLIDES = 500
MAX_SHAPES = 200  # per slide
MAX_CHARS = 500_000  # per presentation
MAX_CELLS = 1000  # per table
MAX_PRESENTATIONS = 100  # loaded ones, and as many saved files


class TooLarge(Exception):
    """A change would make the presentation larger than the simulation keeps."""


def is_deck(fields: JSONDict | None) -> bool:
    """Whether stored ``fields`` are a presentation of this engine (another model's entity is not)."""
    return isinstance(fields, dict) and isinstance(fields.get("slides"), list)


def build(fields: JSONDict | None) -> Presentation:
    """A python-pptx Presentation with the properties and slides of ``fields`` (an empty one for None)."""
    deck = new_presentation()
    fields = fields or {}
    stored_properties = fields.get("properties")
    properties: JSONDict = stored_properties if isinstance(stored_properties, dict) else {}
    for name in PROPERTIES:
        if isinstance(properties.get(name), str):
            setattr(deck.core_properties, name, properties[name])
    layouts = deck.slide_layouts
    for stored in fields.get("slides") or []:
        if not isinstance(stored, dict):
            continue
        layout = stored.get("layout", 1)
        slide = deck.slides.add_slide(layouts[layout if isinstance(layout, int) and 0 <= layout < len(layouts) else 1])
        for shape in stored.get("shapes") or []:
            if isinstance(shape, dict):
                _add_shape(slide, shape)
    return deck


def _paragraphs(shape: JSONDict) -> str | None:
    paragraphs = shape.get("paragraphs")
    if isinstance(paragraphs, str):
        return paragraphs
    if isinstance(paragraphs, list) and any(p != "" for p in paragraphs):
        return "\n".join(str(p) for p in paragraphs)
    return None


def _box(shape: JSONDict, key: str) -> tuple[Emu, Emu, Emu, Emu]:
    box = shape.get(key)
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int) for v in box)):
        box = [914400, 914400, 3657600, 1828800]  # one inch in, four by two: a text box's usual size
    return Emu(box[0]), Emu(box[1]), Emu(box[2]), Emu(box[3])


def _add_shape(slide: Slide, shape: JSONDict) -> None:
    text = _paragraphs(shape)
    if "placeholder" in shape:
        idx = shape["placeholder"]
        try:
            placeholder = slide.placeholders[idx]
        except (KeyError, TypeError):  # a seeded index the layout lacks
            return
        if text is not None:
            placeholder.text_frame.text = text
    elif "textbox" in shape:
        box = slide.shapes.add_textbox(*_box(shape, "textbox"))
        box.text_frame.text = text or ""
    elif "autoshape" in shape:
        kind = shape["autoshape"]
        auto = slide.shapes.add_shape(kind if isinstance(kind, int) else 1, *_box(shape, "box"))  # type: ignore[arg-type]
        if text is not None:
            auto.text_frame.text = text
    elif "table" in shape:
        rows = [r for r in shape["table"] if isinstance(r, list)] if isinstance(shape["table"], list) else []
        cols = max((len(r) for r in rows), default=0)
        if rows and cols:
            table = slide.shapes.add_table(len(rows), cols, *_box(shape, "box")).table
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    if cell != "":
                        table.cell(i, j).text = str(cell)


def _geometry(shape: BaseShape) -> list[int]:
    return [int(shape.left or 0), int(shape.top or 0), int(shape.width or 0), int(shape.height or 0)]


def _texts(shape: BaseShape) -> list[str]:
    return [p.text for p in shape.text_frame.paragraphs] if isinstance(shape, Shape) else []


def shape_form(shape: BaseShape) -> JSONDict | None:
    """One shape's JSON form (None: a kind this engine does not keep)."""
    if shape.is_placeholder:
        return {"placeholder": shape.placeholder_format.idx, "paragraphs": _texts(shape)}
    if isinstance(shape, GraphicFrame) and shape.has_table:
        return {"table": [[cell.text for cell in row.cells] for row in shape.table.rows], "box": _geometry(shape)}
    if isinstance(shape, Shape) and shape.shape_type is not None and str(shape.shape_type).startswith("TEXT_BOX"):
        return {"textbox": _geometry(shape), "paragraphs": _texts(shape)}
    if isinstance(shape, Shape) and shape.shape_type is not None and str(shape.shape_type).startswith("AUTO_SHAPE"):
        return {"autoshape": int(shape.auto_shape_type), "box": _geometry(shape), "paragraphs": _texts(shape)}
    return None


def fields_of(deck: Presentation, ident: str) -> JSONDict:
    """The JSON form of ``deck`` (stored as ``presentations/<ident>``); raises :class:`TooLarge`."""
    if len(deck.slides) > MAX_SLIDES:
        raise TooLarge(f"the simulated presentation is limited to {MAX_SLIDES} slides")
    layouts = list(deck.slide_layouts)
    slides: list[JSONDict] = []
    chars = 0
    for slide in deck.slides:
        if len(slide.shapes) > MAX_SHAPES:
            raise TooLarge(f"the simulated presentation is limited to {MAX_SHAPES} shapes per slide")
        shapes = [form for form in map(shape_form, slide.shapes) if form is not None]
        chars += sum(len(str(s.get("paragraphs", s.get("table", "")))) for s in shapes)
        slides.append({"layout": layouts.index(slide.slide_layout), "shapes": shapes})
    if chars > MAX_CHARS:
        raise TooLarge(f"the simulated presentation is limited to {MAX_CHARS} characters")
    core = deck.core_properties
    properties = {name: getattr(core, name) for name in PROPERTIES if getattr(core, name)}
    return {"id": ident, "properties": properties, "slides": slides}


def check_table(rows: int, cols: int) -> None:
    """Refuse a table larger than :data:`MAX_CELLS` before python-pptx builds it."""
    if rows * cols > MAX_CELLS or rows > MAX_CELLS or cols > MAX_CELLS:
        raise TooLarge(f"the simulated presentation is limited to {MAX_CELLS} cells per table")


__all__ = ["COLLECTION", "CURRENT_KEY", "FILES", "MAX_PRESENTATIONS", "PROPERTIES", "SESSION", "TooLarge", "build",
           "check_table", "fields_of", "is_deck", "shape_form"]
