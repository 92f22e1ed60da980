"""A shell-like file system: one tree per episode, a current directory, POSIX commands.

What selects it. A catalog whose tools are shell commands: a tool named as one (``cd``,
``ls``, ``cat``, ``grep``, ``wc``..., or ``shell_ls``-style) whose required arguments are
operands of that command (a path, a file or directory name, a pattern), in a catalog with at
least three such tools of which one moves or shows the current directory (``cd``, ``pwd``)
or whose descriptions speak of the current or working directory. A lone ``echo`` or
``sort`` tool of another catalog is not a shell.

What it does. The commands (:mod:`.shell_commands`) run on the episode's tree
(:mod:`.shell_tree`: the file store's ``files`` collection, so the two share their files,
and a current directory kept as ``shell/session``), answered as GNU coreutils answer:
``ls -a`` shows dot files, ``wc -l`` counts lines, ``grep`` returns matching lines (basic
regular expressions, in bounded time), ``diff`` prints its normal format (unified where the
catalog asks), errors read
``cat: a.txt: No such file or directory``. The answer is what the command prints, or, for
a tool with an outputSchema, the command's data in the schema's fields: a listing in its
array, a file's text in its string, a count in its number and the unit beside it.
"""

from __future__ import annotations

import re
from typing import Any

from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step
from ..common import conform
from .shell_commands import COMMANDS, OPERANDS, RECURSIVE, Call, Output
from .shell_tree import ShellError, Tree

JSONDict = dict[str, Any]
#: ``shell_ls``, ``fs.cat``: a command under a prefix that names a shell.
_PREFIXED = re.compile(r"^(?:shell|sh|bash|fs|posix|unix|terminal)[_.\-](\w+)$")
_TALKS_OF_A_CWD = re.compile(r"\b(?:current|working|present) (?:working )?(?:directory|folder)\b", re.IGNORECASE)
_NAVIGATION = {"cd", "pwd"}
_FILE_OR_DIRECTORY = re.compile(r"\bfiles? (?:or|and) (?:director(?:y|ies)|folders?)\b", re.IGNORECASE)
#: A catalog is a shell when at least this many of its tools are commands.
_MIN_COMMANDS = 3


def command_of(tool: JSONDict) -> str | None:
    """The command a tool is by its name and arguments, or None."""
    name = str(tool.get("name", "")).lower()
    match = _PREFIXED.match(name)
    command = match.group(1) if match else name
    if command not in COMMANDS:
        return None
    schema = tool.get("inputSchema") or {}
    required = schema.get("required") or []
    known = set(OPERANDS[command])
    return command if isinstance(required, list) and all(r in known for r in required) else None


def is_shell(world: World) -> bool:
    """Whether the catalog is a shell's (see the module doc)."""
    commands = {c for c in map(command_of, world.tools) if c is not None}
    if len(commands) < _MIN_COMMANDS:
        return False
    return bool(commands & _NAVIGATION) or any(_TALKS_OF_A_CWD.search(str(t.get("description") or ""))
                                               for t in world.tools)


def claims(world: World, tool: ToolSpec) -> bool:
    return command_of(tool.definition) is not None and is_shell(world)


def predict(step: Step) -> Prediction | None:
    command = command_of(step.tool.definition)
    if command is None:
        return None
    tree = Tree.of(step)
    call = Call(command, step.arguments, _hints(step.tool), _whole_directories(step.tool))
    try:
        output = COMMANDS[command](tree, call)
    except ShellError as exc:
        return Prediction(str(exc), is_error=True, effects=[])
    return _answer(step, output, tree)


def _hints(tool: ToolSpec) -> str:
    props = tool.input_schema.get("properties") or {}
    described = " ".join(str(p.get("description") or "") for p in props.values() if isinstance(p, dict))
    return f"{tool.description} {described}".lower()


def _whole_directories(tool: ToolSpec) -> bool:
    props = tool.input_schema.get("properties") or {}
    return not any(name in props for name in RECURSIVE) and _FILE_OR_DIRECTORY.search(tool.description) is not None


# -- the answer ------------------------------------------------------------------------------------


def _answer(step: Step, output: Output, tree: Tree) -> Prediction:
    out = step.tool.output_schema
    if not out or step.effects_only:
        return Prediction(output.printed, effects=tree.effects)
    body = _structured(out, output)
    return Prediction(conform(body, out, step.rng), effects=tree.effects)


def _structured(out: JSONDict, output: Output) -> JSONDict:
    """The command's data in the outputSchema's fields, chosen by type: a listing in the array, a text
    in the string, a count in the number with its unit in a string beside it."""
    props: JSONDict = {k: v for k, v in (out.get("properties") or {}).items() if isinstance(v, dict)}
    arrays = [k for k, v in props.items() if v.get("type") == "array"]
    numbers = [k for k, v in props.items() if v.get("type") in ("integer", "number")]
    strings = [k for k, v in props.items() if v.get("type") == "string"]
    body: JSONDict = {}
    if output.kind == "lines":
        if arrays:
            body[arrays[0]] = output.value
        elif strings:
            body[strings[0]] = output.printed
    elif output.kind == "count":
        if numbers:
            body[numbers[0]] = output.value
        if strings:
            body[_unit_field(props, strings)] = output.unit
    elif output.kind in ("text", "message"):
        if strings:
            body[strings[0]] = output.value
        elif arrays:
            body[arrays[0]] = str(output.value).splitlines()
    if "success" in props:
        body["success"] = True
    return body


def _unit_field(props: JSONDict, strings: list[str]) -> str:
    for name in strings:
        text = f"{name} {props[name].get('description', '')} {props[name].get('enum', '')}".lower()
        if re.search(r"\b(?:unit|type|kind|lines|words)\b", text):
            return name
    return strings[0]


__all__ = ["claims", "command_of", "is_shell", "predict"]
