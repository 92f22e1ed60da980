"""Version control: a git repository per episode, answered as git answers.

What selects it. A catalog whose tools are git commands: at least three tools named for one
(``status``, ``add``, ``commit``, ``log``, ``branch``, ``checkout``, ``diff``...; ``git_status``
and ``status`` alike) in a catalog whose tool names or descriptions say git or repository. A
``commit`` tool of a database catalog is not claimed. Remote operations (clone, fetch, push,
pull), worktrees, rebase and the like are left to the record model.

What it does. The repository (:mod:`.git_repo`) is ledger state: commits with sha-1 ids computed
over their content, branches, HEAD, tags, the index and stashes; the working tree is the file
store's ``files`` collection, so a file written by a file tool shows in ``status``. The operations
(:mod:`.git_ops`) do what git does, refusals worded as git words them (``nothing to commit,
working tree clean``, ``error: pathspec 'x' did not match any file(s) known to git``). A tool with
an outputSchema gets the facts under the keys its schema names (:mod:`.git_render`); one without
gets git's porcelain text (``On branch main``).
"""

from __future__ import annotations

import re
from typing import Any

from ....state.ledger import Effect
from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from .git_ops import OPS, Call
from .git_render import render
from .git_repo import SESSION, GitError, Repo, repo_path

JSONDict = dict[str, Any]
#: Tools of these words are not modelled (remotes, worktrees, history rewriting): the record model answers.
_LEFT = {"remote", "remotes", "fetch", "push", "pull", "clone", "worktree", "cherry", "pick", "rebase",
         "reflog", "clean", "changelog", "wrapup", "clear", "bisect", "submodule", "config", "instructions"}
#: One word of the tool's name -> the operation, with arguments the name implies.
_WORDS: dict[str, tuple[str, JSONDict]] = {
    "status": ("status", {}), "add": ("add", {}), "stage": ("add", {}), "commit": ("commit", {}),
    "log": ("log", {}), "history": ("log", {}), "branch": ("branch", {}), "branches": ("branch", {}),
    "checkout": ("checkout", {}), "switch": ("checkout", {}), "tag": ("tag", {}), "tags": ("tag", {}),
    "diff": ("diff", {}), "show": ("show", {}), "merge": ("merge", {}), "init": ("init", {}),
    "reset": ("reset", {}), "stash": ("stash", {}), "blame": ("blame", {}), "annotate": ("blame", {}),
}
#: Arguments of a hosted service's API (an account's repository), not of a local repository.
_HOSTED = {"owner", "org", "organization", "workspace", "project_id", "projectId"}
_CORE = {"status", "add", "commit", "log", "branch", "checkout", "diff"}
_SAYS_GIT = re.compile(r"\bgit\b|\brepositor(?:y|ies)\b", re.IGNORECASE)
_MIN_TOOLS = 3


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t]


def operation(tool: JSONDict) -> tuple[str, JSONDict] | None:
    """What a git tool does, from its name: the operation and the arguments its name implies."""
    words = [w for w in _tokens(str(tool.get("name", ""))) if w != "git"]
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    if not words or set(words) & _LEFT or set(props) & _HOSTED:
        return None
    if "working" in words and ("dir" in words or "directory" in words) and set(words) & {"set", "change", "cd"}:
        return "set_dir", {}
    if "diff" in words:
        staged = "staged" in words or "cached" in words
        return "diff", ({"staged": True} if staged else {})
    if ("create" in words or "new" in words) and "branch" in words:
        return "branch", {"mode": "create"}
    if ("delete" in words or "remove" in words) and ("branch" in words or "tag" in words):
        return ("branch" if "branch" in words else "tag"), {"mode": "delete"}
    if ("create" in words or "new" in words) and "tag" in words:
        return "tag", {"mode": "create"}
    return _WORDS.get(words[0])  # ``add_issue_comment`` is not ``git add``


def is_git_catalog(world: World) -> bool:
    """Three or more tools named for git commands, in a catalog that says git or repository."""
    ops = {op[0] for op in map(operation, world.tools) if op is not None}
    if len(ops & _CORE) < _MIN_TOOLS:
        return False
    return any(_SAYS_GIT.search(f"{t.get('name', '')} {t.get('description') or ''}") for t in world.tools)


def claims(world: World, tool: ToolSpec) -> bool:
    return operation(tool.definition) is not None and is_git_catalog(world)


def _where(step: Step, op: str) -> str:
    names = ("path", "repo_path", "repository", "repo", "repoPath", "repository_path", "cwd", "directory", "dir")
    raw = next((step.arguments[n] for n in names if isinstance(step.arguments.get(n), str)), None)
    return repo_path(step, raw)


def predict(step: Step) -> Prediction | None:
    found = step.derived(("git_operation", step.tool.name), lambda: operation(step.tool.definition))
    if found is None:
        return None
    op, implied = found
    path = _where(step, op)
    repo = Repo.load(step, path)
    call = Call(_with_arguments(step, implied), repo)
    try:
        done = OPS[op](call)
    except GitError as exc:
        return Prediction(str(exc), is_error=True, effects=[])
    effects = repo.effects()
    if op == "set_dir":
        effects.append(Effect("update" if step.episode.ledger.get(*SESSION) else "create", *SESSION,
                              {"id": SESSION[1], "path": path}))
    return render(step, done, effects)


def _with_arguments(step: Step, implied: JSONDict) -> Step:
    if not implied:
        return step
    from dataclasses import replace

    return replace(step, arguments={**implied, **step.arguments})


__all__ = ["claims", "is_git_catalog", "operation", "predict"]
