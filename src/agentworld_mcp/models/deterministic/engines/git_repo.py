"""The version-control engine's repository: commits, branches, tags, the index, seen from the ledger.

One repository is one entity of the ``repositories`` collection, keyed by the normalised path of
its working directory, holding its refs and objects as JSON: ``commits`` (sha-1 -> tree, message,
parents, author, time), ``branches`` (name -> sha-1), ``head`` (the current branch, or a sha-1 when
detached), ``tags``, ``index`` (the staged tree: path -> content) and ``stashes``. The working tree
is the file store's ``files`` collection below the repository's path (so a file a file tool wrote is
what ``status`` sees), plus ``implied``: paths the session named that no file tool ever wrote (an
unseeded world knows nothing of the disk, so a path the agent stages is taken to exist, content
unknown). The session's working directory (``set_working_dir``) is ``git_session/session``.

A seeded repository (``learn`` reads one from a recording: ``sim2real/learn_repository.py``) is loaded
as the engine left one, so the episode starts from its history; it may carry ``clock`` (the instant the
recorded server stamped every commit with: its clock stood still) and ``user`` (``[name, email]``, the
author a commit gets without an ``author`` argument). A path ``.`` points at the one seeded repository
when the session set no working directory.

A :class:`Repo` is loaded from the ledger, changed in memory by one operation, and written back as
one effect; the episode itself is never changed here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ....state.ledger import Effect
from ....world.roles import normalise_path
from ...base import Step
from ..common import clock
from ..files import allowed_roots

JSONDict = dict[str, Any]
COLLECTION = "repositories"
FILES = "files"
SESSION = ("git_session", "session")
#: Bounds of one episode's repository: commits kept, bytes of one file compared by diff.
MAX_COMMITS = 2_000
MAX_DIFF_BYTES = 1 << 20
AUTHOR = ("Agent", "agent@example.com")


class GitError(Exception):
    """A refusal worded as git prints it (``error: pathspec 'x' did not match any file(s) known to git``)."""


def session_dir(step: Step) -> str | None:
    entity = step.episode.ledger.get(*SESSION)
    return str(entity.fields.get("path")) if entity is not None and entity.fields.get("path") else None


def default_root(step: Step) -> str:
    """Where ``.`` points: the session's working directory, else the one allowed directory, else ``.``."""
    chosen = session_dir(step)
    if chosen:
        return chosen
    seeded = [e.get("path") for e in step.world.seed.get(COLLECTION) or [] if isinstance(e, dict)]
    if len(seeded) == 1 and isinstance(seeded[0], str):
        return normalise_path(seeded[0])
    roots = allowed_roots(step)
    return roots[0] if len(roots) == 1 and roots[0] != "/" else "."


def repo_path(step: Step, raw: Any) -> str:
    if not isinstance(raw, str) or raw.strip() in ("", "."):
        return default_root(step)
    path = normalise_path(raw.strip())
    base = default_root(step)
    if not path.startswith("/") and base != ".":
        path = normalise_path(f"{base}/{path}")
    return path


