"""Write a world file from a live server's tool catalog."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import yaml

from .world import load_world


def write_world(path: Path, tools: list[dict[str, Any]], *, name: str | None = None, scenario: str = "") -> Path:
    """Write ``tools`` (exactly as listed) as a world file, atomically; YAML unless ``path`` ends in .json."""
    data: dict[str, Any] = {"name": name or path.stem, "scenario": scenario, "tools": tools}
    write_world_file(path, data)
    load_world(path)  # what we wrote must load: fail loudly here, not in the user's next command
    return path


#: The first line of a YAML world file: editors validate it against the world schema.
SCHEMA_HEADER = "# yaml-language-server: $schema=https://agentworld-mcp.dev/schemas/world.schema.json\n"


def write_world_file(path: Path, data: dict[str, Any], *, header: str = SCHEMA_HEADER) -> Path:
    """``data`` as a world file: JSON if ``path`` ends in .json, else YAML after ``header``; written to
    a temporary file beside it and renamed, so a reader never sees half a world."""
    if path.suffix == ".json":
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        text = header + yaml_text(data)
    return replace_file(path, text)


def replace_file(path: Path, text: str) -> Path:
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``: a reader
    never sees half a file. The file gets the mode any new file gets (0666 less the umask),
    not the 0600 of a private temporary file: it is the user's file, to share or commit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


class _PlainDumper(yaml.SafeDumper):
    """No ``&id001`` anchors: a value shared by two tools is written out twice, as a person would."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def yaml_text(data: dict[str, Any]) -> str:
    """YAML that reads back as exactly ``data``.

    Readable unicode first; PyYAML writes a few characters (NEL, the Unicode line and
    paragraph separators) raw, and they read back as line breaks, so such a catalog is
    written with every non-ASCII character escaped instead.
    """
    text = yaml.dump(data, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=100)
    if _same(yaml.safe_load(text), data):
        return text
    return yaml.dump(data, Dumper=_PlainDumper, sort_keys=False, allow_unicode=False, width=100)


def _same(a: Any, b: Any) -> bool:
    # json text tells 1 from 1.0 from True, which == does not
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)
