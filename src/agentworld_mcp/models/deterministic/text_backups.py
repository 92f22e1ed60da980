"""Backups an applied edit leaves, and a restore tool that brings one back.

An editor that keeps backups answers an applied (not previewed) edit with where it saved the file's text
before the change (a key of the edit report whose words say ``backup``; a preview saves none: null), and a
restore tool answers, by its output shape's roles, the backup it restored, the one it made of the text it
replaced, and the file's backups now. A backup is state of the file (its entity's :data:`BACKUPS` field):
an id and a timestamp from the episode's clock, its size in bytes, its path, the text it holds. The path is
written by the template the recording showed (``sim2real/learn_backups.py``: :data:`BACKUP_META` on the
tool, ``{dir}``, ``{name}``, ``{id}``, ``{md5:8}`` slots), else beside the file. Which key carries what is
read from the keys' words (``text_roles.tokens``), never from one server's names.
"""

from __future__ import annotations

import hashlib
import posixpath
from typing import Any

from ...state.ledger import Effect, Entity
from ..base import Prediction, Step
from .common import clock, now_iso
from .text_roles import item_props, tokens

JSONDict = dict[str, Any]
#: The file entity's field holding its backups, oldest first.
BACKUPS = "backups"
#: ``_meta`` key of a tool: ``{"path": template}`` the recording's backup paths follow.
BACKUP_META = "agentworld/backups"
_ID = {"id", "identifier", "key"}
_TIME = {"timestamp", "time", "created", "date", "when", "modified"}
_SIZE = {"size", "bytes", "length"}
_PATH = {"path", "file", "location", "filename"}
_SAVED = {"current", "saved", "previous", "replaced", "old"}


def backup_key(props: JSONDict) -> str | None:
    """The edit report's key naming the backup an applied edit made (a string, or null when none)."""
    return next((str(k) for k, spec in props.items() if "backup" in tokens(str(k))
                 and _kind(spec) in ("string", "null", "")), None)


def _kind(spec: Any) -> str:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return kind if isinstance(kind, str) else ""


def _item_roles(props: JSONDict) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, spec in props.items():
        t, kind = tokens(str(key)), _kind(spec)
        role = ("size" if kind in ("integer", "number") and t & _SIZE else
                "time" if t & _TIME else "id" if t & _ID else "path" if t & _PATH else None)
        if role is not None:
            found.setdefault(role, str(key))
    return found


def _is_backup(props: JSONDict) -> bool:
    return {"path", "size"} <= set(_item_roles(props)) and bool({"id", "time"} & set(_item_roles(props)))


def restores(props: JSONDict) -> bool:
    """Whether a shape is a restore's answer: a list of backups (objects with a path, a size and an id or time)."""
    return any(_kind(spec) == "array" and _is_backup(item_props(spec)) for spec in props.values())


def new_backup(step: Step, path: str, text: str, backups: list[JSONDict]) -> JSONDict:
    """The backup of ``text`` (the file at ``path``) made at this call's moment on the episode's clock."""
    moment = clock(step.turn)
    ident = str(int(moment.timestamp()))
    meta = (step.tool.definition.get("_meta") or {}).get(BACKUP_META)
    template = meta.get("path") if isinstance(meta, dict) else None
    slots = {"dir": posixpath.dirname(path), "name": posixpath.basename(path), "id": ident}
    if isinstance(template, str):
        written = template
        for name, value in slots.items():
            written = written.replace("{" + name + "}", value)
        for algo in ("md5", "sha1", "sha256"):
            digest = hashlib.new(algo, path.encode("utf-8")).hexdigest()
            for n in range(4, len(digest) + 1):
                written = written.replace("{" + f"{algo}:{n}" + "}", digest[:n])
    else:
        written = f"{path}.{ident}.bak"
    return {"id": ident, "time": now_iso(step.turn), "size": len(text.encode("utf-8")), "path": written,
            "content": text}


def saved(backups: list[JSONDict], backup: JSONDict) -> list[JSONDict]:
    """``backups`` with ``backup`` added (one made in the same second at the same path replaces that one)."""
    return [b for b in backups if b.get("path") != backup["path"]] + [backup]


def _shown(spec: Any, backup: JSONDict) -> JSONDict:
    props = spec.get("properties") if isinstance(spec, dict) else None
    roles = _item_roles(props if isinstance(props, dict) else {})
    return {key: backup[role] for role, key in roles.items() if role in backup}


def restore(step: Step, path: str, entity: Entity, props: JSONDict) -> Prediction:
    """The restore's answer: the named backup (an argument naming a backup's id), else the latest, put back."""
    backups = [b for b in entity.fields.get(BACKUPS) or [] if isinstance(b, dict)]
    if not backups:
        return Prediction("No backups found for this file", is_error=True, effects=[])
    wanted = next((v for k, v in step.arguments.items() if isinstance(v, str) and v and "backup" in tokens(k)
                   or isinstance(v, str) and v and tokens(k) & _ID), None)
    target = next((b for b in backups if b.get("id") == wanted), None) if wanted else backups[-1]
    if target is None:
        ids = ", ".join(dict.fromkeys(str(b.get("id")) for b in backups))
        return Prediction(f"Backup {wanted} not found. Available backups: {ids}", is_error=True, effects=[])
    text = str(entity.fields.get("content", ""))
    current = new_backup(step, path, text, backups)
    now = saved(backups, current)
    body: JSONDict = {}
    for key, spec in props.items():
        t, kind = tokens(str(key)), _kind(spec)
        if kind == "boolean":
            body[key] = True
        elif kind == "array" and _is_backup(item_props(spec)):
            body[key] = [_shown(spec.get("items"), b) for b in reversed(now)]
        elif kind == "object" and _is_backup(spec.get("properties") or {}):
            body[key] = _shown(spec, current if t & _SAVED else target)
    fields: JSONDict = {"content": str(target.get("content", "")), BACKUPS: now}
    return Prediction(body, effects=[Effect("update", "files", path, fields)])


__all__ = ["BACKUPS", "BACKUP_META", "backup_key", "new_backup", "restore", "restores", "saved"]
