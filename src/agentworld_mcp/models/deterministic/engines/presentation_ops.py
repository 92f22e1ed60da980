"""The presentation tools' operations, each done with python-pptx and worded as the reference server words it.

A call names its presentation by id (or means the current one); :class:`Call` finds it,
rebuilds it (:func:`.presentation_deck.build`), changes it with python-pptx's own API
and stores the new JSON form with one effect; reads return no effect. Failures are
answered as the catalog allows: in band (``{"error": ...}``) where a tool answers a free
object, as the reference server does, else as a tool error with the same sentence.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ....state.ledger import Effect
from ....world.roles import normalise_path
from ...base import Prediction, Step
from . import presentation_read as read
from .presentation_deck import (COLLECTION, CURRENT_KEY, FILES, MAX_PRESENTATIONS, PROPERTIES, SESSION, TooLarge,
                                build, check_table, fields_of, is_deck)

from pptx.presentation import Presentation  # noqa: E402  # after .presentation_deck: it names the missing extra
from pptx.slide import Slide  # noqa: E402
from pptx.util import Inches  # noqa: E402

JSONDict = dict[str, Any]

PRESENTATION_ARGS = ("presentation_id", "deck_id", "presentation", "deck", "presentation_name", "id")
SLIDE_ARGS = ("slide_index", "slide_idx", "slide", "slide_number", "index")
PLACEHOLDER_ARGS = ("placeholder_idx", "placeholder_index", "placeholder", "idx")
PATH_ARGS = ("file_path", "path", "filename", "file_name", "pptx_path", "output_path", "file")
LAYOUT_ARGS = ("layout_index", "layout_idx", "layout")
TEXT_ARGS = ("text", "content", "value")
BULLET_ARGS = ("bullet_points", "bullets", "points", "items", "lines")
NO_PRESENTATION = "No presentation is currently loaded or the specified ID is invalid"


def snake(name: str) -> str:
    """An argument's name in snake case: ``slideIndex`` and ``SlideIndex`` are ``slide_index``."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).replace("-", "_").lower()


@dataclass
class Call:
    """One call: the step, how failures are answered, and the presentation it names (None: none such)."""

    step: Step
    in_band: bool  # failures answered as ``{"error": ...}``
    switches: bool  # the catalog has a tool that chooses the current presentation
    ident: str | None = None
    fields: JSONDict | None = None

    def arg(self, names: tuple[str, ...], default: Any = None) -> Any:
        """The first argument of ``names`` given (``slideIndex`` is ``slide_index``), else the first one's
        declared default, else ``default``."""
        given = {snake(k): v for k, v in self.step.arguments.items() if v is not None}
        found = next((given[n] for n in names if n in given), None)
        if found is not None:
            return found
        props = {snake(k): v for k, v in (self.step.tool.input_schema.get("properties") or {}).items()}
        declared = next((props[n].get("default") for n in names if isinstance(props.get(n), dict)), None)
        return declared if declared is not None else default

    def answer(self, body: JSONDict, effects: list[Effect] | None = None) -> Prediction:
        return Prediction(body, effects=effects or [])

    def fail(self, message: str) -> Prediction:
        return Prediction({"error": message}) if self.in_band else Prediction(message, is_error=True)

    def saved(self, deck: Presentation, body: JSONDict) -> Prediction:
        """``body``, with the changed presentation stored."""
        assert self.ident is not None
        return self.answer(body, [Effect("create", COLLECTION, self.ident, fields_of(deck, self.ident))])


def current(step: Step) -> str | None:
    entity = step.episode.ledger.get(SESSION, CURRENT_KEY)
    value = entity.fields.get("presentation") if entity is not None else None
    return value if isinstance(value, str) else None


def loaded(step: Step) -> list[tuple[str, JSONDict]]:
    return [(e.key, e.fields) for e in step.episode.ledger.items(COLLECTION) if is_deck(e.fields)]


