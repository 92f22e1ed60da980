"""The repository a version-control session started from, read from its answers (``learn``).

A catalog the git engine claims (``models/deterministic/engines/git.py``) keeps one repository per
working directory (``engines/git_repo.py``). The real one had a history, branches, tags, changed and
untracked files before the session's first call; its answers show them, and the learned world starts
from them as seed state:

* **commits**: every record an answer shows with a hash and an author, a time, a subject or parents
  (``log``, the working directory's ``recentCommits``, ``blame`` lines, ``show``'s ``commit <sha>`` text);
  a short hash becomes the full one where any answer shows it. A commit the session made (the answer of a
  commit or merge showed it first, or a parent of it is one) is no seed.
* **HEAD**: the parent of the session's first commit, else the first commit of an unfiltered history
  read before anything moved HEAD; the current branch as a status or branch list said before a checkout.
* **branches and tags** as a list showed them, until a change named them.
* **the working tree**: modified, deleted, staged and untracked names from a status read before anything
  touched the tree; texts where ``show`` (at a commit that was there before) or ``blame`` showed them,
  and a text any answer showed whose git blob id a diff's ``index`` line names (a diff's hunks applied
  to one side, where they fit it, give the other). A file known by name only exists with
  its text unknown.
* **the clock and the user**: where every commit the session made was stamped with one instant (the
  standing clock ``learn_clock.py`` learns for written instants), new commits get that instant; the
  author the session's commits got without an ``author`` argument is the repository's user.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..models.deterministic.engines.git import is_git_catalog, operation
from ..models.deterministic.engines.git_repo import COLLECTION, FILES, blob_id
from ..models.deterministic.learned_state import answer_data, failed
from ..world.catalog import Catalog
from ..world.roles import normalise_path
from .fidelity import parse_text
from .score import RecordedTurn, text_of

JSONDict = dict[str, Any]
_HEX = re.compile(r"[0-9a-f]{7,40}")
_HASH = ("hash", "sha", "commit", "commithash", "commitid", "oid", "objectid", "id")
_AUTHOR, _EMAIL = ("author", "authorname"), ("authoremail", "email")
_TIME = ("timestamp", "time", "date", "authordate", "committerdate")
_SUBJECT = ("subject", "summary", "title", "message")
_PARENTS = ("parents", "parenthashes", "parentshas")
_NAME = ("name", "ref", "branch", "tag", "tagname", "branchname")
#: Operations that only read; ``branch``/``tag``/``stash`` read too when they list.
_READS = {"status", "log", "diff", "show", "set_dir"}
#: Operations that make commits, move HEAD, or change the index or the working tree.
_COMMITTING = {"commit", "merge"}
_MOVING = {"commit", "merge", "checkout", "reset", "init"}
_TOUCHING = {"add", "commit", "checkout", "merge", "reset", "stash", "init"}
_PORCELAIN = re.compile(r"^commit ([0-9a-f]{40})\nAuthor: (.*?) <(.*?)>\nDate: +(.+)\n\n {4}(.*)$", re.MULTILINE)
_DIFF = re.compile(r"^diff --git a/(\S+) b/\S+\n(?:.*\n)*?index ([0-9a-f]+)\.\.([0-9a-f]+)", re.MULTILINE)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STATUS_LINE = re.compile(r"^\t(new file|modified|deleted):\s+(.+)$")
_PATH_ARGS = ("path", "repo_path", "repository", "repo", "repoPath", "repository_path", "cwd", "directory", "dir")
_FILE_ARGS = ("filePath", "file_path", "file", "path_in_commit")


def _norm(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _pick(d: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((d[n] for n in names if d.get(n) not in (None, "", [])), None)


def epoch(value: Any) -> int | None:
    """An instant as seconds: epoch seconds or milliseconds, ISO 8601, or git's ``Tue Nov 24 10:00:00 2026 +0000``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value // 1000 if value > 10**11 else value) if value > 10**8 else None
    if not isinstance(value, str):
        return None
    for parse in (lambda s: dt.datetime.fromisoformat(s), lambda s: dt.datetime.strptime(s, "%a %b %d %H:%M:%S %Y %z")):
        try:
            moment = parse(value.strip())
        except ValueError:
            continue
        return int((moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).timestamp())
    return None


@dataclass
class Commit:
    sha: str
    author: str | None = None
    email: str | None = None
    time: int | None = None
    subject: str | None = None
    parents: list[str] | None = None

    def merge(self, other: Commit) -> None:
        for name in ("author", "email", "time", "subject", "parents"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))