@dataclass
class Repo:
    path: str
    exists: bool
    head: str = "main"
    detached: bool = False
    branches: dict[str, str] = field(default_factory=dict)
    commits: dict[str, JSONDict] = field(default_factory=dict)
    tags: dict[str, JSONDict] = field(default_factory=dict)
    index: dict[str, str] = field(default_factory=dict)
    implied: dict[str, str] = field(default_factory=dict)
    stashes: list[JSONDict] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # the working tree the file store holds
    clock: int | None = None  # the recorded server's standing clock, when it had one
    user: tuple[str, str] | None = None
    file_effects: list[Effect] = field(default_factory=list)

    @classmethod
    def load(cls, step: Step, path: str) -> Repo:
        entity = step.episode.ledger.get(COLLECTION, path)
        repo = cls(path, entity is not None)
        if entity is not None:
            f = entity.fields
            repo.head, repo.detached = str(f.get("head", "main")), bool(f.get("detached", False))
            repo.branches, repo.commits = dict(f.get("branches") or {}), dict(f.get("commits") or {})
            repo.tags, repo.index = dict(f.get("tags") or {}), dict(f.get("index") or {})
            repo.implied, repo.stashes = dict(f.get("implied") or {}), list(f.get("stashes") or [])
            repo.clock = f["clock"] if isinstance(f.get("clock"), int) and not isinstance(f["clock"], bool) else None
            user = f.get("user")
            repo.user = (str(user[0]), str(user[1])) if isinstance(user, list) and len(user) == 2 and user[0] else None
        prefix = "" if path == "." else path.rstrip("/") + "/"
        for e in step.episode.ledger.items(FILES):
            if e.fields.get("type") == "directory":
                continue
            if (prefix and e.key.startswith(prefix)) or (not prefix and not e.key.startswith("/")):
                repo.files[e.key[len(prefix):]] = str(e.fields.get("content", ""))
        return repo

    def fields(self) -> JSONDict:
        out: JSONDict = {"path": self.path, "head": self.head, "detached": self.detached, "branches": self.branches,
                         "commits": self.commits, "tags": self.tags, "index": self.index, "implied": self.implied,
                         "stashes": self.stashes}
        if self.clock is not None:
            out["clock"] = self.clock
        if self.user is not None:
            out["user"] = list(self.user)
        return out

    def now(self, turn: int) -> int:
        """The instant a commit, tag or stash made at ``turn`` is stamped with (seconds)."""
        return self.clock if self.clock is not None else int(clock(turn).timestamp())

    def default_author(self) -> tuple[str, str]:
        """Who commits when the call names nobody: the repository's user, else HEAD's author, else the default."""
        if self.user is not None:
            return self.user
        head = self.head_commit()
        if head in self.commits:
            return str(self.commits[head]["author"]), str(self.commits[head]["email"])
        return AUTHOR

    def effects(self) -> list[Effect]:
        return [Effect("update" if self.exists else "create", COLLECTION, self.path, self.fields()), *self.file_effects]

    # -- trees -----------------------------------------------------------------------------------

    def worktree(self) -> dict[str, str]:
        return {**self.implied, **self.files}

    def knows_files(self) -> bool:
        """Whether the episode holds this working tree's files (then a path it lacks does not exist)."""
        return bool(self.files)

    def head_commit(self) -> str | None:
        return self.head if self.detached else self.branches.get(self.head)

    def tree(self, commit: str | None) -> dict[str, str]:
        return dict(self.commits[commit]["tree"]) if commit and commit in self.commits else {}

    def write_file(self, rel: str, content: str) -> None:
        """Put ``content`` in the working tree (a checkout, a merge): in the file store where it keeps it."""
        if rel in self.files or rel not in self.implied:
            key = rel if self.path == "." else f"{self.path.rstrip('/')}/{rel}"
            if rel in self.files:
                self.file_effects.append(Effect("update", FILES, key, {"content": content}))
            else:
                self.file_effects.append(Effect("create", FILES, key, {"path": key, "type": "file", "content": content}))
            self.files[rel] = content
        else:
            self.implied[rel] = content

    def remove_file(self, rel: str) -> None:
        if rel in self.files:
            key = rel if self.path == "." else f"{self.path.rstrip('/')}/{rel}"
            self.file_effects.append(Effect("delete", FILES, key))
            del self.files[rel]
        self.implied.pop(rel, None)

    # -- refs ------------------------------------------------------------------------------------

    def resolve(self, ref: str) -> str | None:
        """A commit's sha-1 from a branch, a tag, ``HEAD``, ``HEAD~n``/``^``, or a (short) hash."""
        ref = ref.strip()
        base, back = ref, 0
        while base.endswith("^"):
            base, back = base[:-1], back + 1
        if "~" in base:
            base, _, count = base.partition("~")
            back += int(count) if count.isdigit() else 1 if count == "" else 0
        commit: str | None
        if base in ("HEAD", "@"):
            commit = self.head_commit()
        elif base in self.branches:
            commit = self.branches[base]
        elif base in self.tags:
            commit = str(self.tags[base]["commit"])
        elif len(base) >= 4 and all(c in "0123456789abcdef" for c in base.lower()):
            found = [h for h in self.commits if h.startswith(base.lower())]
            commit = found[0] if len(found) == 1 else None
        else:
            commit = None
        for _ in range(back):
            parents = self.commits[commit]["parents"] if commit in self.commits else []
            commit = parents[0] if parents else None
        return commit

    def history(self, start: str | None) -> list[str]:
        """Commits reachable from ``start``, newest first."""
        seen: list[str] = []
        todo = [start] if start else []
        while todo:
            commit = todo.pop(0)
            if commit in seen or commit not in self.commits:
                continue
            seen.append(commit)
            todo.extend(self.commits[commit]["parents"])
        return sorted(seen, key=lambda h: (-int(self.commits[h]["time"]), seen.index(h)))

    def new_commit(self, tree: dict[str, str], message: str, parents: list[str], author: tuple[str, str],
                   time: int) -> str:
        if len(self.commits) >= MAX_COMMITS:
            raise GitError(f"fatal: too many commits in one session (at most {MAX_COMMITS})")
        body = json.dumps([tree, message, parents, author, time], sort_keys=True)
        sha = hashlib.sha1(f"commit {len(body)}\0{body}".encode()).hexdigest()
        self.commits[sha] = {"tree": tree, "message": message, "parents": parents, "author": author[0],
                             "email": author[1], "time": time}
        return sha


def blob_id(content: str) -> str:
    data = content.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


__all__ = ["AUTHOR", "COLLECTION", "GitError", "MAX_DIFF_BYTES", "Repo", "SESSION", "blob_id", "default_root",
           "repo_path", "session_dir"]
