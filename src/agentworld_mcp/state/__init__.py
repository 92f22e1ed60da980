"""State: one episode's world, where episodes live, and the values a call carries.

``ledger`` (entities by collection and key, with status and id sequences), ``episode``
(ledger, trajectory, seed), the stores (``store``: memory and SQLite; ``store_redis``;
``stores`` picks one from a URL), and the values that flow through the pipeline
(``step``: Step, Prediction, Gate; ``result``: ToolResult). These sit below the world
models and the perturbation stage, so that neither ever imports the pipeline.

May import: :mod:`agentworld_mcp.world`, :mod:`agentworld_mcp.errors`.
"""
