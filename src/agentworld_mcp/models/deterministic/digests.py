"""Content digests: a field that names a hash of an entity's text is that hash, computed, never drawn.

A server that versions what it stores answers with a digest of it (``"etag": sha256(content)``): a
read of an unchanged note shows the create's etag, an edit's answer shows the new one, a move keeps
it. Drawn from the outputSchema's pattern, the value is a fresh random hex string on every call, so
an agent that compares etags (optimistic concurrency, "did it change?") is told the note changed when
it did not. Here, with no recording needed:

- a field is a content digest when its name says so (``etag``, ``hash``, ``checksum``, ``sha256``,
  ``md5``, ``digest``, ``fingerprint``, ``content_hash``), or when its schema or value is the hex form
  of a hash (a ``pattern`` like ``^[a-f0-9]{64}$``, an example, equal min/max lengths) and its name is
  not an identifier's (``id``, ``token``, ``commit_sha`` and ``parent_hash`` name other things);
- its algorithm is the one its name or description says (``SHA-256``), else the one its hex length
  says (32 md5, 40 sha1, 64 sha256, 128 sha512), else sha256, over the UTF-8 text;
- the text is the entity's after the call: the text beside the field (a read's ``content``), unless
  that is one page of a longer text; else what the call's effects store (a create's, an edit's, a
  move's); else what the state holds under the call's key. No text known: the value stays.

A value already equal to a digest of the text (a git blob id) stays; engines' answers are theirs.
``learned_digest.py`` serves the same fields where a recording showed which algorithm a server uses.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...world.roles import words

if TYPE_CHECKING:
    from ..base import Prediction, Step

JSONDict = dict[str, Any]
#: The algorithms a digest is recognised as, and their hex lengths.
ALGORITHMS = ("md5", "sha1", "sha256", "sha512")
_BY_LENGTH = {32: "md5", 40: "sha1", 64: "sha256", 128: "sha512"}
#: Fields that hold an entity's text.
TEXT_FIELDS = ("content", "text", "body", "contents", "markdown")
#: Name words of a digest field, and the words that may stand beside them (``content_hash``, ``file_sha``).
_DIGEST_WORDS = frozenset({"etag", "hash", "checksum", "sha", "sha1", "sha256", "sha512", "md5", "digest",
                           "fingerprint", "contenthash"})
_OF_WORDS = frozenset({"content", "contents", "file", "note", "body", "text", "doc", "document", "page", "data",
                       "current", "new", "blob", "e", "tag", "256", "512", "1", "5"})
#: Name words of hex strings that are not a digest of the entity's text (ids, secrets, other versions).
_NOT_CONTENT = frozenset({"id", "ids", "uuid", "key", "token", "secret", "session", "nonce", "transaction",
                          "request", "trace", "commit", "parent", "tree", "head", "ref", "salt", "signature",
                          "previous", "prev", "old", "base", "before", "expected", "if", "match", "trash"})
_HEX = re.compile(r"[0-9a-fA-F]+")
_ALGORITHM_SAID = (("sha512", re.compile(r"sha-?512", re.I)), ("sha256", re.compile(r"sha-?256", re.I)),
                   ("sha1", re.compile(r"sha-?1\b", re.I)), ("md5", re.compile(r"md-?5", re.I)))
_HEX_PATTERN = re.compile(r"\[(?:a-f0-9|0-9a-f|0-9a-fA-F|a-fA-F0-9|A-Fa-f0-9|0-9A-Fa-f)\]\{(\d+)\}")


def digest(algorithm: str, text: str) -> str:
    return hashlib.new(algorithm, text.encode("utf-8")).hexdigest()


def text_of(fields: Any) -> str | None:
    if not isinstance(fields, dict):
        return None
    return next((fields[f] for f in TEXT_FIELDS if isinstance(fields.get(f), str)), None)


def stored_text(step: Step, answer: Prediction) -> str | None:
    """The entity's text after the call: what its effects store, else what the state holds under its key."""
    from . import records

    ledger = step.episode.ledger
    for effect in reversed(answer.effects or ()):
        if effect.op not in ("create", "update", "move"):
            continue
        before = ledger.get(effect.collection, effect.key)
        fields = dict(before.fields) if before is not None and effect.op != "create" else {}
        fields.update(effect.fields or {})
        if (text := text_of(fields)) is not None:
            return text
    key = step.role.key_of(step.arguments)
    if key is None or not step.role.collection:
        return None
    entity = ledger.get(step.role.collection, key)
    if entity is None and step.role.style == "record":
        entity = records.lookup(step, step.role, str(key))
    return text_of(entity.fields) if entity is not None else None


