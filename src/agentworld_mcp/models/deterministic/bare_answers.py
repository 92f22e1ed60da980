"""The answer of a tool with no outputSchema whose state holds nothing for it: data, not "done".

Most hosted servers list no outputSchema, so the answer's shape is read from the tool's name,
its description and the call, the way typed Python servers name what they return:

* **a description that names the return value** (:mod:`.bare_returns`): a docstring ``Returns:``
  section (``slot_id (str): ...``), ``:return:`` lines, "returns a dict with keys a, b" or
  "returns the balance" give the answer's fields and their types;
* **a description that says nothing is returned** ("Returns nothing", "no return value"): the
  only case that acknowledges;
* **a read or a computation** (``get_postcode_by_town``, ``estimate_route_length``,
  ``pint_to_liter``): the value under the name's noun, qualifiers cut (``postcode``,
  ``route_length``, ``liter``), typed by its words and the description ("the list of" -> a list);
  a unit conversion is computed;
* **a setter** (``set_daily_limit(daily_limit=...)``): the value set, under its name, and
  stored where the standing state holds a field of that name;
* **a context chosen** (``set_current_board(board_dir=...)``): the context's id and name, the
  call echoed;
* **a sign-in**: ``{"<authentication>_status": true}``, or an OAuth token answer (RFC 6749
  section 5.1) when the call carries client credentials;
* **an action on a device** whose part the state does not hold (``pressVentLever``): the part's
  status as the verb leaves it (``ventLeverStatus: pressed``), the call echoed;
* **any other action**: acknowledged as before (``log_visit``, ``ping``): its name and
  description promise no data.

Everything is a pure function of the step; effects are returned, never applied.
"""

from __future__ import annotations

import re
from typing import Any

from ...world import values
from ...world.roles import ALL_VERBS, ToolRole, words
from ..base import Prediction, Step
from . import determined
from .bare_returns import nothing_returned, returned_fields

JSONDict = dict[str, Any]

#: First verbs of a tool whose answer is the thing its name names.
_READS = frozenset({"get", "read", "fetch", "show", "view", "describe", "retrieve", "lookup", "look", "load", "inspect",
                    "display", "check", "query", "see", "find", "estimate", "compute", "calculate", "calc", "count",
                    "measure", "convert", "list", "search", "determine", "predict", "evaluate", "locate", "resolve",
                    "suggest", "recommend", "summarize", "summarise", "aggregate"})
#: Last words of ``mark_todo_done``, ``mark_as_read``: the state an action on a record leaves it in.
_STATES = frozenset({"done", "complete", "completed", "read", "unread", "archived", "resolved", "closed", "open",
                     "finished", "started", "pending", "active", "inactive", "cancelled", "canceled", "approved"})
#: "sets status:done + completed_at": the fields a description says the action sets.
_SETS = re.compile(r"\bsets?\s+([a-z_]\w*(?::\w+)?(?:\s*(?:\+|,|and)\s*[a-z_]\w*(?::\w+)?)*)", re.IGNORECASE)
_SIGN_IN = frozenset({"login", "signin", "authenticate", "auth", "authorize", "logon"})
_VERIFY = frozenset({"verify", "validate", "confirm"})
#: Words after the noun that say how it is found, not what it is (``get_postcode_by_town``).
_QUALIFIERS = frozenset({"by", "based", "for", "from", "with", "in", "of", "on", "using", "via", "at", "per", "given"})
#: A trailing participle describes the noun (``parcels_shipped``): the noun alone is what is returned.
_PARTICIPLES = frozenset({"sent", "shipped", "received", "made", "done", "given", "taken", "held", "kept", "shown", "seen"})
_NUMERIC = frozenset({"distance", "cost", "price", "rate", "amount", "balance", "total", "count", "temperature",
                      "speed", "level", "percentage", "percent", "ratio", "score", "size", "length", "weight",
                      "height", "width", "duration", "mileage", "limit", "fee", "tax", "sum", "average", "mean",
                      "voltage", "pressure", "force", "value", "quantity", "age", "number", "elevation", "area",
                      "volume", "capacity", "latitude", "longitude", "altitude", "humidity", "budget", "range"})
