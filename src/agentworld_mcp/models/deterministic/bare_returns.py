"""What a tool's description says it returns, read into fields: the shape of an answer with no outputSchema.

Servers generated from Python functions carry the function's docstring as the description, and
hand-written ones often say in words what comes back. Read here, in this order:

* a Google-style ``Returns:`` section of ``name (type): text`` lines (``slot_id (str): ...``);
* a NumPy-style ``Returns`` / ``-------`` section of ``name : type`` lines;
* ``:return:``/``:returns:`` lines (with ``:rtype:``), and sentences "returns a dict with keys a,
  b and c", "returns an object with fields ...", "returns the balance".

A kind is a JSON type (``string``, ``integer``, ``number``, ``boolean``, ``array``, ``object``) or
``""`` when the words do not say it (the caller guesses from the name).
"""

from __future__ import annotations

import re

Field = tuple[str, str]

_TYPES = {"str": "string", "string": "string", "int": "integer", "integer": "integer", "float": "number",
          "number": "number", "double": "number", "decimal": "number", "bool": "boolean", "boolean": "boolean",
          "list": "array", "array": "array", "tuple": "array", "sequence": "array", "dict": "object",
          "object": "object", "mapping": "object", "map": "object"}
_NOTHING = re.compile(r"\breturns?\s+(?:nothing|none|no\s+(?:value|data|content))\b|\bno return value\b"
                      r"|\bdoes(?:\s+not|n't) return\b|\bReturns:\s*None\b|:returns?:\s*None\b", re.IGNORECASE)
_GOOGLE = re.compile(r"^\s*Returns?\s*:\s*$", re.IGNORECASE | re.MULTILINE)
_NUMPY = re.compile(r"^\s*Returns\s*\n\s*-{3,}\s*$", re.IGNORECASE | re.MULTILINE)
_SECTION_END = re.compile(r"^\s*(?:Args|Arguments|Parameters|Raises|Yields|Examples?|Notes?|See Also)\s*:?\s*$",
                          re.IGNORECASE)
_GOOGLE_LINE = re.compile(r"^\s*-?\s*['\"`]?([A-Za-z_][\w.\-]*)['\"`]?\s*\(([^)]*)\)\s*:")
_NUMPY_LINE = re.compile(r"^\s*([A-Za-z_]\w*)\s*:\s*([A-Za-z\[\], ]+?)\s*$")
_SPHINX = re.compile(r":returns?:\s*([^\n]+)", re.IGNORECASE)
_RTYPE = re.compile(r":rtype:\s*([^\n]+)", re.IGNORECASE)
_KEYS = re.compile(r"\breturns?\b[^.\n]*?\b(?:keys|fields|properties|attributes)\s*:?\s*([^.\n]+)", re.IGNORECASE)
_THE = re.compile(r"\breturns?\s+(?:the|its)\s+(?:current\s+)?([a-z][\w ]{1,40}?)(?:\s+(?:of|for|in|as|from|that|which)\b|[.,;\n]|$)",
                  re.IGNORECASE)
#: "Returns sums, sums_display, and sample entries": a plain list of what comes back, each a field.
_ENUMERATED = re.compile(r"\b[Rr]eturns?\s+((?:[a-z_][\w]*\s*,\s*)+(?:and\s+)?[a-z_][\w ]{0,30}?)\s*(?:[.;:\n]|$)")
_LIST_OF = re.compile(r"\breturns?\s+(?:a|the)\s+list\s+of\s+(?:all\s+)?(?:the\s+)?([a-z][\w ]{1,40}?)"
                      r"(?:\s+(?:of|for|in|that|which|matching|with)\b|[.,;\n]|$)", re.IGNORECASE)


def nothing_returned(description: str) -> bool:
    """Whether the description says the tool returns nothing (the one case for an acknowledgement)."""
    return _NOTHING.search(description) is not None


def returned_fields(description: str) -> list[Field] | None:
    """The answer's fields as the description names them, or None when it names none."""
    for section, line in ((_GOOGLE, _GOOGLE_LINE), (_NUMPY, _NUMPY_LINE)):
        if (found := _section_fields(description, section, line)):
            return found
    if (keys := _KEYS.search(description)):
        names = [n for n in re.split(r",\s*|\s+and\s+|\s+or\s+", keys.group(1).strip()) if n]
        fields = [(_name(n), "") for n in names if re.fullmatch(r"['\"`]?[A-Za-z_][\w-]*['\"`]?", n.strip())]
        if fields:
            return fields
    if (listed_fields := _ENUMERATED.search(description)):
        names = [re.sub(r"^and\s+", "", n.strip()) for n in listed_fields.group(1).split(",")]
        fields = [(_snake(n), "") for n in names if n]
        if len(fields) > 1:
            return fields
    if (sphinx := _SPHINX.search(description)):
        rtype = _RTYPE.search(description)
        kind = (_kind(rtype.group(1)) or "") if rtype else ""
        return _phrase_field(sphinx.group(1), kind)
    if (listed := _LIST_OF.search(description)):
        return [(_snake(listed.group(1)), "array")]
    if (named := _THE.search(description)):
        return [(_snake(named.group(1)), "")]
    return None


def _section_fields(description: str, section: re.Pattern[str], line: re.Pattern[str]) -> list[Field]:
    start = section.search(description)
    if start is None:
        return []
    fields: list[Field] = []
    for text in description[start.end():].splitlines():
        if _SECTION_END.match(text):
            break
        if (m := line.match(text)) and _kind(m.group(2)) is not None:
            fields.append((m.group(1), _kind(m.group(2)) or ""))
    # ``dict: the booking`` alone names the answer's type, not a field: the fields are the lines under it
    return [f for f in fields if f[0].lower() not in _TYPES]


def _kind(text: str) -> str | None:
    """``str``, ``Optional[int]``, ``List[str]``, ``dict`` -> a JSON type; ``""`` for what is not a type name."""
    head = re.sub(r"^(?:optional|typing\.)\[?", "", text.strip().lower()).split("[")[0].split(",")[0].strip(" ]")
    if not head:
        return ""
    return _TYPES.get(head, "" if re.fullmatch(r"[a-z_][\w.]*", head) else None)


def _phrase_field(phrase: str, kind: str) -> list[Field]:
    """``:return: the balance of the account`` -> ``[("balance", kind)]``."""
    if (listed := _LIST_OF.search("returns " + phrase)):
        return [(_snake(listed.group(1)), "array")]
    if (named := _THE.search("returns " + phrase)):
        return [(_snake(named.group(1)), kind)]
    words = re.findall(r"[A-Za-z]\w*", phrase)
    return [(_snake(words[0]), kind)] if words else [("result", kind)]


def _name(text: str) -> str:
    return text.strip().strip("'\"`")


def _snake(phrase: str) -> str:
    return "_".join(w.lower() for w in re.findall(r"[A-Za-z0-9]+", phrase)) or "result"


__all__ = ["Field", "nothing_returned", "returned_fields"]
