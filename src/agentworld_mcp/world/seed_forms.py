"""A seed collection given as a mapping from each record's key to the record, as databases are often dumped.

``seed: {users: {"ana_lee_123": {"email": ...}}}`` is the list ``[{"user_id": "ana_lee_123", "email": ...}]``:
the key becomes the record's ``<singular>_id`` (the name the collection's tools address it by, which the
ledger prefers as its key), unless one of the record's own fields already holds it (``order_id: "#W1"``
under ``"#W1"``). Lists are kept as they are.
"""

from __future__ import annotations

from typing import Any

from .roles import singular

JSONDict = dict[str, Any]


def listed_seed(seed: JSONDict) -> JSONDict:
    """``seed`` with every keyed mapping of records turned into a list of records carrying their keys."""
    return {collection: _listed(collection, records) if isinstance(records, dict) else records
            for collection, records in seed.items()}


def _listed(collection: str, records: JSONDict) -> list[JSONDict]:
    key_field = f"{singular(collection)}_id"
    out = []
    for key, record in records.items():
        if any(isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) == str(key) for v in record.values()):
            out.append(dict(record))
        else:
            out.append({key_field: key, **record})
    return out


__all__ = ["listed_seed"]