#: ``set_current_board``, ``switch_active_workspace``: a session context chosen, answered as the context now held.
_SWITCH = frozenset({"set", "switch", "select", "use", "change", "choose"})
_CONTEXT = frozenset({"current", "active", "default"})
_BOOLEAN_HEAD = frozenset({"is", "has", "can", "should", "was", "are", "does", "did", "will"})
_OAUTH_ARGS = frozenset({"client_secret", "grant_type", "refresh_token", "client_id"})
#: Units a conversion tool may name (its ``X_to_Y``), in a base unit of their dimension.
_UNITS: dict[str, tuple[str, float]] = {
    "liter": ("volume", 1.0), "litre": ("volume", 1.0), "milliliter": ("volume", 0.001), "gallon": ("volume", 3.78541),
    "quart": ("volume", 0.946353), "pint": ("volume", 0.473176), "cup": ("volume", 0.236588),
    "meter": ("length", 1.0), "metre": ("length", 1.0), "km": ("length", 1000.0), "kilometer": ("length", 1000.0),
    "mile": ("length", 1609.344), "foot": ("length", 0.3048), "feet": ("length", 0.3048), "inch": ("length", 0.0254),
    "yard": ("length", 0.9144), "cm": ("length", 0.01), "centimeter": ("length", 0.01), "mm": ("length", 0.001),
    "kg": ("mass", 1.0), "kilogram": ("mass", 1.0), "gram": ("mass", 0.001), "pound": ("mass", 0.45359237),
    "lb": ("mass", 0.45359237), "ounce": ("mass", 0.028349523125), "oz": ("mass", 0.028349523125),
}


def bare_answer(step: Step, role: ToolRole) -> Prediction | None:
    """The data a tool without outputSchema promises, or None where it promises nothing (acknowledge)."""
    if step.tool.output_schema or _wrapped(step):
        return None
    description = step.tool.description or ""
    if nothing_returned(description):
        return None
    tokens = words(step.tool.name)
    if not tokens:
        return None
    style = _style(step.tool.name)
    if (declared := returned_fields(description)) is not None:
        return Prediction(_declared_body(step, declared, style), effects=determined.applied(step))
    verb = tokens[0]
    if verb in _SIGN_IN or "login" in tokens or "authenticate" in tokens:
        return Prediction(_signed_in(step, tokens, style), effects=[])
    if verb in _VERIFY:
        return Prediction({_key([_nominal(verb), "status"], style): True}, effects=[])
    if verb == "set" and (given := _set_value(step, tokens[1:])) is not None:
        name, value = given
        return Prediction({name: value}, effects=determined.applied(step))
    if verb in _SWITCH and len(tokens) > 2 and tokens[1] in _CONTEXT:
        return Prediction(_context_set(step, tokens[2:], style), effects=determined.applied(step))
    if (converted := _conversion(step, tokens)) is not None:
        return Prediction({_key([converted[0]], style): converted[1]}, effects=[])
    if verb == "count" or re.match(r"\W*(?:how many|(?:the )?number of)\b", description, re.IGNORECASE):
        return Prediction({"count": _count(step, role, tokens[1:])}, effects=[])
    said = words(description.split(".")[0])[:1]
    if len(tokens) > 1 and verb not in ALL_VERBS and verb not in _READS and said and said[0] in _READS:  # ``project_summary``: "Get summary..."
        tokens = ["get", *tokens]
    if tokens[0] in _READS and len(tokens) > 1:
        noun = _noun(tokens[1:])
        if noun:
            return Prediction({_key(noun, style): _value(step, noun, description)}, effects=[])
    if (marked := _record_marked(step, tokens, description)) is not None:
        return Prediction(marked, effects=determined.applied(step))
    if (state := _state_it_acts_on(step, tokens[1:] if verb in _ACTION_VERBS else tokens)) is not None:
        return Prediction(state, effects=determined.applied(step))
    if (status := _device_status(step, tokens, style)) is not None:
        return Prediction(status, effects=determined.applied(step))
    return None  # an action that promises no data: acknowledged (``log_visit``, ``ping``)


#: Leading verbs of actions on a device or a session (their nouns name the state they act on).
_ACTION_VERBS = frozenset({"start", "stop", "press", "release", "open", "close", "lock", "unlock", "turn", "toggle",
                           "activate", "deactivate", "enable", "disable", "switch", "reset", "adjust", "fill", "set",
                           "engage", "disengage", "raise", "lower", "pause", "resume", "mute", "unmute"})


def _state_it_acts_on(step: Step, nouns: list[str]) -> JSONDict | None:
    """``startHeater`` on a world whose standing state holds ``heaterState``: the fields of the standing
    state named by the tool's nouns, as they stand after the call (``openKilnDoor`` -> ``kilnDoor*``)."""
    wanted = {n for n in nouns if len(n) > 2}
    if not wanted:
        return None
    changed = {e.collection: e.fields for e in determined.applied(step)}
    body: JSONDict = {}
    for entity in determined.standing(step):
        for name, value in entity.fields.items():
            if wanted <= set(words(name)) or (len(wanted) > 1 and len(wanted & set(words(name))) >= 2):
                body[name] = changed.get(entity.collection, {}).get(name, value)
    return body or None