def entity_text(step: Step, answer: Prediction, holder: JSONDict, *, listed: bool) -> str | None:
    """The text a digest in ``holder`` covers: the text beside it unless a page of the stored one."""
    beside = text_of(holder)
    if listed:  # an item of a listing: only its own text speaks for it
        return beside
    stored = stored_text(step, answer)
    if beside is not None and stored is not None and beside != stored and beside in stored:
        return stored  # the answer shows one page; the digest is of the whole text
    return beside if beside is not None else stored


# -- which fields are digests ---------------------------------------------------------------------


def _declared(schema: Any) -> Iterator[tuple[str, JSONDict]]:
    """``(name, subschema)`` of every property the outputSchema declares, at any depth."""
    if isinstance(schema, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict):
                yield str(name), sub
        for value in schema.values():
            if isinstance(value, (dict, list)):
                yield from _declared(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _declared(value)


def declared_fields(schema: Any) -> dict[str, list[JSONDict]]:
    fields: dict[str, list[JSONDict]] = {}
    for name, sub in _declared(schema):
        fields.setdefault(name, []).append(sub)
    return fields


def _hex_length(schemas: list[JSONDict], value: Any) -> int | None:
    """The hex length a field's schema or value shows: a pattern, an example, equal min/max lengths."""
    for schema in schemas:
        if (found := _HEX_PATTERN.search(str(schema.get("pattern") or ""))) is not None:
            return int(found.group(1))
        examples = list(schema.get("examples") or []) + ([schema["example"]] if "example" in schema else [])
        for example in examples:
            if isinstance(example, str) and len(example) in _BY_LENGTH and _HEX.fullmatch(example):
                return len(example)
        if schema.get("minLength") is not None and schema.get("minLength") == schema.get("maxLength"):
            if schema["minLength"] in _BY_LENGTH:
                return int(schema["minLength"])
    if isinstance(value, str) and len(value) in _BY_LENGTH and _HEX.fullmatch(value):
        return len(value)
    return None


def algorithm_of(name: str, schemas: list[JSONDict], value: Any) -> str | None:
    """The algorithm of a content-digest field ``name``, or None when the field is not one."""
    said = set(words(name))
    if said & _NOT_CONTENT or not isinstance(value, str):
        return None
    named = bool(said & _DIGEST_WORDS) and said <= _DIGEST_WORDS | _OF_WORDS
    length = _hex_length(schemas, value)
    if not named and length not in _BY_LENGTH:
        return None
    spoken = " ".join([name] + [str(s.get("description") or "") for s in schemas])
    for algorithm, pattern in _ALGORITHM_SAID:
        if pattern.search(spoken) and (length is None or len(digest(algorithm, "")) == length):
            return algorithm
    if length is not None:
        return _BY_LENGTH.get(length)
    return "sha256"


# -- serving ----------------------------------------------------------------------------------------


def _walk(node: Any, listed: bool = False) -> Iterator[tuple[JSONDict, bool]]:
    """Every object of an answer, and whether it is an item of a list."""
    if isinstance(node, dict):
        yield node, listed
        for value in node.values():
            yield from _walk(value, listed)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, True)


def with_content_digests(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with each content-digest field computed from the entity's text (see the module doc)."""
    if answer.is_error or not isinstance(answer.observation, (dict, list)):
        return answer
    from .engines import engine_for
    from .records import content_sha  # a git blob id: what git hosts name a file's content by

    if engine_for(step) is not None:
        return answer  # an engine's hashes (commit ids) are its own
    declared = step.derived(("declared fields", step.tool.name), lambda: declared_fields(step.tool.output_schema))
    observation = copy.deepcopy(answer.observation)
    changed: dict[str, str] = {}  # old value -> new
    for holder, listed in _walk(observation):
        for name, value in list(holder.items()):
            algorithm = algorithm_of(name, declared.get(name, []), value)
            if algorithm is None:
                continue
            text = entity_text(step, answer, holder, listed=listed)
            if text is None or value in (digest(algorithm, text), content_sha(text)):
                continue
            holder[name] = changed[value] = digest(algorithm, text)
    if not changed:
        return answer
    validator = step.tool.output_validator
    if validator is not None and isinstance(observation, dict) and validator.is_valid(answer.observation) \
            and not validator.is_valid(observation):
        return answer  # the schema says otherwise: keep what conformed to it
    text = answer.text
    for old, new in changed.items():  # the server's own prose shows the same value
        text = text.replace(old, new) if text is not None else None
    return dataclasses.replace(answer, observation=observation, text=text)


__all__ = ["ALGORITHMS", "TEXT_FIELDS", "algorithm_of", "digest", "entity_text", "stored_text",
           "text_of", "with_content_digests"]
