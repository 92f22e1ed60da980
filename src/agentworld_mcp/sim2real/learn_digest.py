"""Digest fields learned from a recording (``learn``): answer fields that hash the entity's text.

A field whose recorded values are hex strings of a hash's length (32, 40, 64, 128 digits) is a digest
when one of its values is that hash (md5, sha1, sha256, sha512) of a text the episode showed anywhere: an
argument (a create's ``content``), a field of an answer (a read's ``content``, beside it or later). The
tool's field then gets the algorithm (``{"data.etag": "sha256"}``); a tool whose values never matched a
text shown (an edit whose new text nobody read) gets it from another tool of the catalog that did, for
the field of the same name. Served by ``models/deterministic/learned_digest.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..models.deterministic.learned_digest import ALGORITHMS, DIGEST_META, digest
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from .score import RecordedTurn
from .learn_meta import write_meta

JSONDict = dict[str, Any]
_HEX = re.compile(r"[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}")


def _strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted path, string)`` of every string outside lists."""
    if isinstance(value, dict):
        for name, sub in value.items():
            yield from _strings(sub, f"{path}.{name}" if path else str(name))
    elif isinstance(value, str):
        yield path, value


def learn_digests(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool, its digest fields (see the module doc)."""
    hexes: dict[str, dict[str, set[str]]] = {}  # tool -> path -> values
    texts: set[str] = set()
    for turns in episodes.values():
        for turn in turns:
            texts.update(v for _, v in _strings(turn.arguments))
            if failed(turn.result) or catalog.get(turn.tool) is None:
                continue
            for path, value in _strings(answer_data(turn.result)):
                if _HEX.fullmatch(value):
                    hexes.setdefault(turn.tool, {}).setdefault(path, set()).add(value)
                else:
                    texts.add(value)
    by_value = {digest(a, t): a for t in texts for a in ALGORITHMS}
    found: dict[str, JSONDict] = {}
    by_leaf: dict[str, str] = {}
    for tool, paths in hexes.items():
        for path, values in paths.items():
            algorithm = next((by_value[v] for v in sorted(values) if v in by_value), None)
            if algorithm is not None and algorithm in ALGORITHMS:
                found.setdefault(tool, {})[path] = algorithm
                by_leaf.setdefault(path.rpartition(".")[2], algorithm)
    for tool, paths in hexes.items():  # the same field of a tool whose texts the recording never showed
        for path, values in paths.items():
            algorithm = by_leaf.get(path.rpartition(".")[2])
            if algorithm is not None and path not in found.get(tool, {}) and all(
                    len(v) == len(digest(algorithm, "")) for v in values):
                found.setdefault(tool, {})[path] = algorithm
    return found


def add_digest_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write each tool's digest fields under its ``_meta``; how many tools got some."""
    learned = learn_digests(episodes, catalog)
    write_meta(data, DIGEST_META, learned)
    return len(learned)


__all__ = ["add_digest_meta", "learn_digests"]
