"""The shell engine's file tree: the ``files`` collection seen from a current directory.

The tree is the file store's (:mod:`..files`): entities of the ``files`` collection keyed by
normalised absolute path, ``{"path", "type": "file" | "directory", "content"}``, a directory
existing where one was created or anything lies below it. So a file written by ``echo`` is
read by a ``read_file`` tool of the same catalog and the other way round, and a world's
``files`` seed is the shell's truth.

The current directory is one more entity, ``shell/session`` (``{"id": "session", "cwd":
"/workspace"}``), so every store persists, resets and seeds it. It starts in the shell's home:
the one top directory the seed's files lie in (where a server of the tree was started), else
``/``. Paths are fenced in that directory too: ``..`` never leaves it, an absolute path outside
it is refused, and nothing here ever touches the host's file system.

A :class:`Tree` reads the episode's ledger and collects the :class:`Effect` s of one command;
it never changes the episode (the engine applies the effects when the call succeeds).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ....state.ledger import Effect, Entity, Ledger
from ....world.roles import normalise_path
from ...base import Step
from ..files import allowed_roots

FILES = "files"
SESSION = ("shell", "session")
#: Bounds of one episode's tree: a write larger than this is refused as the kernel refuses it.
MAX_FILE_BYTES = 1 << 20
MAX_ENTRIES = 10_000
MAX_PATH = 4096
Kind = Literal["file", "directory"]


class ShellError(Exception):
    """A command's failure, worded as the shell prints it (``cat: a.txt: No such file or directory``)."""


