"""World knowledge: what a world is, before any episode runs.

The world file (``world``: the catalog exactly as loaded, scenario, seed, demonstrations,
settings) and what is compiled from it once (``catalog``: validators, the entity model in
``entities``, each tool's role in ``roles``, conventions read from the catalog's text in
``conventions``, published ones in ``service_profiles``), plus plain data and value makers
(``values``, ``sql_roles``, ``paging_names``, ``kinds``) and writing world files (``writer``).

May import: :mod:`agentworld_mcp.errors` only. Everything else imports this layer.
"""
