"""Integrations: the doors from agent frameworks and trainers.

``langgraph`` (simulated LangChain tools, ToolNode wrappers; ``scripted`` its scripted chat
model), ``pytest_plugin`` (the ``agentworld`` fixture and marker), ``openenv`` (an OpenEnv
environment for RL trainers), ``toolworld`` (a world from plain tool definitions) and
``_blocking`` (running the async simulator from synchronous code).

May import: :mod:`agentworld_mcp.fiction` and the layers below.
"""
