"""The last pass over a learned world's answer: what the episode determines that the model cannot know alone.

Each part reads its own ``_meta`` key of the tool (written by ``learn``) and leaves other tools alone:

* :mod:`.learned_children`: the children a splitting call creates from a list argument, and a read's list of them;
* :mod:`.learned_history`: an entity's history rows, from the episode's creates and moves;
* :mod:`.learned_counts`: counts of the entities by their fields (per state, per type);
* :mod:`.learned_row_counts`: how many entities a delete or update changed (1 when its key named one, else 0);
* :mod:`.learned_digest`: a field that is the digest of the entity's text (an ``etag``);
* :mod:`.learned_clock`: instants written as the recorded server writes them, still where its clock was.

The clock goes last: the rows above carry the model's instants, which it rewrites with the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .learned_children import with_children
from .learned_clock import with_clock
from .learned_counts import with_counts
from .learned_digest import with_digest
from .learned_history import with_history
from .learned_row_counts import with_row_counts

if TYPE_CHECKING:
    from ..base import Prediction, Step


def with_views(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with every learned view of the episode applied (see the module doc)."""
    answer = with_children(step, answer)  # first: the rows and counts below see the children it creates
    return with_clock(step, with_digest(step, with_row_counts(step, with_counts(step, with_history(step, answer)))))


__all__ = ["with_views"]
