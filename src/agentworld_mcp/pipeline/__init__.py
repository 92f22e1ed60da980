"""The pipeline: the one path that answers every tool call.

``engine.Simulator`` runs the stages (validate, perturb before, predict, check output,
reconcile, perturb after, record); ``config`` resolves settings from the world file, the
environment and overrides into one ``SimulatorConfig``; ``reconcile`` works out a
prediction's effects on the ledger.

May import: :mod:`agentworld_mcp.models`, :mod:`agentworld_mcp.perturb`, and the layers below.
"""