def _record_marked(step: Step, tokens: list[str], description: str) -> JSONDict | None:
    """``mark_todo_done(entry_id=4)``: an action that leaves the record its id argument names in a state
    answers that record's id with the fields it sets (the state word, and what "sets a:b + c_at" names)."""
    ids = {n: v for n, v in step.arguments.items() if n == "id" or n.endswith("_id") or n.endswith("Id")}
    if not ids or len(tokens) < 2 or tokens[-1] not in _STATES:
        return None
    from .common import now_iso

    body: JSONDict = {**ids}
    stated = _SETS.search(description)
    for part in re.split(r"\s*(?:\+|,|\band\b)\s*", stated.group(1)) if stated else []:
        name, _, value = part.partition(":")
        if name:
            body[name] = value or (now_iso(step.turn) if name.endswith(("_at", "_on", "date", "time")) else True)
    body.setdefault("status", tokens[-1])
    return body


def _context_set(step: Step, noun: list[str], style: str) -> JSONDict:
    """The context a ``set_current_<noun>`` call chose: its id and name, and the call's arguments echoed.

    The name is the last part of a path argument (``/srv/harbor`` -> ``harbor``), else the first text
    argument; a bare ``.`` names no folder the call determines, so the name is left out."""
    texts = [v for v in step.arguments.values() if isinstance(v, str) and v.strip()]
    name = next((t.rstrip("/").rsplit("/", 1)[-1] for t in texts if t.strip(" ./")), None)
    body: JSONDict = {_key([*noun, "id"], style): "".join(step.rng.choice("0123456789abcdef") for _ in range(16))}
    if name:
        body[_key([*noun, "name"], style)] = name
    return {**body, **step.arguments}


def _device_status(step: Step, tokens: list[str], style: str) -> JSONDict | None:
    """``pressVentLever(leverPosition=0.5)`` on a world with standing state but no lever field: the part's
    status as the verb leaves it (``ventLeverStatus: pressed``), the call echoed. Only where the world is a
    device (it has standing state) and the verb is one of its actions; "turn"/"switch" take their on/off."""
    verb, nouns = tokens[0], [t for t in tokens[1:] if t not in ("on", "off")]
    if verb not in _ACTION_VERBS or verb == "set" or not nouns or not determined.standing(step):
        return None
    state = next((t for t in tokens[1:] if t in ("on", "off")), None) or _participle(verb)
    return {_key([*nouns, "status"], style): state, **step.arguments}


def _participle(verb: str) -> str:
    """``press`` -> ``pressed``, ``release`` -> ``released``, ``stop`` -> ``stopped``, ``open`` -> ``opened``."""
    if verb.endswith("e"):
        return verb + "d"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", verb) and len(verb) <= 4:  # one syllable: the consonant doubles
        return verb + verb[-1] + "ed"
    return verb + "ed"


def _wrapped(step: Step) -> bool:
    """A FastMCP tool whose wrapper was taken off (served.py): its ``result`` schema types the answer already."""
    return any(isinstance(t, dict) and t.get("name") == step.tool.name and t.get("outputSchema")
               for t in step.world.tools)


def _count(step: Step, role: ToolRole, noun: list[str]) -> int:
    """How many records the collection the tool counts holds (none known: 0)."""
    ledger = step.episode.ledger
    wanted = determined.name_key("".join(noun))
    for collection in (role.collection, *ledger.collections()):
        if collection and (collection == role.collection or determined.name_key(collection) == wanted):
            if collection in ledger.collections():
                return len(ledger.items(collection))
    return 0


# -- the names -------------------------------------------------------------------------------


def _style(name: str) -> str:
    """How the catalog writes names: ``snake`` (``get_zip``), ``camel`` (``getZip``, ``get-zip``)."""
    return "snake" if "_" in name or not re.search(r"[a-z][A-Z]|-", name) else "camel"


