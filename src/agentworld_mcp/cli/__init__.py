"""The command line: ``agentworld-mcp`` and ``python -m agentworld_mcp``.

``main`` (the parser and the serve/validate/call commands), ``episodes`` (episodes,
trajectories, export), ``sim2real`` (proxy, learn, score).

May import: every other layer; nothing imports it.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
