"""The agent's real tools: thin clients of the issue tracker's REST API.

In production they talk to ``$TRACKER_URL``. The tests never do: they put the graph in a
simulated world (``examples/worlds/issue-tracker.yaml``) without touching these functions.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import httpx
from langchain_core.tools import tool

Priority = Literal["low", "medium", "high"]
Status = Literal["open", "closed"]


def _api(method: str, path: str, **kwargs: Any) -> Any:
    base = os.environ.get("TRACKER_URL")
    if not base:
        raise RuntimeError("TRACKER_URL is not set: the real tracker tools need the tracker's API root")
    response = httpx.request(method, base.rstrip("/") + path, timeout=10, **kwargs)
    response.raise_for_status()
    return response.json()


@tool
def list_issues(status: Status | None = None, assignee: str | None = None, per_page: int | None = None,
                cursor: str | None = None) -> Any:
    """List issues, optionally filtered by status or assignee."""
    params = {k: v for k, v in dict(status=status, assignee=assignee, per_page=per_page, cursor=cursor).items() if v}
    return _api("GET", "/issues", params=params)


@tool
def create_issue(title: str, body: str = "", priority: Priority = "medium", assignee: str | None = None) -> Any:
    """Create a new issue in the tracker and return it."""
    return _api("POST", "/issues", json={"title": title, "body": body, "priority": priority, "assignee": assignee})


@tool
def get_issue(issue_id: int) -> Any:
    """Get one issue by its id."""
    return _api("GET", f"/issues/{issue_id}")


@tool
def update_issue(issue_id: int, title: str | None = None, body: str | None = None, status: Status | None = None,
                 priority: Priority | None = None, assignee: str | None = None) -> Any:
    """Change the title, body, status, priority or assignee of an issue."""
    changes = {k: v for k, v in dict(title=title, body=body, status=status, priority=priority,
                                     assignee=assignee).items() if v is not None}
    return _api("PATCH", f"/issues/{issue_id}", json=changes)


@tool
def add_comment(issue_id: int, body: str) -> Any:
    """Add a comment to an issue."""
    return _api("POST", f"/issues/{issue_id}/comments", json={"body": body})


TOOLS = [list_issues, create_issue, get_issue, update_issue, add_comment]
