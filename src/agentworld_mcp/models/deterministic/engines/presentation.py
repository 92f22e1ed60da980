"""Slide presentations held by python-pptx: slides with layouts, placeholders, bullet lists, text boxes, tables.

What selects it. A catalog whose tool names speak of slides and of presentations (or
decks, or .pptx), or whose descriptions name the ``.pptx`` format; in such a catalog each
tool whose name says what it does to a presentation (create, open, save, list, switch;
get its info or text; set its core properties; add a slide; get a slide's info or text;
populate a placeholder; add bullet points, a text box or a table) is answered here.
Other tools of the catalog (templates, images, charts, themes, fonts, transitions) are
left to the record model.

What it does. Each loaded presentation is one entity of the ``presentations`` collection,
keyed by its id (its JSON form, :mod:`.presentation_deck`); a presentation saved to a file
is one entity of ``presentation_files``, keyed by the path, that opening loads under a new
id; which presentation is current is one entity of ``presentation_session``. A call names
its presentation by id or means the current one, rebuilds it in python-pptx, does what the
tool says with python-pptx's own API and returns the new form as an effect. Answers carry
the reference presentation server's keys and sentences; failures (an unknown
presentation, a slide or layout index out of range, a placeholder the slide lacks) are
answered in band as ``{"error": ...}`` where the tool answers a free object, else as tool
errors.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from ..wrapping import wrapped_schema
from .presentation_ops import PATH_ARGS, PLACEHOLDER_ARGS, PRESENTATION_ARGS, SLIDE_ARGS, open_call, run, snake

JSONDict = dict[str, Any]

_DECK = {"presentation", "presentations", "deck", "decks", "pptx", "slideshow", "slideshows"}
_SLIDE = {"slide", "slides"}
_ADD = {"add", "insert", "append", "create", "new"}
_READ = {"get", "read", "extract", "fetch", "show"}
#: Things on a slide this engine does not keep: tools about them are left to the record model.
_OTHER_PARTS = {"template", "templates", "image", "images", "picture", "pictures", "chart", "charts", "theme",
                "design", "font", "fonts", "transition", "transitions", "master", "masters", "hyperlink",
                "hyperlinks", "connector", "effects", "notes", "comment", "comments", "video", "audio"}


def _tokens(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t}


def _has(props: dict[str, Any], names: tuple[str, ...]) -> bool:
    return any(n in props for n in names)  # ``props`` named in snake case


def operation_of(name: str, props: dict[str, Any]) -> str | None:
    """What the tool ``name`` with arguments ``props`` does to a presentation (None: nothing modelled here)."""
    words, props = _tokens(name), {snake(k): v for k, v in props.items()}
    if words & _OTHER_PARTS:
        return None
    deck, slide, text = bool(words & _DECK), bool(words & _SLIDE), "text" in words
    slide_arg = _has(props, tuple(a for a in SLIDE_ARGS if a != "index")) or (slide and "index" in props)
    rules: list[tuple[str, bool]] = [
        ("list", "list" in words and bool(words & {"presentations", "decks"})),
        ("switch", bool(words & {"switch", "select", "activate"}) and deck),
        ("create", bool(words & {"create", "new"}) and deck and not slide),
        ("open", bool(words & {"open", "load"}) and deck and _has(props, PATH_ARGS)),
        ("save", "save" in words and _has(props, PATH_ARGS)),
        ("properties", bool(words & {"properties", "metadata"}) and bool(words & {"set", "update"})),
        ("info", deck and bool(words & {"info", "information", "details", "summary"}) and not slide_arg),
        ("bullets", bool(words & {"bullet", "bullets"}) and _has(props, PLACEHOLDER_ARGS)),
        ("populate", "placeholder" in words and bool(words & {"populate", "fill", "set", "update"})
         and _has(props, PLACEHOLDER_ARGS)),
        ("table", "table" in words and bool(words & _ADD) and "rows" in props and slide_arg),
        ("add_slide", slide and bool(words & _ADD) and not text and "table" not in words
         and not _has(props, PLACEHOLDER_ARGS)),
        ("slide_text", text and bool(words & _READ) and slide_arg),
        ("deck_text", text and bool(words & _READ) and deck),
        ("slide_info", slide and bool(words & (_READ | {"info", "information", "details", "describe"})) and slide_arg),
        ("textbox", (text or "textbox" in words) and bool(words & (_ADD | {"manage"})) and slide_arg
         and "text" in props and "left" in props),
    ]
    return next((op for op, applies in rules if applies), None)


def operation(tool: ToolSpec) -> str | None:
    props = tool.input_schema.get("properties")
    return operation_of(tool.name, props if isinstance(props, dict) else {})


def _definitions(world: World) -> list[JSONDict]:
    return [t for t in world.tools if isinstance(t, dict)]


def is_presentation_catalog(world: World) -> bool:
    """Tools about slides and presentations (or decks), or descriptions naming .pptx: a presentation catalog."""
    names = set().union(*(_tokens(str(t.get("name", ""))) for t in _definitions(world))) if world.tools else set()
    if names & _SLIDE and names & _DECK:
        return True
    return any(".pptx" in json.dumps(t.get("description") or "") for t in _definitions(world))


def claims(world: World, tool: ToolSpec) -> bool:
    """Whether this engine answers ``tool``: a presentation operation it models, in a presentation catalog."""
    return operation(tool) is not None and is_presentation_catalog(world)


def _in_band(step: Step) -> bool:
    """Whether the tool answers a free object (FastMCP's ``{result: object}`` too): then a failure is one."""
    definition = next((t for t in _definitions(step.world) if t.get("name") == step.tool.name), {})
    out = definition.get("outputSchema")
    if not isinstance(out, dict):
        return False
    inner = wrapped_schema(definition) or out
    return inner.get("type") == "object" and (not inner.get("properties") or "error" in inner["properties"]
                                              or inner.get("additionalProperties") is True)


def _switches(step: Step) -> bool:
    return any(operation_of(str(t.get("name", "")), (t.get("inputSchema") or {}).get("properties") or {}) == "switch"
               for t in _definitions(step.world))


def predict(step: Step) -> Prediction | None:
    """The presentation's answer to ``step``; None (the record model answers) for a call it cannot place."""
    op = step.derived(("presentation_operation", step.tool.name), lambda: operation(step.tool))
    if op is None:
        return None
    in_band = step.derived(("presentation_in_band", step.tool.name), lambda: _in_band(step))
    switches = step.derived("presentation_switches", lambda: _switches(step))
    return run(op, open_call(step, in_band, switches))


def prepare() -> None:
    """Load python-pptx's default template once, before the first call's deadline."""
    from .presentation_deck import build

    build(None)


__all__ = ["PRESENTATION_ARGS", "claims", "is_presentation_catalog", "operation", "operation_of", "predict",
           "prepare"]
