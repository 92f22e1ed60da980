"""The deterministic world model (no GPU, no key): ``schema.SchemaWorldModel`` and its parts.

``schema`` dispatches each call by the tool's role and the catalog's style to the part that
answers it: records (``records``, ``observed``, ``served``, ``service_envelope``), files
(``files``), graphs (``graph``), SQL on a real per-episode SQLite (``sql``, ``sql_db``,
``sql_dialects``), key-value text, pages and ranking; ``common`` holds what they share.

May import: :mod:`agentworld_mcp.models.base` and the layers below (state, world, errors);
never the language-model side of :mod:`agentworld_mcp.models`, the pipeline or the perturbations.
"""
