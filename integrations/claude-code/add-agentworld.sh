#!/usr/bin/env sh
# Register a simulated issue tracker with Claude Code (run once; `claude mcp list` shows it).
# --scope project writes .mcp.json in the current repo instead, to share it with the team.
claude mcp add agentworld -- agentworld-mcp serve issue-tracker
