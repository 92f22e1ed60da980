"""Trajectories: what a person or a trainer reads of episodes.

``record`` writes one line per turn (``--record``), ``export`` rebuilds AgentWorldBench
samples, ``trail`` reads a recording back as the episode's changes, ``report`` renders
episodes as one HTML page.

May import: :mod:`agentworld_mcp.pipeline` and the layers below.
"""
