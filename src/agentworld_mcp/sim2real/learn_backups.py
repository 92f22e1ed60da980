"""How a recorded editor names the backups its edits leave: a path template (``models/deterministic/text_backups.py``).

An answer's string that names another file beside the one the call edited, with the edited file's name in it
(``/d/.backups/a.py.899e8e43.1795514400`` for ``/d/a.py``), is a backup's path. Its parts are read as slots:
the file's directory ``{dir}``, its name ``{name}``, a hash of its path (``{md5:8}``: the first 8 hex digits
of the path's MD5; SHA-1 and SHA-256 too), and a run of 9 to 11 digits, the backup's id (the epoch seconds
of the moment it was made), ``{id}``. The template most answers agree on is written under
:data:`BACKUP_META` of every tool of a catalog that showed one, so an edit and a restore name backups alike.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter
from typing import Any

from ..models.deterministic.learned_state import answer_data, failed
from ..models.deterministic.text_backups import BACKUP_META
from ..world.catalog import Catalog
from ..world.values import leaves
from .learn_meta import write_meta
from .score import RecordedTurn

JSONDict = dict[str, Any]
_EPOCH = re.compile(r"(?<!\d)\d{9,11}(?!\d)")


def _template(path: str, value: str) -> str | None:
    """``value`` (a string an answer about ``path`` gave) as a backup path template; None: no backup path."""
    folder, name = posixpath.dirname(path), posixpath.basename(path)
    if value == path or not name or name not in value or not value.startswith(folder + "/"):
        return None
    out = value
    for algo in ("md5", "sha1", "sha256"):
        digest = hashlib.new(algo, path.encode("utf-8")).hexdigest()
        found = next((n for n in range(len(digest), 5, -1) if digest[:n] in out), None)
        if found is not None:
            out = out.replace(digest[:found], "{" + f"{algo}:{found}" + "}")
    out = _EPOCH.sub("{id}", out)
    if "{id}" not in out:
        return None  # no moment in it: a file the call named, not a backup
    return "{dir}" + out[len(folder):].replace(name, "{name}")


def learn_backups(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, JSONDict]:
    """Per tool of the catalog, ``{"path": template}`` where the recording showed backup paths."""
    seen: Counter[str] = Counter()
    for turns in episodes.values():
        for turn in turns:
            paths = [v for v in turn.arguments.values() if isinstance(v, str) and v.startswith("/")]
            if failed(turn.result) or not paths:
                continue
            for value in leaves(answer_data(turn.result)):
                if isinstance(value, str):
                    seen.update(t for p in paths if (t := _template(p, value)) is not None)
    if not seen:
        return {}
    template = seen.most_common(1)[0][0]
    return {spec.name: {"path": template} for spec in catalog}


def add_backup_meta(data: JSONDict, catalog: Catalog, episodes: dict[str, list[RecordedTurn]]) -> int:
    """The learned backup path template under each tool's ``_meta``; how many tools got it."""
    return write_meta(data, BACKUP_META, learn_backups(episodes, catalog))


__all__ = ["add_backup_meta", "learn_backups"]
