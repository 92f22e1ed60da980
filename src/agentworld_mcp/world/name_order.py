"""Tool names that put the verb last: ``key-create``, ``alert-policy-get``, ``volume_delete``.

Role inference reads the verb from a name's first words (``create_issue``); catalogs generated
from an API's resource tree name tools noun first, so ``key-create`` would read as an action on a
collection of "creates". Such a name is read as its verb-first twin (``create-key``), which every
later inference step then treats like any other name. Only names whose last word is a verb and no
earlier word is one are reordered; every other name is left as written.
"""

from __future__ import annotations

from typing import Any

from .roles import ALL_VERBS, verb_kind, words

JSONDict = dict[str, Any]


def verb_last(name: str) -> bool:
    """Whether ``name`` names its verb last (``alert-policy-get``, ``key-get``) and no verb before it."""
    tokens = words(name)
    return (len(tokens) >= 2 and verb_kind(tokens[-1]) is not None
            and not any(t in ALL_VERBS for t in tokens[:-1]))


def verb_first(tool: JSONDict, keep: int = 0) -> JSONDict:
    """``tool`` under its verb-first name for inference (``key-create`` -> ``create_key``), else itself.
    The first ``keep`` words are a namespace (``tracker_search``: the server's name, then the verb) and stay."""
    name = tool.get("name")
    if not isinstance(name, str):
        return tool
    tokens = words(name)
    head, rest = tokens[:keep], tokens[keep:]
    if not verb_last("_".join(rest)):
        return tool
    return {**tool, "name": "_".join([*head, rest[-1], *rest[:-1]])}