@dataclass
class Seen:
    """What one episode's answers showed of the repository before the session changed it."""

    commits: dict[str, Commit] = field(default_factory=dict)
    made: set[str] = field(default_factory=set)  # commits the session made
    head: str | None = None  # the current branch
    head_commit: str | None = None
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, JSONDict] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)  # path -> modified | deleted | added | untracked
    head_text: dict[str, str] = field(default_factory=dict)  # path -> its text at HEAD
    work_text: dict[str, str] = field(default_factory=dict)  # path -> its text in the working tree
    diffs: list[tuple[str, str, str, list[tuple[int, int, list[str]]]]] = field(default_factory=list)
    texts: set[str] = field(default_factory=set)  # every text an answer showed
    stamps: list[int] = field(default_factory=list)  # times of the commits the session made
    users: list[tuple[str, str | None]] = field(default_factory=list)
    path: str | None = None

    def commit(self, found: Commit) -> None:
        if found.sha in self.commits:
            self.commits[found.sha].merge(found)
        else:
            self.commits[found.sha] = found


def _commit_of(d: JSONDict) -> Commit | None:
    keys = {_norm(k): v for k, v in d.items()}
    sha = _pick(keys, _HASH)
    if not isinstance(sha, str) or not _HEX.fullmatch(sha) or _pick(keys, _NAME) is not None:
        return None
    author: Any = _pick(keys, _AUTHOR)
    email: Any = _pick(keys, _EMAIL)
    if isinstance(author, dict):
        email = email or author.get("email")
        author = author.get("name")
    if isinstance(author, str) and "<" in author:
        author, _, rest = author.partition("<")
        author, email = author.strip(), email or rest.rstrip(">").strip()
    subject = _pick(keys, _SUBJECT)
    parents = _pick(keys, _PARENTS)
    found = Commit(sha, author if isinstance(author, str) else None, email if isinstance(email, str) else None,
                   epoch(_pick(keys, _TIME)), subject.splitlines()[0] if isinstance(subject, str) and subject else None,
                   [p for p in parents if isinstance(p, str)] if isinstance(parents, list) else None)
    return found if any(getattr(found, n) is not None for n in ("author", "time", "subject", "parents")) else None


def _ref_of(d: JSONDict) -> tuple[str, str, bool] | None:
    """A branch or tag record: ``(name, hash, current)``."""
    keys = {_norm(k): v for k, v in d.items()}
    name, sha = _pick(keys, _NAME), _pick(keys, ("commithash", "commit", "hash", "sha", "target", "oid"))
    if isinstance(name, str) and isinstance(sha, str) and _HEX.fullmatch(sha):
        return name, sha, keys.get("current") is True
    return None


def _walk(value: Any, under: str = "") -> list[tuple[str, JSONDict]]:
    """Every object inside ``value`` with the key it sits under (JSON inside text parsed)."""
    if isinstance(value, str) and value[:1] in "[{":
        ok, parsed = parse_text(value)
        return _walk(parsed, under) if ok else []
    if isinstance(value, list):
        return [pair for item in value for pair in _walk(item, under)]
    if isinstance(value, dict):
        return [(under, value)] + [pair for k, v in value.items() for pair in _walk(v, _norm(k))]
    return []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def _names(value: Any) -> list[str]:
    """File names a status field holds: a list, or lists under ``added``/``modified``..."""
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _status(data: Any, text: str) -> dict[str, str]:
    """path -> modified | deleted | added (staged) | untracked, from a status answer (JSON or git's text)."""
    out: dict[str, str] = {}
    for _, d in _walk(data):
        keys = {_norm(k): v for k, v in d.items()}
        for part in ("staged", "stagedchanges", "unstaged", "unstagedchanges"):
            value = keys.get(part)
            grouped = {_norm(k): _names(v) for k, v in value.items()} if isinstance(value, dict) else \
                {"added" if part.startswith("staged") else "modified": _names(value)}
            for kind, names in grouped.items():
                for name in names:
                    out.setdefault(name, kind if kind in ("added", "deleted") else "modified")
        for part in ("untracked", "untrackedfiles"):
            for name in _names(keys.get(part)):
                out.setdefault(name, "untracked")
    section = ""
    for line in text.splitlines():
        if line and not line.startswith("\t"):
            section = line
        elif (m := _STATUS_LINE.match(line)) is not None:
            out.setdefault(m.group(2).strip(), "added" if m.group(1) == "new file" else m.group(1))
        elif section.startswith("Untracked files") and line.strip():
            out.setdefault(line.strip(), "untracked")
    return out


