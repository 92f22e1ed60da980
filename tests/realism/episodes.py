"""One scripted episode per catalog, with checks written from each service's public docs.

An episode is what an agent does with a service: create, read back, update, list or
search, delete. Each :class:`Check` says what a client of the real service relies on
(the id format, read-back, a filter, scoping, deletion) and cites the documentation it
comes from. Checks are general expectations of the real service, never our current output.

Arguments may refer to earlier answers with :class:`~tests.realism.checks.Ref` (the id the
create returned); a ``default`` keeps the episode going when an answer lacks the value
(the check on that answer already fails).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .checks import (
    Predicate,
    Ref,
    content_is,
    every_item,
    fails,
    fails_or_says_gone,
    field_differs,
    field_equals,
    field_matches,
    is_json,
    lacks,
    lists,
    mentions,
    omits,
    succeeds,
    text_matches,
)

JSONDict = dict[str, Any]
UUID = r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
#: Where the filesystem episode works (the real server is started with it as its allowed directory).
FILES_ROOT = "/tmp/agentworld-realism/files"


@dataclass(frozen=True)
class Check:
    """One expectation: what a client relies on, how to test it, and the doc that says so."""

    what: str
    predicate: Predicate
    doc: str


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: JSONDict
    checks: tuple[Check, ...] = ()
    save: str | None = None  # name later steps use to refer to this answer


@dataclass(frozen=True)
class Episode:
    catalog: str  # tests/realism/catalogs/CATALOG.json
    steps: tuple[Step, ...]


def step(tool: str, arguments: JSONDict, *checks: Check, save: str | None = None) -> Step:
    return Step(tool, arguments, checks, save)


def check(what: str, predicate: Predicate, doc: str) -> Check:
    return Check(what, predicate, doc)


# -- Stripe (payments; @stripe/mcp, tools from @stripe/agent-toolkit) ---------------------------
_STRIPE_CUSTOMER = "https://docs.stripe.com/api/customers/object"
_STRIPE_CUSTOMERS_LIST = "https://docs.stripe.com/api/customers/list"
_STRIPE_PRODUCT = "https://docs.stripe.com/api/products/object"
_STRIPE_PRICE = "https://docs.stripe.com/api/prices/object"
_STRIPE_PRICES_LIST = "https://docs.stripe.com/api/prices/list"
_STRIPE_LINK = "https://docs.stripe.com/api/payment-link/object"
_STRIPE_INVOICE = "https://docs.stripe.com/api/invoices/create"
_STRIPE_FINALIZE = "https://docs.stripe.com/api/invoices/finalize"
_STRIPE_INVOICES_LIST = "https://docs.stripe.com/api/invoices/list"
_CUS = Ref("jenny", "id", "cus_missing")
_PROD = Ref("product", "id", "prod_missing")
_PRICE = Ref("price", "id", "price_missing")
_INV = Ref("invoice", "id", "in_missing")

STRIPE = Episode("stripe", (
    step("create_customer", {"name": "Jenny Rosen", "email": "jenny.rosen@example.com"},
         check("create_customer answers", succeeds(), _STRIPE_CUSTOMER),
         check("a customer id starts with cus_", field_matches("id", r"cus_[A-Za-z0-9]+$"), _STRIPE_CUSTOMER),
         save="jenny"),
    step("create_customer", {"name": "Ada Lovelace", "email": "ada@example.com"},
         check("another customer gets another id", field_differs("id", _CUS), _STRIPE_CUSTOMER),
         save="ada"),
    step("list_customers", {"email": "jenny.rosen@example.com"},
         check("listing by email finds the customer", lists("id", _CUS), _STRIPE_CUSTOMERS_LIST),
         check("the email filter leaves other customers out", lacks(Ref("ada", "id", "cus_missing")),
               _STRIPE_CUSTOMERS_LIST)),
    step("create_product", {"name": "Gold plan", "description": "Monthly gold membership"},
         check("a product id starts with prod_", field_matches("id", r"prod_[A-Za-z0-9]+$"), _STRIPE_PRODUCT),
         check("the product has the name it was created with", field_equals("name", "Gold plan"), _STRIPE_PRODUCT),
         save="product"),
    step("create_price", {"product": _PROD, "unit_amount": 2000, "currency": "usd"},
         check("a price id starts with price_", field_matches("id", r"price_[A-Za-z0-9]+$"), _STRIPE_PRICE),
         check("the price belongs to the product", field_equals("product", _PROD), _STRIPE_PRICE),
         check("the price keeps unit_amount in cents", field_equals("unit_amount", 2000), _STRIPE_PRICE),
         save="price"),
    step("list_prices", {"product": _PROD},
         check("listing a product's prices finds the price", lists("id", _PRICE), _STRIPE_PRICES_LIST),
         check("every listed price is the product's", every_item("product", _PROD), _STRIPE_PRICES_LIST)),
    step("create_payment_link", {"price": _PRICE, "quantity": 1},
         check("a payment link id starts with plink_", field_matches("id", r"plink_[A-Za-z0-9]+$"), _STRIPE_LINK),
         check("a payment link url is on buy.stripe.com", field_matches("url", r"https://buy\.stripe\.com/"),
               _STRIPE_LINK)),
    step("create_invoice", {"customer": _CUS, "days_until_due": 30},
         check("an invoice id starts with in_", field_matches("id", r"in_[A-Za-z0-9]+$"), _STRIPE_INVOICE),
         check("a new invoice is a draft", field_equals("status", "draft"), _STRIPE_INVOICE),
         save="invoice"),
    step("finalize_invoice", {"invoice": _INV},
         check("finalizing keeps the invoice id", field_equals("id", _INV), _STRIPE_FINALIZE),
         check("a finalized invoice is open", field_equals("status", "open"), _STRIPE_FINALIZE)),
    step("list_invoices", {"customer": _CUS},
         check("listing a customer's invoices finds the invoice", lists("id", _INV), _STRIPE_INVOICES_LIST),
         check("every listed invoice is the customer's", every_item("customer", _CUS), _STRIPE_INVOICES_LIST)),
))

# -- GitHub (@modelcontextprotocol/server-github: REST answers, no outputSchema) ----------------
_GH_ISSUE = "https://docs.github.com/en/rest/issues/issues#create-an-issue"
_GH_GET = "https://docs.github.com/en/rest/issues/issues#get-an-issue"
_GH_UPDATE = "https://docs.github.com/en/rest/issues/issues#update-an-issue"
_GH_LIST = "https://docs.github.com/en/rest/issues/issues#list-repository-issues"
_GH_SEARCH = "https://docs.github.com/en/rest/search/search#search-issues-and-pull-requests"
_GH_REF = "https://docs.github.com/en/rest/git/refs#create-a-reference"
_GH_CONTENTS = "https://docs.github.com/en/rest/repos/contents#get-repository-content"
_GH_PUT = "https://docs.github.com/en/rest/repos/contents#create-or-update-file-contents"
_ROCKET = {"owner": "acme", "repo": "rocket"}
_WEBAPP = {"owner": "acme", "repo": "webapp"}
_A = Ref("stall", "number", 1)

GITHUB = Episode("github", (
    step("create_issue", {**_ROCKET, "title": "Engine stalls at T-10", "body": "Seen on the last two tests."},
         check("create_issue answers", succeeds(), _GH_ISSUE),
         check("an issue has a number", field_matches("number", r"\d+$"), _GH_ISSUE),
         check("html_url is built from owner, repo and number",
               field_equals("html_url", Ref("stall", "number", template="https://github.com/acme/rocket/issues/{}")),
               _GH_ISSUE),
         check("a new issue is open", field_equals("state", "open"), _GH_ISSUE),
         save="stall"),
    step("create_issue", {**_ROCKET, "title": "Telemetry drops packets"},
         check("the next issue in the repository gets another number", field_differs("number", _A), _GH_ISSUE),
         save="telemetry"),
    step("create_issue", {**_WEBAPP, "title": "Login button misaligned"},
         check("an issue in another repository has that repository's url",
               field_matches("html_url", r"https://github\.com/acme/webapp/issues/\d+$"), _GH_ISSUE),
         save="login"),
    step("get_issue", {**_ROCKET, "issue_number": _A},
         check("reading the issue back gives its title", field_equals("title", "Engine stalls at T-10"), _GH_GET),
         check("reading the issue back gives its body", field_equals("body", "Seen on the last two tests."), _GH_GET)),
    step("get_issue", {**_WEBAPP, "issue_number": Ref("login", "number", 1)},
         check("the same number in another repository is that repository's issue",
               field_equals("title", "Login button misaligned"), _GH_GET)),
    step("update_issue", {**_ROCKET, "issue_number": _A, "state": "closed", "labels": ["bug"]},
         check("the update keeps the issue number", field_equals("number", _A), _GH_UPDATE),
         check("closing an issue shows state closed", field_equals("state", "closed"), _GH_UPDATE),
         check("the update applies the labels too", mentions("bug"), _GH_UPDATE)),
    step("list_issues", {**_ROCKET, "state": "open"},
         check("open issues of the repository are listed", lists("title", "Telemetry drops packets"), _GH_LIST),
         check("a closed issue is not among the open ones", lacks("Engine stalls at T-10"), _GH_LIST),
         check("issues of another repository are not listed", lacks("Login button misaligned"), _GH_LIST)),
    step("list_issues", {**_ROCKET, "state": "all", "labels": ["bug"]},
         check("a label filter lists the labelled issue", mentions("Engine stalls at T-10"), _GH_LIST),
         check("a label filter leaves out issues without the label", lacks("Telemetry drops packets"), _GH_LIST)),
    step("search_issues", {"q": "repo:acme/rocket Telemetry"},
         check("search finds the issue by a word of its title", mentions("Telemetry drops packets"), _GH_SEARCH),
         check("search is limited to the repository it names", lacks("Login button misaligned"), _GH_SEARCH)),
    step("create_branch", {**_ROCKET, "branch": "launch-docs", "from_branch": "main"},
         check("the new branch is a ref under refs/heads", field_equals("ref", "refs/heads/launch-docs"), _GH_REF)),
    step("create_or_update_file", {**_ROCKET, "path": "docs/launch.md", "content": "Launch checklist\n",
                                   "message": "Add launch checklist", "branch": "launch-docs"},
         check("the written file is reported at its path", field_equals("path", "docs/launch.md"), _GH_PUT),
         check("the write makes a commit with a sha", field_matches("sha", r"[0-9a-f]{7,40}$"), _GH_PUT)),
    step("get_file_contents", {**_ROCKET, "path": "docs/launch.md", "branch": "launch-docs"},
         check("the file reads back with what was written", content_is("Launch checklist\n"), _GH_CONTENTS)),
    step("get_file_contents", {**_ROCKET, "path": "docs/launch.md", "branch": "main"},
         check("a file written on a branch is not on main", fails_or_says_gone(), _GH_CONTENTS)),
))

# -- GitHub's own server (github/github-mcp-server: consolidated tools with `method`) -----------
_GHO = "https://github.com/github/github-mcp-server#tools"
_A_URL = Ref("a", "url", "https://github.com/acme/rocket/issues/0")
_A_NUM = Ref("a", "url", 1, pattern=r"/issues/(\d+)$")

GITHUB_OFFICIAL = Episode("github-official", (
    step("issue_write", {"method": "create", **_ROCKET, "title": "Engine stalls at T-10", "body": "Twice now."},
         check("issue_write create answers", succeeds(), _GHO),
         check("create returns the issue url in the repository",
               field_matches("url", r"https://github\.com/acme/rocket/issues/\d+$"), _GH_ISSUE),
         save="a"),
    step("issue_write", {"method": "create", **_ROCKET, "title": "Telemetry drops packets"},
         check("a second create is another issue", field_differs("url", _A_URL), _GH_ISSUE), save="a2"),
    step("issue_write", {"method": "create", **_WEBAPP, "title": "Login button misaligned"},
         check("an issue in another repository has that repository's url",
               field_matches("url", r"https://github\.com/acme/webapp/issues/\d+$"), _GH_ISSUE),
         save="b"),
    step("issue_read", {"method": "get", **_ROCKET, "issue_number": _A_NUM},
         check("issue_read get returns what issue_write created", field_equals("title", "Engine stalls at T-10"),
               _GH_GET),
         check("the issue read back is open", field_equals("state", "open"), _GH_GET),
         check("the issue read back has the url the create gave", field_equals("html_url", _A_URL), _GH_GET)),
    step("issue_read", {"method": "get", **_WEBAPP, "issue_number": Ref("b", "url", 1, pattern=r"/issues/(\d+)$")},
         check("a number in another repository is that repository's issue",
               field_equals("title", "Login button misaligned"), _GH_GET)),
    step("issue_write", {"method": "update", **_ROCKET, "issue_number": _A_NUM, "state": "closed",
                         "state_reason": "completed"},
         check("update answers with the same issue", field_equals("url", _A_URL), _GH_UPDATE)),
    step("issue_read", {"method": "get", **_ROCKET, "issue_number": _A_NUM},
         check("the update shows on read", field_equals("state", "closed"), _GH_UPDATE)),
    step("list_issues", {**_ROCKET, "state": "OPEN"},
         check("open issues are listed", mentions("Telemetry drops packets"), _GH_LIST),
         check("a closed issue is not among the open ones", lacks("Engine stalls at T-10"), _GH_LIST)),
    step("add_issue_comment", {**_ROCKET, "issue_number": Ref("a2", "url", 2, pattern=r"/issues/(\d+)$"),
                               "body": "Reproduced on the bench."},
         check("add_issue_comment answers", succeeds(), "https://docs.github.com/en/rest/issues/comments")),
    step("issue_read", {"method": "get_comments", **_ROCKET,
                        "issue_number": Ref("a2", "url", 2, pattern=r"/issues/(\d+)$")},
         check("get_comments returns the comment added", mentions("Reproduced on the bench."),
               "https://docs.github.com/en/rest/issues/comments#list-issue-comments")),
))

# -- Slack (@modelcontextprotocol/server-slack: Web API JSON, no outputSchema) -----------------
_SL_POST = "https://api.slack.com/methods/chat.postMessage"
_SL_HISTORY = "https://api.slack.com/methods/conversations.history"
_SL_REPLIES = "https://api.slack.com/methods/conversations.replies"
_SL_LIST = "https://api.slack.com/methods/conversations.list"
_SL_USERS = "https://api.slack.com/methods/users.list"
_CHANNEL = Ref("channels", "id", "C0123456789")
_TS = r"\d{10}\.\d{6}$"

SLACK = Episode("slack", (
    step("slack_list_channels", {},
         check("channels have Slack ids (C...)", field_matches("id", r"[CG][A-Z0-9]{6,}$"), _SL_LIST),
         save="channels"),
    step("slack_post_message", {"channel_id": _CHANNEL, "text": "Deploy finished :rocket:"},
         check("chat.postMessage answers ok: true", field_equals("ok", True), _SL_POST),
         check("the posted message has a ts (its id)", field_matches("ts", _TS), _SL_POST),
         check("the answer names the channel posted to", field_equals("channel", _CHANNEL), _SL_POST),
         save="msg"),
    step("slack_reply_to_thread", {"channel_id": _CHANNEL, "thread_ts": Ref("msg", "ts", "1700000000.000100"),
                                   "text": "Any rollback plan?"},
         check("a reply is a new message with its own ts", field_differs("ts", Ref("msg", "ts")), _SL_POST),
         check("a reply carries the thread_ts of its parent", field_equals("thread_ts", Ref("msg", "ts")), _SL_POST),
         save="reply"),
    step("slack_post_message", {"channel_id": "C0987654321", "text": "Standup moved to 10:30"},
         check("a message to another channel is posted there", field_equals("channel", "C0987654321"), _SL_POST)),
    step("slack_get_channel_history", {"channel_id": _CHANNEL, "limit": 10},
         check("channel history has the posted message", lists("ts", Ref("msg", "ts")), _SL_HISTORY),
         check("channel history shows the message text", mentions("Deploy finished :rocket:"), _SL_HISTORY),
         check("channel history leaves out other channels' messages", lacks("Standup moved to 10:30"),
               _SL_HISTORY)),
    step("slack_get_thread_replies", {"channel_id": _CHANNEL, "thread_ts": Ref("msg", "ts", "1700000000.000100")},
         check("the thread has the reply", lists("ts", Ref("reply", "ts")), _SL_REPLIES),
         check("the thread shows the reply text", mentions("Any rollback plan?"), _SL_REPLIES)),
    step("slack_add_reaction", {"channel_id": _CHANNEL, "timestamp": Ref("msg", "ts", "1700000000.000100"),
                                "reaction": "thumbsup"},
         check("reactions.add answers ok: true", field_equals("ok", True),
               "https://api.slack.com/methods/reactions.add")),
    step("slack_get_users", {"limit": 10},
         check("users have Slack ids (U... or W...)", field_matches("id", r"[UW][A-Z0-9]{6,}$"), _SL_USERS),
         save="users"),
    step("slack_get_user_profile", {"user_id": Ref("users", "id", "U0123456789")},
         check("a profile has the user's real_name", field_matches("real_name", r".+"),
               "https://api.slack.com/methods/users.profile.get")),
))

# -- Linear (@tacticlaunch/mcp-linear: outputSchemas, 198 tools) --------------------------------
_LN_ISSUE = "https://linear.app/developers/graphql#creating-and-editing-issues"
_LN_ID = "https://linear.app/docs/conceptual-model#issues"
_LN_TEAM = "https://linear.app/docs/teams#team-identifier"
_LN_ARCHIVE = "https://linear.app/docs/delete-archive-issues"
_TEAM = Ref("team", "id", "team-missing")
_ISSUE = Ref("issue", "id", "issue-missing")

LINEAR = Episode("linear", (
    step("linear_createTeam", {"name": "Rocket", "key": "ROC"},
         check("the team keeps its key", field_equals("key", "ROC"), _LN_TEAM),
         check("Linear ids are UUIDs", field_matches("id", UUID), _LN_ISSUE),
         save="team"),
    step("linear_createIssue", {"title": "Engine stalls", "teamId": _TEAM, "priority": 2,
                                "description": "Seen twice on the bench."},
         check("an issue identifier is the team key and a number (ROC-1)", field_matches("identifier", r"ROC-\d+$"),
               _LN_ID),
         check("an issue url is on linear.app and ends with its identifier",
               field_matches("url", r"https://linear\.app/.+/issue/ROC-\d+"), _LN_ID),
         save="issue"),
    step("linear_createIssue", {"title": "Telemetry drops packets", "teamId": _TEAM},
         check("the next issue gets the next identifier", field_differs("identifier", Ref("issue", "identifier")),
               _LN_ID),
         save="issue2"),
    step("linear_createTeam", {"name": "Webapp", "key": "WEB"},
         check("another team keeps its own key", field_equals("key", "WEB"), _LN_TEAM), save="team2"),
    step("linear_createIssue", {"title": "Login button misaligned", "teamId": Ref("team2", "id", "team-missing")},
         check("an issue of another team is numbered in that team (WEB-1)", field_matches("identifier", r"WEB-\d+$"),
               _LN_ID),
         save="web"),
    step("linear_searchIssues", {"teamId": Ref("team2", "id", "team-missing")},
         check("a team filter lists that team's issue", lists("id", Ref("web", "id")), _LN_ISSUE),
         check("a team filter leaves out other teams' issues", omits("id", _ISSUE), _LN_ISSUE)),
    step("linear_getIssueById", {"id": _ISSUE},
         check("reading the issue back gives its title", field_equals("title", "Engine stalls"), _LN_ISSUE),
         check("reading the issue back gives its identifier", field_equals("identifier", Ref("issue", "identifier")),
               _LN_ISSUE),
         check("reading the issue back gives its priority", field_equals("priority", 2), _LN_ISSUE)),
    step("linear_updateIssue", {"id": _ISSUE, "title": "Engine stalls at T-10", "priority": 1},
         check("updateIssue answers", succeeds(), _LN_ISSUE)),
    step("linear_getIssueById", {"id": _ISSUE},
         check("the new title shows on read", field_equals("title", "Engine stalls at T-10"), _LN_ISSUE),
         check("every updated field shows on read (priority)", field_equals("priority", 1), _LN_ISSUE)),
    step("linear_searchIssues", {"query": "Engine stalls", "teamId": _TEAM},
         check("search finds the issue", lists("id", _ISSUE), _LN_ISSUE),
         check("search leaves out issues that do not match", lacks("Telemetry drops packets"), _LN_ISSUE)),
    step("linear_archiveIssue", {"issueId": _ISSUE},
         check("archiving reports success", field_equals("success", True), _LN_ARCHIVE)),
    step("linear_searchIssues", {"query": "Engine stalls", "teamId": _TEAM},
         check("an archived issue is no longer found by search", lacks(Ref("issue", "id")), _LN_ARCHIVE)),
))

# -- Notion (@notionhq/notion-mcp-server: the public API, no outputSchema) ----------------------
_NO_CREATE = "https://developers.notion.com/reference/post-page"
_NO_PAGE = "https://developers.notion.com/reference/page"
_NO_PATCH = "https://developers.notion.com/reference/patch-page"
_NO_SEARCH = "https://developers.notion.com/reference/post-search"
_NO_COMMENT = "https://developers.notion.com/reference/create-a-comment"
_NO_TRASH = "https://developers.notion.com/reference/archive-a-page"
_PARENT = {"page_id": "59833787-2cf9-4fdf-8782-e53db20768a5"}
_PAGE = Ref("page", "id", "00000000-0000-0000-0000-000000000000")


def _title(text: str) -> JSONDict:
    return {"title": [{"text": {"content": text}}]}


NOTION = Episode("notion", (
    step("API-post-page", {"parent": _PARENT, "properties": _title("Launch plan")},
         check("a created page is a page object", field_equals("object", "page"), _NO_PAGE),
         check("page ids are UUIDs", field_matches("id", UUID), _NO_PAGE),
         check("a page has a notion.so url", field_matches("url", r"https://www\.notion\.so/"), _NO_PAGE),
         save="page"),
    step("API-retrieve-a-page", {"page_id": _PAGE},
         check("retrieving the page gives the same id", field_equals("id", _PAGE), _NO_PAGE),
         check("retrieving the page gives its title", mentions("Launch plan"), _NO_PAGE)),
    step("API-patch-page", {"page_id": _PAGE, "properties": _title("Launch plan v2")},
         check("the update returns the page with the new title", mentions("Launch plan v2"), _NO_PATCH)),
    step("API-post-search", {"query": "Launch plan"},
         check("search answers with a list object", field_equals("object", "list"), _NO_SEARCH),
         check("search finds the page by title", lists("id", _PAGE), _NO_SEARCH)),
    step("API-create-a-comment", {"parent": {"page_id": _PAGE}, "rich_text": [{"text": {"content": "Looks good"}}]},
         check("a created comment is a comment object", field_equals("object", "comment"), _NO_COMMENT)),
    step("API-retrieve-a-comment", {"block_id": _PAGE},
         check("the page's comments include the new one", mentions("Looks good"),
               "https://developers.notion.com/reference/retrieve-a-comment")),
    step("API-patch-page", {"page_id": _PAGE, "in_trash": True},
         check("trashing a page returns it with in_trash true", field_equals("in_trash", True), _NO_TRASH)),
))

# -- Todoist (@doist/todoist-mcp: outputSchemas) -----------------------------------------------
_TD = "https://developer.todoist.com/api/v1/#tag/Tasks"
_TD_MCP = "https://github.com/Doist/todoist-ai#tools"
_TD_FILTERS = "https://todoist.com/help/articles/introduction-to-filters-V98wIH"
_TD_PROJECT = Ref("project", "id", "missing-project")
_MILK = Ref("milk", "tasks.0.id", "missing-task")
_DOG = Ref("dog", "tasks.0.id", "missing-task")

TODOIST = Episode("todoist", (
    step("add-projects", {"projects": [{"name": "Home", "color": "berry_red"}]},
         check("the created project has its name", field_equals("name", "Home"), _TD_MCP),
         save="project"),
    step("add-tasks", {"tasks": [{"content": "Buy milk", "projectId": _TD_PROJECT, "priority": "p2"}]},
         check("the created task has an id", field_matches("tasks.0.id", r"\w+$"), _TD),
         check("the created task has its content", field_equals("tasks.0.content", "Buy milk"), _TD),
         check("the created task is in the project", field_equals("tasks.0.projectId", _TD_PROJECT), _TD),
         save="milk"),
    step("add-tasks", {"tasks": [{"content": "Walk the dog", "projectId": _TD_PROJECT}]},
         check("another task gets another id", field_differs("tasks.0.id", _MILK), _TD), save="dog"),
    step("find-tasks", {"searchText": "milk"},
         check("searching finds the task", lists("id", _MILK), _TD_MCP),
         check("searching leaves out tasks that do not match", lacks("Walk the dog"), _TD_MCP)),
    step("update-tasks", {"tasks": [{"id": _MILK, "content": "Buy oat milk", "priority": "p1"}]},
         check("the update returns the new content", field_equals("tasks.0.content", "Buy oat milk"), _TD)),
    step("fetch-object", {"type": "task", "id": _MILK},
         check("fetching the task shows the update", mentions("Buy oat milk"), _TD_MCP)),
    # Filter queries: "p1" is the priority-1 tasks (https://todoist.com/help/articles/introduction-to-filters-V98wIH)
    step("find-tasks", {"filter": "p1"},
         check("a priority filter finds the p1 task", lists("id", _MILK), _TD_FILTERS),
         check("a priority filter leaves out other priorities", omits("id", _DOG), _TD_FILTERS)),
    step("complete-tasks", {"ids": [_MILK]},
         check("completing reports the task completed", field_equals("completed.0", _MILK), _TD_MCP)),
    step("find-tasks", {"projectId": _TD_PROJECT},
         check("the project's active tasks are listed", lists("id", _DOG), _TD),
         check("a completed task is not among the active ones", lacks(_MILK), _TD)),
    step("delete-object", {"type": "task", "id": _DOG},
         check("delete names the deleted task", field_equals("deletedEntity.id", _DOG), _TD_MCP),
         check("delete reports success", field_equals("success", True), _TD_MCP)),
    step("fetch-object", {"type": "task", "id": _DOG},
         check("a deleted task is gone", fails_or_says_gone(), _TD)),
))

# -- Jira (mcp-atlassian: FastMCP, every outputSchema {result: string} wrapping JSON) -----------
_JI_KEY = "https://support.atlassian.com/jira-software-cloud/docs/what-is-an-issue/"
_JI_CREATE = "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-post"
_JI_GET = "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-issueidorkey-get"
_JI_SEARCH = "https://support.atlassian.com/jira-software-cloud/docs/use-advanced-search-with-jira-query-language-jql/"
_JI_DELETE = "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-issueidorkey-delete"
_JI_MCP = "https://github.com/sooperset/mcp-atlassian#tools"
_KEY = Ref("roc", "key", "ROC-1")

JIRA = Episode("jira", (
    step("jira_create_issue", {"project_key": "ROC", "summary": "Engine stalls", "issue_type": "Bug",
                               "description": "Seen twice on the bench."},
         check("the wrapped result carries the issue as JSON", is_json(), _JI_MCP),
         check("an issue key is the project key and a number (ROC-1)", field_matches("key", r"ROC-\d+$"), _JI_KEY),
         save="roc"),
    step("jira_create_issue", {"project_key": "WEB", "summary": "Login button misaligned", "issue_type": "Bug"},
         check("an issue in another project has that project's key", field_matches("key", r"WEB-\d+$"), _JI_KEY),
         save="web"),
    step("jira_get_issue", {"issue_key": _KEY},
         check("reading the issue back gives its key", field_equals("key", _KEY), _JI_GET),
         check("reading the issue back gives its summary", field_equals("summary", "Engine stalls"), _JI_GET)),
    step("jira_update_issue", {"issue_key": _KEY, "fields": '{"summary": "Engine stalls at T-10"}'},
         check("update_issue answers", succeeds(), _JI_MCP)),
    step("jira_get_issue", {"issue_key": _KEY},
         check("the update shows on read", field_equals("summary", "Engine stalls at T-10"), _JI_GET)),
    step("jira_search", {"jql": 'project = ROC AND summary ~ "Engine"'},
         check("a JQL search finds the issue", lists("key", _KEY), _JI_SEARCH),
         check("a JQL search on one project leaves out others' issues", lacks(Ref("web", "key", "WEB-1")),
               _JI_SEARCH)),
    step("jira_add_comment", {"issue_key": _KEY, "body": "Reproduced on the bench."},
         check("the comment added is returned", mentions("Reproduced on the bench."), _JI_MCP)),
    step("jira_delete_issue", {"issue_key": _KEY},
         check("delete_issue answers", succeeds(), _JI_DELETE)),
    step("jira_get_issue", {"issue_key": _KEY},
         check("a deleted issue is gone", fails_or_says_gone(), _JI_DELETE)),
))

# -- SQLite (mcp-server-sqlite: answers are Python reprs of real query results) ---------------
_SQ = "https://github.com/modelcontextprotocol/servers-archived/tree/main/src/sqlite#tools"

SQLITE = Episode("sqlite", (
    step("create_table", {"query": "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL)"},
         check("create_table answers", succeeds(), _SQ)),
    step("write_query", {"query": "INSERT INTO products (name, price) VALUES ('Widget', 9.5), ('Gadget', 24.0), "
                                  "('Gizmo', 15.25)"},
         check("an insert reports the rows it affected", text_matches(r"affected_rows\W+3"), _SQ)),
    step("read_query", {"query": "SELECT name, price FROM products WHERE price > 10 ORDER BY price"},
         check("a select returns the matching rows", mentions("Gizmo"), _SQ),
         check("a select leaves out rows its WHERE excludes", lacks("Widget"), _SQ),
         check("rows come in the ORDER BY order", text_matches(r"Gizmo.*Gadget"), _SQ)),
    step("read_query", {"query": "SELECT COUNT(*) AS n FROM products"},
         check("an aggregate is computed", text_matches(r"\bn\W+3\b"), _SQ)),
    step("write_query", {"query": "UPDATE products SET price = 12.5 WHERE name = 'Widget'"},
         check("an update reports one affected row", text_matches(r"affected_rows\W+1\b"), _SQ)),
    step("read_query", {"query": "SELECT price FROM products WHERE name = 'Widget'"},
         check("the update shows in a later select", mentions("12.5"), _SQ)),
    step("list_tables", {},
         check("list_tables names the created table", mentions("products"), _SQ)),
    step("describe_table", {"table_name": "products"},
         check("describe_table gives the columns", mentions("price"), _SQ),
         check("describe_table gives the column types", mentions("REAL"), _SQ)),
    step("write_query", {"query": "DELETE FROM products WHERE name = 'Gizmo'"},
         check("a delete reports one affected row", text_matches(r"affected_rows\W+1\b"), _SQ)),
    step("read_query", {"query": "SELECT name FROM products"},
         check("a deleted row is gone", lacks("Gizmo"), _SQ),
         check("the other rows remain", mentions("Gadget"), _SQ)),
    step("read_query", {"query": "SELECT * FROM missing_table"},
         check("a query on a missing table says so", mentions("no such table"), _SQ)),
))

# -- Postgres (@modelcontextprotocol/server-postgres: one read-only `query` tool) -------------
_PG = "https://github.com/modelcontextprotocol/servers-archived/tree/main/src/postgres#tools"
_PG_SERIES = "https://www.postgresql.org/docs/current/functions-srf.html"

POSTGRES = Episode("postgres", (
    step("query", {"sql": "SELECT 1 + 1 AS two"},
         check("rows come back as JSON", is_json(), _PG),
         check("an expression is computed", field_equals("two", 2), _PG)),
    step("query", {"sql": "SELECT upper('rocket') AS name"},
         check("a function is applied", field_equals("name", "ROCKET"),
               "https://www.postgresql.org/docs/current/functions-string.html")),
    step("query", {"sql": "SELECT n FROM generate_series(1, 3) AS n"},
         check("a set-returning function gives one row per value", text_matches(r'"n":\s*3'), _PG_SERIES),
         check("rows stop where the series stops", lacks('"n": 4'), _PG_SERIES)),
    step("query", {"sql": "CREATE TABLE launches (id int)"},
         check("queries run in a read-only transaction, so a CREATE is refused", fails(), _PG)),
))

# -- mcp-server-time (PyPI: structured output) ------------------------------------------------
_TM = "https://github.com/modelcontextprotocol/servers/tree/main/src/time#available-tools"

TIME = Episode("time", (
    step("get_current_time", {"timezone": "Europe/Warsaw"},
         check("the answer names the timezone asked for", field_equals("timezone", "Europe/Warsaw"), _TM),
         check("the datetime is ISO 8601 with Warsaw's offset",
               field_matches("datetime", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00$"), _TM)),
    step("convert_time", {"source_timezone": "America/New_York", "time": "16:30", "target_timezone": "Asia/Tokyo"},
         check("the source time is the time given", field_matches("source.datetime", r".*T16:30:00"), _TM),
         check("the target time is 13 or 14 hours later", field_matches("target.datetime", r".*T0[56]:30:00"), _TM),
         check("the time difference is given in hours", field_matches("time_difference", r"\+1[34](\.0)?h$"), _TM)),
    step("get_current_time", {"timezone": "Mars/Olympus_Mons"},
         check("an unknown timezone is refused", fails(), _TM)),
))

# -- Task manager (@kazuph/mcp-taskmanager: JSON text answers, runs offline) --------------------
_TK = "https://github.com/kazuph/mcp-taskmanager#tools"
_REQ = Ref("plan", "requestId", "req-1")
_T1 = Ref("plan", "tasks.0.id", "task-1")
_T2 = Ref("plan", "tasks.1.id", "task-2")

TASKMANAGER = Episode("taskmanager", (
    step("request_planning", {"originalRequest": "Plan the launch party", "tasks": [
        {"title": "Book venue", "description": "A hall for 50 people"},
        {"title": "Send invites", "description": "Email the guest list"}]},
         check("planning answers with a request id", field_matches("requestId", r"req-\d+$"), _TK),
         check("each planned task gets a task id", field_matches("tasks.1.id", r"task-\d+$"), _TK),
         save="plan"),
    step("get_next_task", {"requestId": _REQ},
         check("the next task is the first one planned", mentions("Book venue"), _TK)),
    step("mark_task_done", {"requestId": _REQ, "taskId": _T1, "completedDetails": "Booked the town hall"},
         check("mark_task_done answers", succeeds(), _TK)),
    step("update_task", {"requestId": _REQ, "taskId": _T2, "title": "Send invitations"},
         check("update_task answers", succeeds(), _TK)),
    step("open_task_details", {"taskId": _T2},
         check("task details show the update", mentions("Send invitations"), _TK)),
    step("list_requests", {},
         check("list_requests lists the request", mentions(_REQ), _TK)),
    step("delete_task", {"requestId": _REQ, "taskId": _T2},
         check("delete_task answers", succeeds(), _TK)),
    step("open_task_details", {"taskId": _T2},
         check("a deleted task is gone", fails_or_says_gone(), _TK)),
))

# -- Memory (@modelcontextprotocol/server-memory: a knowledge graph, outputSchemas) -------------
_ME = "https://github.com/modelcontextprotocol/servers/tree/main/src/memory#api"

MEMORY = Episode("memory", (
    step("create_entities", {"entities": [
        {"name": "Ada_Lovelace", "entityType": "person", "observations": ["Wrote the first program"]},
        {"name": "Analytical_Engine", "entityType": "machine", "observations": ["Designed by Babbage"]}]},
         check("created entities are returned", lists("name", "Analytical_Engine"), _ME)),
    step("create_relations", {"relations": [{"from": "Ada_Lovelace", "to": "Analytical_Engine",
                                             "relationType": "programmed"}]},
         check("created relations are returned", lists("relationType", "programmed"), _ME)),
    step("add_observations", {"observations": [{"entityName": "Ada_Lovelace", "contents": ["Born in 1815"]}]},
         check("added observations are returned", mentions("Born in 1815"), _ME)),
    step("open_nodes", {"names": ["Ada_Lovelace"]},
         check("open_nodes returns the entity", lists("name", "Ada_Lovelace"), _ME),
         check("the entity has its observations, old and new", mentions("Wrote the first program"), _ME),
         check("the observation added later shows", mentions("Born in 1815"), _ME)),
    step("search_nodes", {"query": "Babbage"},
         check("search matches observation content", lists("name", "Analytical_Engine"), _ME),
         check("search leaves out entities that do not match", omits("name", "Ada_Lovelace"), _ME)),
    step("delete_entities", {"entityNames": ["Analytical_Engine"]},
         check("delete_entities answers", succeeds(), _ME)),
    step("read_graph", {},
         check("the graph keeps the other entity", lists("name", "Ada_Lovelace"), _ME),
         check("a deleted entity is gone from the graph", omits("name", "Analytical_Engine"), _ME)),
))

# -- Filesystem (@modelcontextprotocol/server-filesystem: prose text, outputSchemas) ------------
_FS = "https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem#tools"
_NOTES = f"{FILES_ROOT}/notes.md"

FILESYSTEM = Episode("filesystem", (
    step("create_directory", {"path": f"{FILES_ROOT}/archive"},
         check("create_directory answers", succeeds(), _FS)),
    step("write_file", {"path": _NOTES, "content": "# Launch\nBook venue\n"},
         check("write_file says it wrote the path", text_matches(r"wrote to .*notes\.md"), _FS)),
    step("read_text_file", {"path": _NOTES},
         check("the text block is the file itself", text_matches(r"\A# Launch\nBook venue\n?\Z"), _FS)),
    step("edit_file", {"path": _NOTES, "edits": [{"oldText": "Book venue", "newText": "Book town hall"}]},
         check("edit_file answers with a diff", text_matches(r"^\+Book town hall"), _FS)),
    step("read_text_file", {"path": _NOTES},
         check("the edit shows on read", text_matches(r"Book town hall"), _FS),
         check("the replaced text is gone", lacks("Book venue"), _FS)),
    step("list_directory", {"path": FILES_ROOT},
         check("the listing marks files [FILE]", text_matches(r"\[FILE\] notes\.md"), _FS),
         check("the listing marks directories [DIR]", text_matches(r"\[DIR\] archive"), _FS)),
    step("search_files", {"path": FILES_ROOT, "pattern": "**/*.md"},
         check("search_files finds the file by a glob", mentions(_NOTES), _FS)),
    step("move_file", {"source": _NOTES, "destination": f"{FILES_ROOT}/archive/notes.md"},
         check("move_file answers", succeeds(), _FS)),
    step("read_text_file", {"path": _NOTES},
         check("a moved file is gone from its old path", fails_or_says_gone(), _FS)),
    step("read_text_file", {"path": f"{FILES_ROOT}/archive/notes.md"},
         check("a moved file is at its new path", text_matches(r"Book town hall"), _FS)),
))

# -- Google Calendar (@cocal/google-calendar-mcp: JSON text, no outputSchema) ------------------
_GC_EVENT = "https://developers.google.com/calendar/api/v3/reference/events"
_GC_INSERT = "https://developers.google.com/calendar/api/v3/reference/events/insert"
_GC_LIST = "https://developers.google.com/calendar/api/v3/reference/events/list"
_GC_DELETE = "https://developers.google.com/calendar/api/v3/reference/events/delete"
_GC_MCP = "https://github.com/nspady/google-calendar-mcp#available-tools"
_EVENT = Ref("event", "id", "missing-event")
_DEC1 = {"timeMin": "2026-12-01T00:00:00", "timeMax": "2026-12-02T00:00:00"}

CALENDAR = Episode("calendar", (
    step("create-event", {"calendarId": "primary", "summary": "Launch review", "location": "Room 4",
                          "start": "2026-12-01T10:00:00", "end": "2026-12-01T11:00:00", "timeZone": "Europe/Warsaw"},
         check("the created event has an id", field_matches("id", r"\w+$"), _GC_INSERT),
         check("the created event has its summary", field_equals("summary", "Launch review"), _GC_EVENT),
         check("the event starts when asked", field_matches("dateTime", r"2026-12-01T10:00:00"), _GC_EVENT),
         check("a new event is confirmed", field_equals("status", "confirmed"), _GC_EVENT),
         check("an event links to the Calendar web UI",
               field_matches("htmlLink", r"https://www\.google\.com/calendar/event\?eid="), _GC_EVENT),
         save="event"),
    step("get-event", {"calendarId": "primary", "eventId": _EVENT},
         check("reading the event back gives its summary", field_equals("summary", "Launch review"), _GC_EVENT),
         check("reading the event back gives its location", field_equals("location", "Room 4"), _GC_EVENT)),
    step("update-event", {"calendarId": "primary", "eventId": _EVENT, "summary": "Launch review (moved)",
                          "start": "2026-12-01T14:00:00", "end": "2026-12-01T15:00:00", "timeZone": "Europe/Warsaw"},
         check("the update returns the new summary", field_equals("summary", "Launch review (moved)"), _GC_EVENT),
         check("the update moves the start too", field_matches("dateTime", r"2026-12-01T14:00:00"),
               _GC_EVENT)),
    step("list-events", {"calendarId": "primary", **_DEC1},
         check("the day's events include it", lists("id", _EVENT), _GC_LIST)),
    step("search-events", {"calendarId": "primary", "query": "Launch", **_DEC1},
         check("a free-text search finds it", lists("id", _EVENT), _GC_LIST)),
    step("list-events", {"calendarId": "primary", "timeMin": "2026-12-05T00:00:00",
                         "timeMax": "2026-12-06T00:00:00"},
         check("another day's events do not include it", omits("id", _EVENT), _GC_LIST)),
    step("delete-event", {"calendarId": "primary", "eventId": _EVENT},
         check("delete reports success", field_equals("success", True), _GC_MCP)),
    step("get-event", {"calendarId": "primary", "eventId": _EVENT},
         check("a deleted event is gone", fails_or_says_gone(), _GC_DELETE)),
))

# -- Redis (@modelcontextprotocol/server-redis: one key-value store behind set/get/delete/list) --
_RD = "https://github.com/modelcontextprotocol/servers-archived/tree/main/src/redis#tools"
_RD_GET = "https://redis.io/docs/latest/commands/get/"
_RD_SET = "https://redis.io/docs/latest/commands/set/"
_RD_KEYS = "https://redis.io/docs/latest/commands/keys/"

REDIS = Episode("redis", (
    step("set", {"key": "session:42", "value": "alice"},
         check("set answers", succeeds(), _RD_SET)),
    step("set", {"key": "session:43", "value": "bob"},
         check("set answers", succeeds(), _RD_SET)),
    step("get", {"key": "session:42"},
         check("get returns the value set under the key", mentions("alice"), _RD_GET),
         check("get returns only that key's value", lacks("bob"), _RD_GET)),
    step("set", {"key": "session:42", "value": "carol"},
         check("setting an existing key answers", succeeds(), _RD_SET)),
    step("get", {"key": "session:42"},
         check("set overwrites the value", mentions("carol"), _RD_SET),
         check("the old value is gone", lacks("alice"), _RD_SET)),
    step("list", {"pattern": "session:*"},
         check("list matches the pattern to both keys", text_matches(r"session:42[\s\S]*session:43|session:43[\s\S]*session:42"),
               _RD_KEYS)),
    step("delete", {"key": "session:42"},
         check("delete answers", succeeds(), _RD)),
    step("get", {"key": "session:42"},
         check("a deleted key is gone", fails_or_says_gone(), _RD_GET)),
    step("list", {"pattern": "session:*"},
         check("list no longer has the deleted key", lacks("session:42"), _RD_KEYS),
         check("list keeps the other key", mentions("session:43"), _RD_KEYS)),
))

EPISODES: dict[str, Episode] = {e.catalog: e for e in (
    STRIPE, GITHUB, GITHUB_OFFICIAL, SLACK, LINEAR, NOTION, TODOIST, JIRA, SQLITE, POSTGRES, TIME,
    TASKMANAGER, MEMORY, FILESYSTEM, CALENDAR, REDIS,
)}
