"""The version-control operations on one :class:`.git_repo.Repo`, each as git does it.

An operation reads its arguments through :class:`Call` (the names git tools use: ``paths``/``files``,
``branchName``/``branch_name``, ``maxCount``/``max_count``...), changes the repository in memory and
returns :class:`Done`: the facts of the answer (keys as outputSchemas name them, normalised: lower
case, letters and digits only) and the text git prints. A refusal raises :class:`.git_repo.GitError`
worded as git words it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...base import Step
from ..common import clock
from .git_repo import AUTHOR, MAX_DIFF_BYTES, GitError, Repo

JSONDict = dict[str, Any]


@dataclass
class Call:
    step: Step
    repo: Repo

    def arg(self, *names: str, default: Any = None) -> Any:
        return next((self.step.arguments[n] for n in names if self.step.arguments.get(n) not in (None, "")), default)

    def flag(self, *names: str) -> bool:
        return bool(self.arg(*names, default=False))

    def text(self, *names: str) -> str | None:
        value = self.arg(*names)
        return str(value) if isinstance(value, (str, int)) else None

    def paths(self, *names: str) -> list[str]:
        value = self.arg(*names, default=[])
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        return [_rel(self.repo, str(p)) for p in items if isinstance(p, str) and p]

    @property
    def time(self) -> int:
        return self.repo.now(self.step.turn)


@dataclass
class Done:
    facts: JSONDict
    text: str
    extra: JSONDict = field(default_factory=dict)


def _rel(repo: Repo, raw: str) -> str:
    raw = raw.strip()
    prefix = repo.path.rstrip("/") + "/"
    if raw.startswith(prefix):
        raw = raw[len(prefix):]
    while raw.startswith("./"):
        raw = raw[2:]
    return raw.rstrip("/") or "."


# -- status ----------------------------------------------------------------------------------------


def changes(old: dict[str, str], new: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"added": [], "modified": [], "deleted": []}
    for path in sorted(set(old) | set(new)):
        if path not in old:
            out["added"].append(path)
        elif path not in new:
            out["deleted"].append(path)
        elif old[path] != new[path]:
            out["modified"].append(path)
    return {k: v for k, v in out.items() if v}


def status_facts(repo: Repo, untracked: bool = True) -> JSONDict:
    head = repo.tree(repo.head_commit())
    work = repo.worktree()
    staged = changes(head, repo.index)
    unstaged = {k: v for k, v in changes(repo.index, work).items() if k != "added"}
    loose = sorted(set(work) - set(repo.index)) if untracked else []
    clean = not staged and not unstaged and not sorted(set(work) - set(repo.index))
    branch = None if repo.detached else repo.head
    return {"branch": branch, "currentbranch": branch, "isclean": clean, "clean": clean, "staged": staged,
            "stagedchanges": staged, "unstaged": unstaged, "unstagedchanges": unstaged, "untracked": loose,
            "untrackedfiles": loose, "conflicts": [], "conflictedfiles": []}


_LABEL = {"added": "new file", "modified": "modified", "deleted": "deleted"}


def status_text(repo: Repo, facts: JSONDict) -> str:
    lines = [f"HEAD detached at {repo.head[:7]}" if repo.detached else f"On branch {repo.head}"]
    if repo.head_commit() is None:
        lines += ["", "No commits yet"]
    if facts["staged"]:
        lines += ["", "Changes to be committed:", '  (use "git restore --staged <file>..." to unstage)']
        lines += [f"\t{_LABEL[k] + ':':<12}{p}" for k, ps in facts["staged"].items() for p in ps]
    if facts["unstaged"]:
        lines += ["", "Changes not staged for commit:", '  (use "git add <file>..." to update what will be committed)']
        lines += [f"\t{_LABEL[k] + ':':<12}{p}" for k, ps in facts["unstaged"].items() for p in ps]
    if facts["untracked"]:
        lines += ["", "Untracked files:", '  (use "git add <file>..." to include in what will be committed)']
        lines += [f"\t{p}" for p in facts["untracked"]]
    if facts["isclean"]:
        lines += ["", "nothing to commit, working tree clean"]
    elif not facts["staged"]:
        lines += ["", 'no changes added to commit (use "git add" and/or "git commit -a")']
    return "\n".join(lines) + "\n"


def do_status(c: Call) -> Done:
    facts = status_facts(c.repo, c.arg("includeUntracked", "include_untracked", "untracked", default=True) is not False)
    return Done(facts, status_text(c.repo, facts))


def do_set_dir(c: Call) -> Done:
    s = status_facts(c.repo)
    flat = {**s, "staged": _flat(s["staged"]), "unstaged": _flat(s["unstaged"])}
    log = [_commit_facts(c.repo, h, short=True) for h in c.repo.history(c.repo.head_commit())[:5]]
    snapshot = {"status": flat, "recentcommits": log, "recenttags": [], "remotes": []}
    return Done({"path": c.repo.path, "message": f"Working directory set to: {c.repo.path}", "repository": snapshot},
                f"Working directory set to: {c.repo.path}")


def do_init(c: Call) -> Done:
    branch = c.text("initialBranch", "initial_branch", "branch") or "main"
    bare = c.flag("bare")
    again = c.repo.exists
    if not again:
        c.repo.head = branch
    where = c.repo.path if bare else f"{c.repo.path.rstrip('/')}/.git"
    text = f"{'Reinitialized existing' if again else 'Initialized empty'} Git repository in {where}/"
    return Done({"path": c.repo.path, "initialbranch": c.repo.head, "isbare": bare, "message": text}, text)


def _flat(grouped: dict[str, list[str]]) -> list[str]:
    return sorted(p for ps in grouped.values() for p in ps)


# -- staging and committing --------------------------------------------------------------------------


def _stage(c: Call, wanted: list[str], *, tracked_only: bool = False) -> list[str]:
    repo, work = c.repo, c.repo.worktree()
    staged: list[str] = []
    for want in wanted:
        prefix = "" if want == "." else want + "/"
        hits = {p for p in set(work) | set(repo.index) if want == "." or p == want or p.startswith(prefix)}
        if tracked_only:
            hits &= set(repo.index)
        if not hits:
            if repo.knows_files() or want == ".":
                if want == ".":
                    continue
                raise GitError(f"fatal: pathspec '{want}' did not match any files")
            repo.implied[want] = ""  # an unseeded disk: the file the agent names is there
            work[want] = ""
            hits = {want}
        for path in sorted(hits):
            if path in work:
                if repo.index.get(path) != work[path] or path not in repo.tree(repo.head_commit()):
                    staged.append(path)
                repo.index[path] = work[path]
            elif path in repo.index:
                del repo.index[path]
                staged.append(path)
    return sorted(set(staged))


def do_add(c: Call) -> Done:
    everything = c.flag("all", "A")
    wanted = c.paths("paths", "files", "file", "path_spec", "pathspec") or (["."] if everything or c.flag("update") else [])
    if not wanted:
        raise GitError("Nothing specified, nothing added.")
    staged = _stage(c, wanted, tracked_only=c.flag("update"))
    return Done({"stagedfiles": staged, "totalfiles": len(staged), "status": _snake(status_facts(c.repo))},
                f"Changes staged successfully: {', '.join(staged)}" if staged else "")


def _snake(facts: JSONDict) -> JSONDict:
    return facts  # keys are normalised: ``current_branch`` and ``currentBranch`` both find ``currentbranch``


def _author(c: Call) -> tuple[str, str]:
    given = c.arg("author")
    if isinstance(given, dict) and given.get("name"):
        return str(given["name"]), str(given.get("email") or AUTHOR[1])
    if isinstance(given, str) and given.strip():
        name, _, rest = given.partition("<")
        return name.strip(), rest.rstrip(">").strip() or AUTHOR[1]
    return c.repo.default_author()


def do_commit(c: Call) -> Done:
    repo = c.repo
    extra = c.paths("filesToStage", "files_to_stage", "files", "paths")
    if extra:
        _stage(c, extra)
    if c.flag("all", "a", "stageAll"):
        _stage(c, ["."], tracked_only=True)
    message = c.text("message", "msg", "commit_message")
    if not message:
        raise GitError("Aborting commit due to empty commit message.")
    parent = repo.head_commit()
    head_tree = repo.tree(parent)
    changed = changes(head_tree, repo.index)
    if not changed and not c.flag("allowEmpty", "allow_empty"):
        raise GitError(status_text(repo, status_facts(repo)).rstrip("\n"))
    author = _author(c)
    sha = repo.new_commit(dict(repo.index), message, [parent] if parent else [], author, c.time)
    if repo.detached:
        repo.head = sha
    else:
        repo.branches[repo.head] = sha
    files = _flat(changed)
    ins, dels = _counts(head_tree, repo.index, files)
    root = "" if parent else " (root-commit)"
    summary = f"[{repo.head if not repo.detached else 'detached HEAD'}{root} {sha[:7]}] {message.splitlines()[0]}"
    text = f"{summary}\n {_stat_summary(len(files), ins, dels)}"
    return Done({"commithash": sha, "hash": sha, "message": message, "author": author[0], "timestamp": c.time,
                 "fileschanged": len(files), "committedfiles": files, "signed": False,
                 "status": status_facts(repo)}, f"Changes committed successfully with hash {sha}\n{text}")


# -- history -----------------------------------------------------------------------------------------


def _commit_facts(repo: Repo, sha: str, *, short: bool = False) -> JSONDict:
    commit = repo.commits[sha]
    subject = str(commit["message"]).splitlines()[0] if commit["message"] else ""
    date = clock(0).fromtimestamp(int(commit["time"]), clock(0).tzinfo)
    return {"hash": sha[:7] if short else sha, "shorthash": sha[:7], "author": commit["author"],
            "authoremail": commit["email"], "timestamp": commit["time"], "subject": subject,
            "message": commit["message"], "parents": list(commit["parents"]),
            "date": date.strftime("%Y-%m-%dT%H:%M:%S.000Z")}


def _git_date(stamp: int) -> str:
    return clock(0).fromtimestamp(stamp, clock(0).tzinfo).strftime("%a %b %-d %H:%M:%S %Y +0000")


def _touches(repo: Repo, sha: str, path: str) -> bool:
    commit = repo.commits[sha]
    parent = repo.tree(commit["parents"][0]) if commit["parents"] else {}
    return bool(_flat(changes(parent, commit["tree"])) and path in _flat(changes(parent, commit["tree"])))


def do_log(c: Call) -> Done:
    repo = c.repo
    start_ref = c.text("branch", "ref", "revision", "revisionRange")
    start = repo.resolve(start_ref) if start_ref else repo.head_commit()
    if start_ref and start is None:
        raise GitError(f"fatal: ambiguous argument '{start_ref}': unknown revision or path not in the working tree.")
    shas = repo.history(start)
    author, grep, path = c.text("author"), c.text("grep", "messagePattern", "message"), c.text("filePath", "file_path", "path_filter")
    if author:
        shas = [h for h in shas if author.lower() in f"{repo.commits[h]['author']} <{repo.commits[h]['email']}>".lower()]
    if grep:
        shas = [h for h in shas if grep.lower() in str(repo.commits[h]["message"]).lower()]
    if path:
        shas = [h for h in shas if _touches(repo, h, _rel(repo, path))]
    skip = c.arg("skip", default=0)
    count = c.arg("maxCount", "max_count", "limit", "n", "count", default=10)
    shas = shas[int(skip) if isinstance(skip, int) else 0:][: int(count) if isinstance(count, int) and count > 0 else 10]
    oneline = c.flag("oneline")
    commits = [_commit_facts(repo, h) for h in shas]
    if oneline:
        commits = [{k: f[k] for k in ("hash", "shorthash", "subject")} for f in commits]
    text = "\n".join(f"{f['shorthash']} {f['subject']}" for f in commits) if oneline else "\n".join(
        f"commit {f['hash']}\nAuthor: {f['author']} <{f['authoremail']}>\nDate:   {_git_date(int(f['timestamp']))}\n\n"
        + "\n".join(f"    {line}" for line in str(f["message"]).splitlines()) + "\n" for f in commits)
    return Done({"commits": commits, "totalcount": len(commits), "count": len(commits)}, text)


# -- branches and tags -------------------------------------------------------------------------------


def _mode(c: Call, default: str) -> str:
    return str(c.arg("mode", "action", "operation", default=default)).lower()


def do_branch(c: Call) -> Done:
    repo = c.repo
    name = c.text("branchName", "branch_name", "name", "branch")
    mode = _mode(c, "create" if name and "mode" not in c.step.tool.input_schema.get("properties", {}) else "list")
    if mode in ("list", "show-current", "current"):
        branches = [{"name": b, "commithash": sha, "current": b == repo.head and not repo.detached, "ahead": 0,
                     "behind": 0} for b, sha in sorted(repo.branches.items())]
        current = None if repo.detached else repo.head
        if mode != "list":
            return Done({"currentbranch": current, "mode": mode}, f"{current or ''}\n")
        text = "\n".join(f"{'*' if b['current'] else ' '} {b['name']}" for b in branches)
        return Done({"mode": mode, "branches": branches, "currentbranch": current}, text)
    if not name:
        raise GitError(f"fatal: branch name required for {mode}")
    if mode == "create":
        _create_branch(c, name)
        return Done({"mode": mode, "message": f"Branch '{name}' created successfully."},
                    f"Created branch '{name}' from '{c.text('startPoint', 'start_point', 'base_branch') or repo.head}'")
    if name not in repo.branches:
        raise GitError(f"error: branch '{name}' not found")
    if mode == "delete":
        if name == repo.head and not repo.detached:
            raise GitError(f"error: cannot delete branch '{name}' used by worktree at '{repo.path}'")
        del repo.branches[name]
        return Done({"mode": mode, "message": f"Branch '{name}' deleted successfully."},
                    f"Deleted branch {name}.")
    if mode in ("rename", "move"):
        new = c.text("newBranchName", "new_branch_name", "newName", "new_name")
        if not new:
            raise GitError("fatal: new branch name required for rename")
        if new in repo.branches:
            raise GitError(f"fatal: a branch named '{new}' already exists")
        repo.branches[new] = repo.branches.pop(name)
        if repo.head == name:
            repo.head = new
        return Done({"mode": mode, "message": f"Branch '{name}' renamed to '{new}'."},
                    f"Branch '{name}' renamed to '{new}'.")
    raise GitError(f"error: unknown branch operation '{mode}'")


def _create_branch(c: Call, name: str) -> str:
    repo = c.repo
    if name in repo.branches:
        raise GitError(f"fatal: a branch named '{name}' already exists")
    if name.startswith("-") or ".." in name or " " in name or name.endswith("/"):
        raise GitError(f"fatal: '{name}' is not a valid branch name")
    start_ref = c.text("startPoint", "start_point", "base_branch", "from", "base")
    start = repo.resolve(start_ref) if start_ref else repo.head_commit()
    if start is None:
        raise GitError(f"fatal: not a valid object name: '{start_ref or repo.head}'")
    repo.branches[name] = start
    return start


def do_tag(c: Call) -> Done:
    repo = c.repo
    name = c.text("tagName", "tag_name", "name", "tag")
    mode = _mode(c, "create" if name else "list")
    if mode == "list":
        tags = []
        for tag, info in sorted(repo.tags.items()):
            commit = str(info["commit"])
            entry: JSONDict = {"name": tag, "commit": commit[:7],
                               "message": info.get("message") or _commit_facts(repo, commit)["subject"],
                               "timestamp": info.get("time") or repo.commits[commit]["time"]}
            if info.get("tagger"):
                entry["tagger"] = info["tagger"]
            tags.append(entry)
        return Done({"mode": mode, "tags": tags}, "\n".join(repo.tags))
    if not name:
        raise GitError(f"fatal: tag name required for {mode}")
    if mode == "create":
        if name in repo.tags:
            raise GitError(f"fatal: tag '{name}' already exists")
        target_ref = c.text("commit", "target", "ref", "object")
        target = repo.resolve(target_ref) if target_ref else repo.head_commit()
        if target is None:
            raise GitError(f"fatal: Failed to resolve '{target_ref or 'HEAD'}' as a valid ref.")
        message = c.text("message", "annotation")
        made: JSONDict = {"commit": target}
        if message:
            author = _author(c)
            made.update(message=message, tagger=f"{author[0]} <{author[1]}>", time=c.time)
        repo.tags[name] = made
        return Done({"mode": mode, "created": name, "signed": False}, f"Created tag '{name}'")
    if mode == "delete":
        if name not in repo.tags:
            raise GitError(f"error: tag '{name}' not found.")
        sha = str(repo.tags.pop(name)["commit"])
        return Done({"mode": mode, "deleted": name}, f"Deleted tag '{name}' (was {sha[:7]})")
    raise GitError(f"error: unknown tag operation '{mode}'")


# -- moving between commits ----------------------------------------------------------------------------


def _switch_tree(repo: Repo, new_tree: dict[str, str], command: str) -> list[str]:
    """Working tree and index moved to ``new_tree``; local changes are kept (git refuses where they clash)."""
    old = repo.tree(repo.head_commit())
    work = repo.worktree()
    local = sorted(p for p in set(old) | set(work) | set(repo.index) if p in old or p in repo.index
                   if work.get(p) != old.get(p) or repo.index.get(p) != old.get(p))
    clash = [p for p in local if old.get(p) != new_tree.get(p)]
    if clash:
        listed = "".join(f"\t{p}\n" for p in clash)
        raise GitError(f"error: Your local changes to the following files would be overwritten by {command}:\n"
                       f"{listed}Please commit your changes or stash them before you switch branches.\nAborting")
    for path in sorted(set(old) | set(new_tree)):
        if old.get(path) == new_tree.get(path):
            continue
        if path in new_tree:
            repo.write_file(path, new_tree[path])
            repo.index[path] = new_tree[path]
        else:
            repo.remove_file(path)
            repo.index.pop(path, None)
    return local


def do_checkout(c: Call) -> Done:
    repo = c.repo
    target = c.text("target", "branch_name", "branchName", "branch", "ref", "commit")
    create = c.flag("createBranch", "create_branch", "create", "newBranch", "b")
    if not target:
        raise GitError("fatal: you must specify a branch to check out")
    files = c.paths("paths", "files")
    if create:
        start = _create_branch(c, target)
        local = _switch_tree(repo, repo.tree(start), "checkout")
        repo.head, repo.detached = target, False
        return Done({"target": target, "branchcreated": True, "filesmodified": local},
                    f"Switched to a new branch '{target}'")
    if target in repo.branches and not files:
        local = _switch_tree(repo, repo.tree(repo.branches[target]), "checkout")
        already = target == repo.head and not repo.detached
        repo.head, repo.detached = target, False
        return Done({"target": target, "branchcreated": False, "filesmodified": local},
                    f"Already on '{target}'" if already else f"Switched to branch '{target}'")
    sha = repo.resolve(target)
    if sha is not None and not files:
        local = _switch_tree(repo, repo.tree(sha), "checkout")
        repo.head, repo.detached = sha, True
        return Done({"target": target, "branchcreated": False, "filesmodified": local},
                    f"HEAD is now at {sha[:7]} {_commit_facts(repo, sha)['subject']}")
    restore = files or [_rel(repo, target)]
    source = repo.tree(sha) if sha is not None else repo.index
    missing = [p for p in restore if p not in source]
    if missing:
        raise GitError(f"error: pathspec '{missing[0] if files else target}' did not match any file(s) known to git")
    for path in restore:
        repo.write_file(path, source[path])
        if sha is not None:
            repo.index[path] = source[path]
    return Done({"target": target, "branchcreated": False, "filesmodified": restore},
                f"Updated {len(restore)} path{'s' if len(restore) != 1 else ''} from the index")


def _ancestor(repo: Repo, older: str, newer: str) -> bool:
    return older in repo.history(newer)


def do_merge(c: Call) -> Done:
    repo = c.repo
    name = c.text("branch", "branchName", "branch_name", "source", "ref", "commit")
    if not name:
        raise GitError("fatal: No remote for the current branch.")
    theirs = repo.resolve(name)
    if theirs is None:
        raise GitError(f"merge: {name} - not something we can merge")
    ours = repo.head_commit()
    base: dict[str, str] = {}
    if ours is not None and _ancestor(repo, theirs, ours):
        return Done({"strategy": "ort", "fastforward": False, "conflicts": False, "conflictedfiles": [],
                     "mergedfiles": [], "message": "Already up to date."}, "Already up to date.")
    if ours is None or (_ancestor(repo, ours, theirs) and not c.flag("noFastForward", "no_ff", "noFf")):
        old = repo.tree(ours)
        _switch_tree(repo, repo.tree(theirs), "merge")
        files = _flat(changes(old, repo.tree(theirs)))
        ins, dels = _counts(old, repo.tree(theirs), files)
        _move_head(repo, theirs)
        text = (f"Updating {(ours or '0000000')[:7]}..{theirs[:7]}\nFast-forward\n"
                + _stat_lines(old, repo.tree(theirs), files) + f"\n {_stat_summary(len(files), ins, dels)}")
        return Done({"strategy": "ort", "fastforward": True, "conflicts": False, "conflictedfiles": [],
                     "mergedfiles": files, "message": text}, text)
    common = [h for h in repo.history(ours) if h in set(repo.history(theirs))]
    base = repo.tree(common[0]) if common else {}
    mine, other = repo.tree(ours), repo.tree(theirs)
    merged, clash = dict(mine), []
    for path in sorted(set(base) | set(mine) | set(other)):
        b, m, o = base.get(path), mine.get(path), other.get(path)
        if o == b or o == m:
            continue
        if m == b:
            if o is None:
                merged.pop(path, None)
            else:
                merged[path] = o
        else:
            clash.append(path)
    if clash:
        text = "".join(f"CONFLICT (content): Merge conflict in {p}\n" for p in clash)
        return Done({"strategy": "ort", "fastforward": False, "conflicts": True, "conflictedfiles": clash,
                     "mergedfiles": [], "message": text + "Automatic merge failed; fix conflicts and then commit the result."},
                    text + "Automatic merge failed; fix conflicts and then commit the result.")
    _switch_tree(repo, merged, "merge")
    message = c.text("message") or f"Merge branch '{name}'"
    sha = repo.new_commit(merged, message, [ours, theirs], _author(c), c.time)
    _move_head(repo, sha)
    files = _flat(changes(mine, merged))
    text = f"Merge made by the 'ort' strategy.\n {_stat_summary(len(files), *_counts(mine, merged, files))}"
    return Done({"strategy": "ort", "fastforward": False, "conflicts": False, "conflictedfiles": [],
                 "mergedfiles": files, "message": text, "commithash": sha}, text)


def _move_head(repo: Repo, sha: str) -> None:
    if repo.detached:
        repo.head = sha
    else:
        repo.branches[repo.head] = sha


# -- diffs and objects -------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) if len(text) <= MAX_DIFF_BYTES else ["(file too large to compare)\n"]


def _counts(old: dict[str, str], new: dict[str, str], files: list[str]) -> tuple[int, int]:
    ins = dels = 0
    for path in files:
        for line in difflib.unified_diff(_lines(old.get(path, "")), _lines(new.get(path, "")), n=0):
            if line.startswith("+") and not line.startswith("+++"):
                ins += 1
            elif line.startswith("-") and not line.startswith("---"):
                dels += 1
    return ins, dels


def _stat_summary(files: int, ins: int, dels: int) -> str:
    parts = [f"{files} file{'s' if files != 1 else ''} changed"]
    if ins or not dels:
        parts.append(f"{ins} insertion{'s' if ins != 1 else ''}(+)")
    if dels:
        parts.append(f"{dels} deletion{'s' if dels != 1 else ''}(-)")
    return ", ".join(parts)


def _stat_lines(old: dict[str, str], new: dict[str, str], files: list[str]) -> str:
    width = max((len(p) for p in files), default=0)
    out = []
    for path in files:
        ins, dels = _counts(old, new, [path])
        out.append(f" {path:<{width}} | {ins + dels} {'+' * ins}{'-' * dels}")
    return "\n".join(out)


def unified(old: dict[str, str], new: dict[str, str], files: list[str]) -> str:
    out: list[str] = []
    for path in files:
        a, b = old.get(path), new.get(path)
        header = [f"diff --git a/{path} b/{path}\n"]
        if a is None:
            header.append("new file mode 100644\n")
        elif b is None:
            header.append("deleted file mode 100644\n")
        from .git_repo import blob_id
        ids = f"index {blob_id(a)[:7] if a is not None else '0000000'}..{blob_id(b)[:7] if b is not None else '0000000'}"
        header.append(ids + (" 100644\n" if a is not None and b is not None else "\n"))
        body = list(difflib.unified_diff(_lines(a or ""), _lines(b or ""), "/dev/null" if a is None else f"a/{path}",
                                         "/dev/null" if b is None else f"b/{path}"))
        out += header + [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in body]
    return "".join(out)


def do_diff(c: Call) -> Done:
    repo = c.repo
    target, source = c.text("target", "commit", "ref"), c.text("source", "base")
    if target or source:
        a_sha = repo.resolve(source) if source else repo.resolve(target or "")
        b_sha = repo.resolve(target) if source and target else None
        for ref, sha in ((source or target, a_sha), (target if source else None, b_sha)):
            if ref and sha is None:
                raise GitError(f"fatal: ambiguous argument '{ref}': unknown revision or path not in the working tree.")
        old = repo.tree(a_sha)
        new = repo.tree(b_sha) if b_sha else repo.worktree()
    elif c.flag("staged", "cached"):
        old, new = repo.tree(repo.head_commit()), dict(repo.index)
    else:
        old, new = dict(repo.index), {p: v for p, v in repo.worktree().items() if p in repo.index}
    wanted = c.paths("paths", "files", "filePath", "file_path", "path_filter")
    files = [p for p in _flat(changes(old, new)) if not wanted or any(p == w or p.startswith(w + "/") for w in wanted)]
    ins, dels = _counts(old, new, files)
    if c.flag("nameOnly", "name_only"):
        text = "".join(f"{p}\n" for p in files)
        return Done({"diff": text, "fileschanged": len(files)}, text)
    if c.flag("stat"):
        text = _stat_lines(old, new, files) + f"\n {_stat_summary(len(files), ins, dels)}\n" if files else ""
    else:
        text = unified(old, new, files)
    return Done({"diff": text, "fileschanged": len(files), "insertions": ins, "deletions": dels}, text)


def do_show(c: Call) -> Done:
    repo = c.repo
    ref = c.text("object", "revision", "ref", "commit", "target") or "HEAD"
    sha = repo.resolve(ref)
    if sha is None:
        raise GitError(f"fatal: bad object {ref}" if len(ref) == 40 else
                       f"fatal: ambiguous argument '{ref}': unknown revision or path not in the working tree.")
    kind = "tag" if ref in repo.tags else "commit"
    path = c.text("filePath", "file_path", "path_in_commit")
    if path:
        tree, rel = repo.tree(sha), _rel(repo, path)
        if rel not in tree:
            raise GitError(f"fatal: path '{rel}' does not exist in '{ref}'")
        return Done({"object": ref, "type": kind, "content": tree[rel], "metadata": {}}, tree[rel])
    facts = _commit_facts(repo, sha)
    commit = repo.commits[sha]
    parent = repo.tree(commit["parents"][0]) if commit["parents"] else {}
    files = _flat(changes(parent, commit["tree"]))
    text = (f"commit {sha}\nAuthor: {facts['author']} <{facts['authoremail']}>\nDate:   {_git_date(int(commit['time']))}\n\n"
            + "".join(f"    {line}\n" for line in str(commit["message"]).splitlines()) + "\n")
    if c.flag("stat"):
        text += _stat_lines(parent, commit["tree"], files) + f"\n {_stat_summary(len(files), *_counts(parent, commit['tree'], files))}\n"
    else:
        text += unified(parent, commit["tree"], files)
    return Done({"object": ref, "type": kind, "content": text, "metadata": {}}, text)


# -- reset and stash ---------------------------------------------------------------------------------


def do_reset(c: Call) -> Done:
    repo = c.repo
    mode = str(c.arg("mode", default="mixed")).lower()
    ref = c.text("target", "commit", "ref") or "HEAD"
    files = c.paths("paths", "files")
    before = repo.head_commit()
    sha = repo.resolve(ref) if before else None
    if before and sha is None:
        raise GitError(f"fatal: ambiguous argument '{ref}': unknown revision or path not in the working tree.")
    if files:
        tree = repo.tree(sha)
        for p in files:
            if p in tree:
                repo.index[p] = tree[p]
            else:
                repo.index.pop(p, None)
        return Done({"mode": mode, "target": sha or "", "filesreset": files}, "Unstaged changes after reset:\n"
                    + "".join(f"M\t{p}\n" for p in files))
    old_tree = repo.tree(before)
    new_tree = repo.tree(sha)
    affected = _flat(changes(old_tree, new_tree)) or _flat(changes(new_tree, repo.index))
    if mode == "hard":
        for path in sorted(set(repo.worktree()) | set(new_tree)):
            if path in new_tree:
                if repo.worktree().get(path) != new_tree[path]:
                    repo.write_file(path, new_tree[path])
            elif path in repo.index or path in old_tree:
                repo.remove_file(path)
        repo.index = dict(new_tree)
    elif mode != "soft":
        repo.index = dict(new_tree)
    if sha:
        _move_head(repo, sha)
    facts: JSONDict = {"mode": mode, "target": sha or "", "filesreset": affected}
    if before and sha != before:
        facts["previouscommit"] = before
    text = f"HEAD is now at {sha[:7]} {_commit_facts(repo, sha)['subject']}" if sha and mode == "hard" else ""
    return Done(facts, text)


def do_stash(c: Call) -> Done:
    repo = c.repo
    mode = _mode(c, "push")
    if mode in ("push", "save"):
        head = repo.tree(repo.head_commit())
        work = repo.worktree()
        dirty = {p: work.get(p) for p in set(head) | set(repo.index) if work.get(p) != head.get(p)
                 or repo.index.get(p) != head.get(p)}
        if not dirty:
            return Done({"mode": mode, "message": "No local changes to save"}, "No local changes to save")
        message = c.text("message") or f"WIP on {repo.head}"
        repo.stashes.insert(0, {"index": dict(repo.index), "work": {p: v for p, v in dirty.items() if v is not None},
                                "gone": [p for p, v in dirty.items() if v is None], "message": message,
                                "branch": repo.head, "time": c.time})
        for path in dirty:
            if path in head:
                repo.write_file(path, head[path])
            else:
                repo.remove_file(path)
        repo.index = dict(head)
        return Done({"mode": mode, "created": "stash@{0}"},
                    f"Saved working directory and index state On {repo.head}: {message}")
    if mode == "list":
        stashes = [{"ref": f"stash@{{{i}}}", "index": i, "branch": s["branch"], "description": s["message"],
                    "timestamp": s["time"]} for i, s in enumerate(repo.stashes)]
        return Done({"mode": mode, "stashes": stashes},
                    "\n".join(f"stash@{{{i}}}: On {s['branch']}: {s['message']}" for i, s in enumerate(repo.stashes)))
    if mode == "clear":
        repo.stashes = []
        return Done({"mode": mode}, "")
    ref = c.text("stashRef", "stash_ref", "ref", "stash") or "stash@{0}"
    index = int(ref[7:-1]) if ref.startswith("stash@{") and ref[7:-1].isdigit() else 0
    if not repo.stashes:
        raise GitError("No stash entries found.")
    if index >= len(repo.stashes):
        raise GitError(f"error: {ref} is not a valid reference")
    entry = repo.stashes[index]
    if mode in ("pop", "apply"):
        for path, content in entry["work"].items():
            repo.write_file(path, content)
        for path in entry["gone"]:
            repo.remove_file(path)
        if mode == "pop":
            repo.stashes.pop(index)
        return Done({"mode": mode, "applied": ref, "conflicts": False}, status_text(repo, status_facts(repo)))
    if mode == "drop":
        repo.stashes.pop(index)
        return Done({"mode": mode, "dropped": ref}, f"Dropped {ref}")
    raise GitError(f"error: unknown stash operation '{mode}'")


# -- blame -----------------------------------------------------------------------------------------------


def do_blame(c: Call) -> Done:
    """Each line of a file at a revision with the commit that last changed it: the file's versions along the
    first-parent chain, oldest first, each version's unchanged lines keeping their commit (``difflib``)."""
    repo = c.repo
    raw = c.text("filePath", "file_path", "path", "file", "filename")
    if not raw:
        raise GitError("fatal: no file named; pass the file to blame")
    ref = c.text("revision", "ref", "commit", "rev") or "HEAD"
    sha = repo.resolve(ref)
    if sha is None:
        raise GitError(f"fatal: ambiguous argument '{ref}': unknown revision or path not in the working tree.")
    rel = _rel(repo, raw)
    if rel not in repo.tree(sha):
        raise GitError(f"fatal: no such path '{rel}' in {ref}")
    chain: list[str] = []
    at: str | None = sha
    while at is not None and at in repo.commits and len(chain) < 2_000:
        chain.append(at)
        parents = repo.commits[at]["parents"]
        at = parents[0] if parents else None
    owners: list[str] = []
    lines: list[str] = []
    for commit in reversed(chain):
        tree = repo.tree(commit)
        new = _lines(tree[rel]) if rel in tree else []
        kept = [commit] * len(new)
        for a, b, size in difflib.SequenceMatcher(None, lines, new, autojunk=False).get_matching_blocks():
            kept[b:b + size] = owners[a:a + size]
        owners, lines = kept, new
    rows = []
    for number, (owner, line) in enumerate(zip(owners, lines), 1):
        made = repo.commits[owner]
        rows.append({"commithash": owner, "linenumber": number, "author": made["author"],
                     "timestamp": made["time"], "content": line.rstrip("\n")})
    text = "\n".join(f"{r['commithash'][:8]} ({r['author']} {_git_date(int(r['timestamp']))} {r['linenumber']}) "
                     f"{r['content']}" for r in rows)
    return Done({"filepath": raw, "lines": rows, "totallines": len(rows)}, text)


OPS: dict[str, Callable[[Call], Done]] = {
    "status": do_status, "set_dir": do_set_dir, "init": do_init, "add": do_add, "commit": do_commit, "log": do_log,
    "branch": do_branch, "tag": do_tag, "checkout": do_checkout, "merge": do_merge, "diff": do_diff, "show": do_show,
    "reset": do_reset, "stash": do_stash, "blame": do_blame,
}

__all__ = ["OPS", "Call", "Done", "changes", "status_facts"]