def open_call(step: Step, in_band: bool, switches: bool) -> Call:
    """The call, with the presentation its id argument names, or the current one when it names none."""
    call = Call(step, in_band, switches)
    named = call.arg(PRESENTATION_ARGS)
    ident = str(named) if isinstance(named, (str, int)) and not isinstance(named, bool) else current(step)
    entity = step.episode.ledger.get(COLLECTION, ident) if ident is not None else None
    if entity is not None and is_deck(entity.fields):
        call.ident, call.fields = ident, dict(entity.fields)
    return call


def _int(value: Any) -> int | None:
    try:
        return int(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _slide(call: Call, deck: Presentation) -> tuple[int, Slide] | str:
    index, count = _int(call.arg(SLIDE_ARGS)), len(deck.slides)
    if index is None or not 0 <= index < count:
        return f"Invalid slide index: {call.arg(SLIDE_ARGS)}. Available slides: 0-{count - 1}"
    return index, deck.slides[index]


def _made_current(call: Call, ident: str) -> list[Effect]:
    """Where the catalog lets the agent choose the current presentation, only that choice makes one current (as
    the reference server keeps it); elsewhere the latest created or opened presentation is the current one."""
    return [] if call.switches else [Effect("create", SESSION, CURRENT_KEY, {"presentation": ident})]


def _new_ident(call: Call) -> str:
    given = call.arg(("id", *PRESENTATION_ARGS, "name"))
    return str(given) if isinstance(given, (str, int)) and not isinstance(given, bool) and str(given) \
        else f"presentation_{len(loaded(call.step)) + 1}"


def _room(call: Call, ident: str) -> str | None:
    if call.step.episode.ledger.get(COLLECTION, ident) is None and len(loaded(call.step)) >= MAX_PRESENTATIONS:
        return f"the simulated workspace is limited to {MAX_PRESENTATIONS} presentations"
    return None


# -- presentations -----------------------------------------------------------------------------------


def _create(call: Call) -> Prediction:
    ident = _new_ident(call)
    if (full := _room(call, ident)) is not None:
        return call.fail(f"Failed to create presentation: {full}")
    fields = fields_of(build(None), ident)
    return call.answer({"presentation_id": ident, "message": f"Created new presentation with ID: {ident}",
                        "slide_count": 0},
                       [Effect("create", COLLECTION, ident, fields), *_made_current(call, ident)])


def _open(call: Call) -> Prediction:
    path = call.arg(PATH_ARGS)
    saved = call.step.episode.ledger.get(FILES, normalise_path(path)) if isinstance(path, str) and path else None
    if saved is None or not is_deck(saved.fields):
        return call.fail(f"File not found: {path}")
    ident = _new_ident(call)
    if (full := _room(call, ident)) is not None:
        return call.fail(f"Failed to open presentation: {full}")
    fields = {**{k: v for k, v in saved.fields.items() if k != "path"}, "id": ident}
    return call.answer({"presentation_id": ident, "message": f"Opened presentation from {path} with ID: {ident}",
                        "slide_count": len(fields["slides"])},
                       [Effect("create", COLLECTION, ident, fields), *_made_current(call, ident)])


def _save(call: Call) -> Prediction:
    if call.fields is None:
        return call.fail(NO_PRESENTATION)
    path = call.arg(PATH_ARGS)
    if not isinstance(path, str) or not path:
        return call.fail(f"Failed to save presentation: [Errno 2] No such file or directory: '{path or ''}'")
    key, folder = normalise_path(path), posixpath.dirname(normalise_path(path))
    files = call.step.episode.ledger.items(FILES)
    if folder not in ("", ".") and not any(e.key.startswith(folder + "/") for e in files):
        return call.fail(f"Failed to save presentation: [Errno 2] No such file or directory: '{path}'")
    if call.step.episode.ledger.get(FILES, key) is None and len(files) >= MAX_PRESENTATIONS:
        return call.fail(f"Failed to save presentation: the simulated workspace is limited to {MAX_PRESENTATIONS} files")
    stored = {**{k: v for k, v in call.fields.items() if k != "id"}, "path": key}
    return call.answer({"message": f"Presentation saved to {path}", "file_path": path},
                       [Effect("create", FILES, key, stored)])


def _info(call: Call) -> Prediction:
    if call.fields is None or call.ident is None:
        return call.fail(NO_PRESENTATION)
    return call.answer({**read.deck_info(build(call.fields)), "presentation_id": call.ident})


def _properties(call: Call) -> Prediction:
    if call.fields is None:
        return call.fail(NO_PRESENTATION)
    deck = build(call.fields)
    for name in PROPERTIES:
        value = call.arg((name,))
        if value is not None:
            setattr(deck.core_properties, name, str(value))
    return call.saved(deck, {"message": "Core properties updated successfully"})


def _list(call: Call) -> Prediction:
    now = current(call.step)
    decks = [{"id": ident, "slide_count": len(fields["slides"]), "is_current": ident == now}
             for ident, fields in loaded(call.step)]
    return call.answer({"presentations": decks, "current_presentation_id": now, "total_presentations": len(decks)})


def _switch(call: Call) -> Prediction:
    wanted = call.arg(PRESENTATION_ARGS)
    if call.fields is None or call.ident != wanted:
        names = [ident for ident, _ in loaded(call.step)]
        return call.fail(f"Presentation '{wanted}' not found. Available presentations: {names}")
    before = current(call.step)
    return call.answer({"message": f"Switched from presentation '{before}' to '{wanted}'",
                        "previous_presentation_id": before, "current_presentation_id": wanted},
                       [Effect("create", SESSION, CURRENT_KEY, {"presentation": wanted})])


# -- slides ------------------------------------------------------------------------------------------


def _add_slide(call: Call) -> Prediction:
    if call.fields is None:
        return call.fail(NO_PRESENTATION)
    deck = build(call.fields)
    layout, count = _int(call.arg(LAYOUT_ARGS, 1)), len(deck.slide_layouts)
    if layout is None or not 0 <= layout < count:
        return call.fail(f"Invalid layout index: {call.arg(LAYOUT_ARGS)}. Available layouts: 0-{count - 1}")
    slide = deck.slides.add_slide(deck.slide_layouts[layout])
    title = call.arg(("title", "slide_title"))
    if title and slide.shapes.title is not None:
        slide.shapes.title.text = str(title)
    index = len(deck.slides) - 1
    return call.saved(deck, {"message": f"Added slide {index} with layout {layout}", "slide_index": index,
                             "layout_name": deck.slide_layouts[layout].name})


def _reading(call: Call, render: Callable[[Slide, int], JSONDict]) -> Prediction:
    if call.fields is None:
        return call.fail(NO_PRESENTATION)
    found = _slide(call, build(call.fields))
    if isinstance(found, str):
        return call.fail(found)
    index, slide = found
    return call.answer(render(slide, index))


def _slide_info(call: Call) -> Prediction:
    return _reading(call, read.slide_info)


def _slide_text(call: Call) -> Prediction:
    return _reading(call, lambda slide, index: {**read.slide_text(slide), "slide_index": index})


def _deck_text(call: Call) -> Prediction:
    if call.fields is None or call.ident is None:
        return call.fail(NO_PRESENTATION)
    with_info = call.arg(("include_slide_info",), True) is not False
    return call.answer(read.deck_text(build(call.fields), call.ident, with_info))


def _on_slide(call: Call, what: str, change: Callable[[Presentation, int, Slide], JSONDict]) -> Prediction:
    """A change to one slide; python-pptx's own failure (a placeholder the slide lacks) reported as the server does."""
    if call.fields is None:
        return call.fail(NO_PRESENTATION)
    deck = build(call.fields)
    found = _slide(call, deck)
    if isinstance(found, str):
        return call.fail(found)
    index, slide = found
    try:
        body = change(deck, index, slide)
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        return call.fail(f"Failed to {what}: {exc}")
    return call.saved(deck, body)


def _populate(call: Call) -> Prediction:
    idx = call.arg(PLACEHOLDER_ARGS)

    def change(_deck: Presentation, index: int, slide: Slide) -> JSONDict:
        slide.placeholders[idx].text_frame.text = str(call.arg(TEXT_ARGS, ""))
        return {"message": f"Populated placeholder {idx} on slide {index}"}

    return _on_slide(call, "populate placeholder", change)


def _bullets(call: Call) -> Prediction:
    idx, points = call.arg(PLACEHOLDER_ARGS), call.arg(BULLET_ARGS, [])
    points = points if isinstance(points, list) else [points]

    def change(_deck: Presentation, index: int, slide: Slide) -> JSONDict:
        frame = slide.placeholders[idx].text_frame
        frame.clear()  # one empty paragraph stays first, as python-pptx clears
        for point in points:
            paragraph = frame.add_paragraph()
            paragraph.text, paragraph.level = str(point), 0
        return {"message": f"Added {len(points)} bullet points to placeholder {idx} on slide {index}"}

    return _on_slide(call, "add bullet points", change)


def _inches(call: Call, name: str, default: float) -> float:
    value = call.arg((name,), default)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _textbox(call: Call) -> Prediction | None:
    operation = call.arg(("operation", "action"), "add")
    if operation != "add":
        return None  # formatting and fitting text is not modelled: the record model answers
    text = str(call.arg(TEXT_ARGS, ""))

    def change(_deck: Presentation, index: int, slide: Slide) -> JSONDict:
        box = slide.shapes.add_textbox(*(Inches(_inches(call, n, d)) for n, d in
                                         (("left", 1.0), ("top", 1.0), ("width", 4.0), ("height", 2.0))))
        box.text_frame.text = text
        return {"message": f"Added text box to slide {index}", "shape_index": len(slide.shapes) - 1, "text": text}

    return _on_slide(call, "add text", change)


def _table(call: Call) -> Prediction:
    rows, cols = _int(call.arg(("rows", "num_rows"))), _int(call.arg(("cols", "columns", "num_cols")))
    box = {n: _inches(call, n, 0.0) for n in ("left", "top", "width", "height")}
    for name, value, rule in (("rows", rows, "must be a positive integer"), ("cols", cols, "must be a positive integer"),
                              ("left", box["left"], "must be non-negative"), ("top", box["top"], "must be non-negative"),
                              ("width", box["width"], "must be positive"), ("height", box["height"], "must be positive")):
        if value is None or value < 0 or (value == 0 and "positive" in rule):
            return call.fail(f"Parameter '{name}': {rule}")
    assert rows is not None and cols is not None
    data = call.arg(("data", "table_data", "values", "cells"))
    if isinstance(data, list) and data:
        if len(data) != rows:
            return call.fail(f"Data has {len(data)} rows but table should have {rows} rows")
        for i, row in enumerate(data):
            if not isinstance(row, list) or len(row) != cols:
                return call.fail(f"Row {i} has {len(row) if isinstance(row, list) else 1} columns "
                                 f"but table should have {cols} columns")
    check_table(rows, cols)

    def change(_deck: Presentation, index: int, slide: Slide) -> JSONDict:
        table = slide.shapes.add_table(rows, cols, *(Inches(box[n]) for n in ("left", "top", "width", "height"))).table
        for r, row in enumerate(data if isinstance(data, list) else []):
            for c, value in enumerate(row):
                table.cell(r, c).text = str(value)
        return {"message": f"Added {rows}x{cols} table to slide {index}", "shape_index": len(slide.shapes) - 1,
                "rows": rows, "cols": cols}

    return _on_slide(call, "add table", change)


OPS: dict[str, Callable[[Call], Prediction | None]] = {
    "create": _create, "open": _open, "save": _save, "info": _info, "properties": _properties, "list": _list,
    "switch": _switch, "add_slide": _add_slide, "slide_info": _slide_info, "slide_text": _slide_text,
    "deck_text": _deck_text, "populate": _populate, "bullets": _bullets, "textbox": _textbox, "table": _table,
}


def run(op: str, call: Call) -> Prediction | None:
    try:
        return OPS[op](call)
    except TooLarge as exc:
        return call.fail(f"Failed to modify presentation: {exc}")


__all__ = ["Call", "OPS", "snake", "PATH_ARGS", "PLACEHOLDER_ARGS", "PRESENTATION_ARGS", "SLIDE_ARGS", "current",
           "open_call", "run"]