def _key(parts: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(parts)
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _noun(tokens: list[str]) -> list[str]:
    """The words naming what is returned: up to the first qualifier, a trailing participle left off."""
    noun: list[str] = []
    for token in tokens:
        if token in _QUALIFIERS and noun:
            break
        noun.append(token)
    while len(noun) > 1 and noun[-1] in _PARTICIPLES:
        noun.pop()
    return [t for t in noun if t not in ("the", "a", "an")]


def _nominal(verb: str) -> str:
    """``authenticate`` -> ``authentication``, ``verify`` -> ``verification``; others as they are."""
    if verb.endswith("ate"):
        return verb[:-1] + "ion"
    if verb.endswith("ify"):
        return verb[:-1] + "ication"
    if verb.endswith("ize"):
        return verb[:-1] + "ation"
    return verb


# -- the values ------------------------------------------------------------------------------


def _value(step: Step, noun: list[str], description: str) -> Any:
    """A value of the kind the noun and the description promise: a list, a flag, a number or text."""
    head = noun[-1]
    phrase = " ".join(noun)
    many = bool(re.search(rf"\b(?:list|lists|all|array)\b(?:\s+\w+){{0,3}}\s+{re.escape(head)}", description, re.I)) or (
        head.endswith("s") and not head.endswith(("ss", "us", "is")) and len(noun) >= 1 and head not in _NUMERIC)
    if noun[0] in _BOOLEAN_HEAD:
        return True
    if head in ("time", "date", "datetime", "timestamp", "now"):
        from .common import now_iso

        stamp = now_iso(step.turn)
        return stamp[:10] if head == "date" else stamp
    if head in _NUMERIC or head in _UNITS:  # a rate is near one, a number of things whole (values._number)
        number = values.generate({"type": "number", "minimum": 0}, step.rng, "_".join(noun))
        return [number] if many else number
    if head.endswith(("id", "code")) or head in ("zip", "postal", "pin"):  # ``postcode``: digits
        return str(step.rng.randint(10000, 99999))
    text = f"{phrase} {step.rng.randint(1, 99)}"
    return [text] if many else text


def _set_value(step: Step, noun: list[str]) -> tuple[str, Any] | None:
    """``set_daily_limit(daily_limit=...)``: the argument named like what is set, as set."""
    wanted = determined.name_key("".join(noun))
    for name, value in step.arguments.items():
        if determined.name_key(name) == wanted or (len(step.arguments) == 1 and wanted.endswith(determined.name_key(name))):
            return name, value
    return None


def _conversion(step: Step, tokens: list[str]) -> tuple[str, Any] | None:
    """``pint_to_liter(pint=2)`` -> ``("liter", 0.946352)``: the target unit, the value converted."""
    if "to" not in tokens[1:]:
        return None
    at = tokens.index("to", 1)
    source, target = tokens[at - 1], (tokens[at + 1] if at + 1 < len(tokens) else "")
    units = _UNITS.get(source.rstrip("s")) or _UNITS.get(source), _UNITS.get(target.rstrip("s")) or _UNITS.get(target)
    if not target:
        return None
    if units[0] is None or units[1] is None or units[0][0] != units[1][0]:
        return (target, round(step.rng.uniform(1, 1000), 2)) if target in _UNITS or target in _NUMERIC else None
    amount = next((v for v in step.arguments.values() if isinstance(v, (int, float)) and not isinstance(v, bool)), None)
    if amount is None:
        return None
    return target, amount * units[0][1] / units[1][1]


def _signed_in(step: Step, tokens: list[str], style: str) -> JSONDict:
    """A session opened: an OAuth token answer for client credentials, else a success flag."""
    if _OAUTH_ARGS & set(step.arguments):
        scope = next((step.arguments[a] for a in ("scope", "grant_type") if isinstance(step.arguments.get(a), str)), None)
        token = "".join(step.rng.choice("abcdef0123456789") for _ in range(24))
        body: JSONDict = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
        return {**body, "scope": scope} if scope else body
    verb = next((t for t in tokens if t in _SIGN_IN), tokens[0])
    return {_key([_nominal(verb), "status"], style): True}


def _declared_body(step: Step, fields: list[tuple[str, str]], style: str) -> JSONDict:
    """The fields a description's Returns section names, each from the call or the state, else of its type."""
    known = determined.known_values(step)
    body: JSONDict = {}
    for name, kind in fields:
        value = known.get(determined.name_key(name))
        if value is None or not values.of_json_type(value, kind):
            value = _typed(step, name, kind)
        body[name] = value
    return body


def _typed(step: Step, name: str, kind: str) -> Any:
    if kind == "boolean":
        return True
    if kind == "integer":
        return step.rng.randint(1, 1000)
    if kind == "number":
        return values.generate({"type": "number", "minimum": 0}, step.rng, name)
    if kind == "array":
        return []
    if kind == "object":
        return {}
    value = _value(step, words(name) or [name], "")
    return value if kind == "" or isinstance(value, str) else str(value)


__all__ = ["bare_answer"]
