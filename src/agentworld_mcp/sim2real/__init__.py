"""Sim-to-real: from real servers to worlds, and back to a score.

``proxy`` records a real server's session, ``learn`` turns a recording into a world,
``score`` and ``judge`` measure a simulation against real answers, ``enrich`` asks a
language world model once per tool for answer shapes.

May import: :mod:`agentworld_mcp.serve` and the layers below (never the SDK directly).
"""
