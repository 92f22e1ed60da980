"""Serving: the MCP server and its front door.

``transport`` holds every call into the MCP SDK (stdio, streamable HTTP, the client used
by ``mirror`` and ``proxy``); ``http_guard`` and ``screening`` decide what a request may
look like and who may send it; ``admin`` is the episode administration API.

May import: :mod:`agentworld_mcp.trajectories` and the layers below.
"""
