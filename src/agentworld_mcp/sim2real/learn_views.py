"""What ``learn`` writes for ``models/deterministic/learned_views.py`` beyond the lifecycles: the server's
clock (``learn_clock.py``) and the fields that digest an entity's text (``learn_digest.py``). The history
rows and the counts per state come with the lifecycles they are made of (``learn_lifecycle.py``)."""

from __future__ import annotations

from typing import Any

from ..world.catalog import Catalog
from .learn_children import add_children_meta
from .learn_clock import add_clock_meta
from .learn_digest import add_digest_meta
from .score import RecordedTurn


def add_view_meta(data: dict[str, Any], catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """Write the clock, the digest fields and the children a list argument creates (``learn_children.py``)
    under the tools' ``_meta``; how many tools got something."""
    return (add_clock_meta(data, catalog, episodes) + add_digest_meta(data, catalog, episodes)
            + add_children_meta(data, catalog, episodes))


__all__ = ["add_view_meta"]