def _hunks(diff: str) -> list[tuple[int, int, list[str]]]:
    """A unified diff's hunks: ``(old start, new start, lines)``."""
    out: list[tuple[int, int, list[str]]] = []
    for line in diff.splitlines():
        if (m := _HUNK.match(line)) is not None:
            out.append((int(m.group(1)), int(m.group(3)), []))
        elif out and line[:1] in (" ", "+", "-") and not line.startswith(("+++", "---")):
            out[-1][2].append(line)
    return out


def patched(text: str, hunks: list[tuple[int, int, list[str]]], *, backwards: bool) -> str | None:
    """``text`` with a diff's hunks applied (``backwards``: from its new side to its old); None when they do not fit."""
    lines, out, at = text.splitlines(keepends=True), [], 0
    mine, theirs = ("+", "-") if backwards else ("-", "+")
    for old_start, new_start, body in hunks:
        start = max((new_start if backwards else old_start) - 1, 0)
        if start < at:
            return None
        out += lines[at:start]
        at = start
        for line in body:
            if line[0] in (" ", mine):
                if at >= len(lines) or lines[at].rstrip("\n") != line[1:]:
                    return None
                at += 1
            if line[0] in (" ", theirs):
                out.append(line[1:] + "\n")
    return "".join(out + lines[at:])


def _writes(op: str | None, args: JSONDict, kind: str | None) -> bool:
    """Whether a call changes the repository (a branch, tag or stash call that lists does not)."""
    if op is None:
        return kind not in ("read", "list", "search")
    if op in _READS:
        return False
    if op in ("branch", "tag", "stash"):
        mode = args.get("mode")
        names = ("branchName", "branch_name", "tagName", "tag_name", "name", "branch", "tag")
        return mode not in ("list", "show") and (mode is not None or op == "stash" or _pick(args, names) is not None)
    return True


def _episode(turns: list[RecordedTurn], catalog: Catalog) -> Seen:
    seen = Seen()
    moved = touched = committed = False  # HEAD moved; index or tree touched; a commit made
    named: set[str] = set()  # refs a change named
    listed_first: str | None = None
    for turn in turns:
        spec = catalog.get(turn.tool)
        if spec is None or failed(turn.result):
            continue
        found = operation(spec.definition)
        op, implied = found if found is not None else (None, {})
        args = {**implied, **turn.arguments}
        writes = _writes(op, args, spec.role.kind)
        if op == "set_dir" and seen.path is None and isinstance(args.get("path"), str):
            seen.path = normalise_path(args["path"])
        elif seen.path is None and (p := _pick(args, _PATH_ARGS)) is not None and isinstance(p, str) and p.startswith("/"):
            seen.path = normalise_path(p)
        data, text = answer_data(turn.result), text_of(turn.result)
        seen.texts.update(s for s in _strings(data) if "\n" in s)
        shown: list[Commit] = []
        for under, d in _walk(data):
            if (commit := _commit_of(d)) is not None:
                shown.append(commit)
            elif (ref := _ref_of(d)) is not None and not writes:
                name, sha, current = ref
                kind = "tag" if op == "tag" or "tag" in under else "branch" if op == "branch" or "branch" in under else None
                if name in named or kind is None:
                    continue
                if kind == "tag":
                    keys = {_norm(k): v for k, v in d.items()}
                    info: JSONDict = {"commit": sha}
                    if isinstance(keys.get("message"), str):
                        info["message"] = keys["message"]
                    if (when := epoch(_pick(keys, _TIME))) is not None:
                        info["time"] = when
                    seen.tags.setdefault(name, info)
                else:
                    seen.branches.setdefault(name, sha)
                    if current and not moved and seen.head is None:
                        seen.head = name
        for s in _strings(data):
            for m in _PORCELAIN.finditer(s):
                shown.append(Commit(m.group(1), m.group(2), m.group(3), epoch(m.group(4)), m.group(5)))
        if op in _COMMITTING and writes and shown:
            first = shown[0]
            if first.sha not in seen.commits:
                seen.made.add(first.sha)
                if first.time is not None:
                    seen.stamps.append(first.time)
                if op == "commit" and "author" not in turn.arguments and first.author:
                    seen.users.append((first.author, first.email))
        for commit in shown:
            seen.commit(commit)
        if not writes:
            _read(seen, op, args, data, text, shown, moved=moved, touched=touched, committed=committed)
            if op in ("log", "set_dir") and not moved and listed_first is None and shown and not (
                    set(turn.arguments) & {"author", "filePath", "file_path", "grep", "branch", "ref", "skip", "since"}):
                listed_first = shown[0].sha
        if writes:
            named.update(s for s in _strings(args))
            if op in _MOVING or op is None:
                if op in _COMMITTING and shown and seen.head_commit is None and not moved:
                    parents = seen.commits[shown[0].sha].parents
                    seen.head_commit = parents[0] if parents else None
                if seen.head:
                    named.add(seen.head)
                moved = True
            touched = touched or op in _TOUCHING or op is None or bool(_pick(args, ("filesToStage", "files_to_stage")))
            committed = committed or op in _COMMITTING or op is None
    seen.head_commit = seen.head_commit or listed_first
    return seen


