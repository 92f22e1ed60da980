"""Fictional worlds: consistent seed state written from a scenario.

``populate`` (the command), ``generator`` (the deterministic fiction), ``populate_llm``
(a language model writes it), ``references`` (which fields point at which entity) and
``facts`` (question/answer facts that hold only in the fiction, for graders).

May import: :mod:`agentworld_mcp.sim2real` and the layers below.
"""