@dataclass
class Tree:
    ledger: Ledger
    root: str
    cwd: str
    effects: list[Effect] = field(default_factory=list)

    @classmethod
    def of(cls, step: Step) -> Tree:
        roots = allowed_roots(step)
        root = roots[0] if len(roots) == 1 else "/"
        session = step.episode.ledger.get(*SESSION)
        cwd = str(session.fields.get("cwd", "")) if session is not None else ""
        cwd = normalise_path(cwd) if cwd.startswith("/") else root
        return cls(step.episode.ledger, root, cwd if _within(cwd, root) else root)

    # -- paths ---------------------------------------------------------------------------------

    def resolve(self, command: str, raw: str) -> str:
        """``raw`` (absolute, relative to the current directory, or ``~``) as a key of the tree."""
        if not raw:
            raise ShellError(f"{command}: '': No such file or directory")
        if "\x00" in raw or len(raw) > MAX_PATH:
            raise ShellError(f"{command}: {_short(raw)}: File name too long" if len(raw) > MAX_PATH
                             else f"{command}: invalid file name")
        if raw == "~" or raw.startswith("~/"):
            raw = self.root + raw[1:]
        path = normalise_path(raw if raw.startswith("/") else posixpath.join(self.cwd, raw))
        if not _within(path, self.root):
            raise ShellError(f"{command}: {raw}: Permission denied (outside {self.root})")
        return path

    # -- reading -------------------------------------------------------------------------------

    def entity(self, path: str) -> Entity | None:
        return self.ledger.get(FILES, path)

    def kind(self, path: str) -> Kind | None:
        entity = self.entity(path)
        if entity is not None:
            return "directory" if entity.fields.get("type") == "directory" else "file"
        prefix = _below(path)
        if path == "/" or any(e.key.startswith(prefix) for e in self.ledger.items(FILES)):
            return "directory"
        return None

    def content(self, path: str) -> str:
        entity = self.entity(path)
        return str(entity.fields.get("content", "")) if entity is not None else ""

    def children(self, path: str) -> dict[str, Kind]:
        """The directory's entries by name, sorted as ``ls`` sorts them in the C locale."""
        prefix = _below(path)
        out: dict[str, Kind] = {}
        for entity in self.ledger.items(FILES):
            if not entity.key.startswith(prefix) or entity.key == path:
                continue
            name, _, deeper = entity.key[len(prefix):].partition("/")
            if deeper or entity.fields.get("type") == "directory":
                out[name] = "directory"
            else:
                out.setdefault(name, "file")
        return dict(sorted(out.items()))

    def walk(self, path: str) -> Iterator[tuple[str, Kind]]:
        """Everything below ``path``, depth first, each directory before what it holds."""
        for name, kind in self.children(path).items():
            child = posixpath.join(path, name)
            yield child, kind
            if kind == "directory":
                yield from self.walk(child)

    def below(self, path: str) -> list[Entity]:
        """The stored entities at ``path`` and under it."""
        prefix = _below(path)
        return [e for e in self.ledger.items(FILES) if e.key == path or e.key.startswith(prefix)]

    def size(self, path: str) -> int:
        if self.kind(path) == "file":
            return len(self.content(path).encode("utf-8"))
        return sum(len(str(e.fields.get("content", "")).encode("utf-8")) for e in self.below(path)
                   if e.fields.get("type") != "directory")

    # -- changing ------------------------------------------------------------------------------

    def chdir(self, path: str) -> None:
        fields = {"id": SESSION[1], "cwd": path}
        exists = self.ledger.get(*SESSION) is not None
        self.effects.append(Effect("update" if exists else "create", *SESSION, fields))

    def write(self, command: str, path: str, content: str) -> None:
        if len(content.encode("utf-8")) > MAX_FILE_BYTES:
            raise ShellError(f"{command}: {posixpath.basename(path)}: File too large")
        if self.entity(path) is not None:
            self.effects.append(Effect("update", FILES, path, {"content": content}))
        else:
            self._create(command, path, {"path": path, "type": "file", "content": content})

    def make_dir(self, command: str, path: str) -> None:
        self._create(command, path, {"path": path, "type": "directory"})

    def remove(self, path: str) -> None:
        self._keep_parent(path)
        self.effects += [Effect("delete", FILES, e.key) for e in self.below(path)]

    def move(self, source: str, target: str) -> None:
        self._keep_parent(source)
        if self.entity(target) is not None:  # a file replaced by the move
            self.effects.append(Effect("delete", FILES, target))
        if self.entity(source) is None:  # a directory only its contents imply: it stays one where it goes
            self.effects.append(Effect("create", FILES, target, {"path": target, "type": "directory"}))
        for entity in self.below(source):
            key = target + entity.key[len(source):]
            self.effects.append(Effect("move", FILES, entity.key, {"path": key}, new_key=key))

    def copy(self, command: str, source: str, target: str) -> None:
        if self.kind(source) == "directory" and self.kind(target) is None:
            self.make_dir(command, target)
        for entity in self.below(source):
            key = target + entity.key[len(source):]
            if key != target or self.kind(source) == "file":
                fields: dict[str, Any] = {**entity.fields, "path": key}
                if self.entity(key) is not None:
                    self.effects.append(Effect("update", FILES, key, fields))
                else:
                    self._create(command, key, fields)

    def _create(self, command: str, path: str, fields: dict[str, Any]) -> None:
        created = sum(1 for e in self.effects if e.op == "create" and e.collection == FILES)
        if len(self.ledger.items(FILES)) + created >= MAX_ENTRIES:
            raise ShellError(f"{command}: cannot create '{posixpath.basename(path)}': No space left on device")
        self.effects.append(Effect("create", FILES, path, fields))

    def _keep_parent(self, path: str) -> None:
        """A directory that only its contents implied stays when they leave it (as a real one does)."""
        parent = posixpath.dirname(path)
        if parent != "/" and self.entity(parent) is None:
            self.effects.append(Effect("create", FILES, parent, {"path": parent, "type": "directory"}))


def _within(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def _below(path: str) -> str:
    return "/" if path == "/" else path.rstrip("/") + "/"


def _short(raw: str) -> str:
    return raw[:60] + "..." if len(raw) > 60 else raw


__all__ = ["FILES", "MAX_ENTRIES", "MAX_FILE_BYTES", "SESSION", "ShellError", "Tree"]