def _read(seen: Seen, op: str | None, args: JSONDict, data: Any, text: str, shown: list[Commit], *,
          moved: bool, touched: bool, committed: bool) -> None:
    """What one reading answer shows of the tree and HEAD, while the session had not changed them."""
    if not moved and seen.head is None:
        for _, d in _walk(data):
            keys = {_norm(k): v for k, v in d.items()}
            branch = _pick(keys, ("currentbranch", "branch"))
            if isinstance(branch, str) and ("staged" in keys or "stagedchanges" in keys or "currentbranch" in keys):
                seen.head = branch
                break
        if seen.head is None and (m := re.match(r"On branch (\S+)", text)) is not None:
            seen.head = m.group(1)
    if not touched and op in ("status", "set_dir"):
        for path, kind in _status(data, text).items():
            seen.status.setdefault(path, kind)
    file = _pick(args, _FILE_ARGS)
    content = data.get("content") if isinstance(data, dict) else None
    if op == "show" and isinstance(file, str) and isinstance(content, str) and not committed:
        ref = str(args.get("object") or args.get("ref") or "HEAD")
        if ref in ("HEAD", "@", seen.head):
            seen.head_text.setdefault(file, content)
    if op is None and isinstance(file, str) and not committed and shown:
        lines = [d.get("content") for _, d in _walk(data) if _commit_of(d) is not None]
        if lines and all(isinstance(line, str) for line in lines):  # blame: one record per line of HEAD's text
            seen.head_text.setdefault(file, "".join(f"{line}\n" for line in lines))
    if op == "diff" and not touched and not any(args.get(k) for k in ("staged", "cached", "target", "source", "ref")):
        for s in _strings(data) or [text]:
            for m in _DIFF.finditer(s):
                end = s.find("\ndiff --git ", m.end())
                seen.diffs.append((m.group(1), m.group(2), m.group(3), _hunks(s[m.end(): end if end > 0 else None])))


def _texts(seen: Seen) -> None:
    """Texts of changed files by the blob ids a diff showed: a shown text of that id, or a side's text with the
    hunks applied (where they fit it), else what the hunks show of each side."""
    by_id = {blob_id(t): t for t in seen.texts}
    for path, old, new, hunks in seen.diffs:
        seen.status.setdefault(path, "modified")
        work = seen.work_text.get(path) or next((t for h, t in by_id.items() if h.startswith(new)), None)
        head = seen.head_text.get(path) or next((t for h, t in by_id.items() if h.startswith(old)), None)
        if work is not None and head is None:  # hunks that fit the whole text give the other side
            head = patched(work, hunks, backwards=True)
        if head is not None and work is None:
            work = patched(head, hunks, backwards=False)
        if work is None and head is None:  # what the hunks show, each side
            head = "".join(f"{line[1:]}\n" for _, _, body in hunks for line in body if line[0] in " -")
            work = "".join(f"{line[1:]}\n" for _, _, body in hunks for line in body if line[0] in " +")
        if work is not None:
            seen.work_text.setdefault(path, work)
        if head is not None:
            seen.head_text.setdefault(path, head)


def _full(seen: Seen, sha: str) -> str:
    longer = {h for h in seen.commits if len(h) > len(sha) and h.startswith(sha)}
    return longer.pop() if len(longer) == 1 else sha


def repository_seed(seen: Seen) -> dict[str, list[JSONDict]]:
    """The repository entity and its working tree's files, as ``engines/git_repo.py`` stores them."""
    _texts(seen)
    for short in [h for h in seen.commits if len(h) < 40]:
        full = _full(seen, short)
        if full != short:
            seen.commits[full].merge(seen.commits.pop(short))
    made = set(seen.made)
    for _ in range(len(seen.commits)):  # a commit whose parent the session made was made by it too
        more = {h for h, c in seen.commits.items() if any(_full(seen, p) in made for p in c.parents or [])}
        if more <= made:
            break
        made |= more
    commits = {h: c for h, c in seen.commits.items() if h not in made}
    head_commit = _full(seen, seen.head_commit) if seen.head_commit else None
    if not commits and not seen.status:
        return {}
    head = seen.head or "main"
    if head_commit is None and head in seen.branches:
        head_commit = _full(seen, seen.branches[head])
    tree = {p: seen.head_text.get(p, "") for p, kind in seen.status.items() if kind in ("modified", "deleted")}
    tree.update(seen.head_text)
    work = {p: seen.work_text.get(p, tree.get(p, "")) for p in {*tree, *seen.status} if seen.status.get(p) != "deleted"}
    for path, kind in seen.status.items():
        if kind == "modified" and work.get(path) == tree.get(path):  # changed, its texts unknown: one blank line
            work[path] = tree.get(path, "") + "\n"
    index = {p: (work.get(p, "") if seen.status.get(p) == "added" else t) for p, t in tree.items()}
    index.update({p: work.get(p, "") for p, kind in seen.status.items() if kind == "added"})
    times = [c.time for c in commits.values() if c.time is not None]
    authors = Counter((c.author, c.email) for c in commits.values() if c.author)
    usual = authors.most_common(1)[0][0] if authors else ("", "")
    stored: JSONDict = {}
    order = list(commits)
    for i, (sha, c) in enumerate(commits.items()):
        parents = [_full(seen, p) for p in c.parents] if c.parents is not None else \
            ([order[i + 1]] if i + 1 < len(order) else [])  # a history read without parents: one line of descent
        stored[sha] = {"tree": dict(tree), "message": c.subject or "", "parents": parents,
                       "author": c.author or usual[0], "email": c.email or usual[1] or "",
                       "time": c.time if c.time is not None else min(times, default=0)}
    branches = {n: _full(seen, h) for n, h in seen.branches.items() if _full(seen, h) in stored}
    if head_commit in stored:
        branches[head] = head_commit
    path = seen.path or "."
    entity: JSONDict = {"path": path, "head": head, "detached": False, "branches": branches, "commits": stored,
                        "tags": {n: {**i, "commit": _full(seen, i["commit"])} for n, i in seen.tags.items()
                                 if _full(seen, i["commit"]) in stored},
                        "index": index, "implied": {}, "stashes": []}
    if len(seen.stamps) >= 2 and len(set(seen.stamps)) == 1:
        entity["clock"] = seen.stamps[0]
    users = set(seen.users)
    if len(users) == 1:
        name, email = users.pop()
        email = email or next((c.email for c in seen.commits.values() if c.author == name and c.email), None)
        entity["user"] = [name, email or ""]
    files: list[JSONDict] = []
    for rel in sorted(work):
        item: JSONDict = {"path": rel if path == "." else f"{path.rstrip('/')}/{rel}", "type": "file"}
        if rel in tree or rel in seen.work_text or seen.status.get(rel) != "untracked":
            item["content"] = work[rel]
        files.append(item)
    return {COLLECTION: [entity], **({FILES: files} if files else {})}


def learn_repository(episodes: dict[str, list[RecordedTurn]], catalog: Catalog) -> dict[str, list[JSONDict]]:
    """Seed state of the repository the recording's sessions started from; ``{}`` for a catalog the git engine
    does not claim, or a recording that shows nothing of one. The first episode that shows a repository wins."""
    if not is_git_catalog(catalog.world):
        return {}
    for turns in episodes.values():
        found = repository_seed(_episode(turns, catalog))
        if found:
            return found
    return {}


def merged_seed(seed: dict[str, list[JSONDict]], more: dict[str, list[JSONDict]]) -> dict[str, list[JSONDict]]:
    """``seed`` with ``more`` added; items with a ``path`` merge by it (an item with a text wins)."""
    out = {c: list(items) for c, items in seed.items()}
    for collection, items in more.items():
        have = out.setdefault(collection, [])
        by_path = {normalise_path(str(i["path"])): n for n, i in enumerate(have) if isinstance(i.get("path"), str)}
        for item in items:
            at = by_path.get(normalise_path(str(item["path"]))) if isinstance(item.get("path"), str) else None
            if at is None:
                have.append(item)
            elif "content" in item and "content" not in have[at]:
                have[at] = {**have[at], **item}
            else:
                have[at] = {**item, **have[at]}
    return out


__all__ = ["epoch", "learn_repository", "merged_seed", "patched", "repository_seed"]
