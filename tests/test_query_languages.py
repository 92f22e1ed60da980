"""Query and filter languages evaluated over the episode's records, through a real MCP client over stdio.

Each catalog here is invented (tool names, wording, records): the language is recognised from
the argument's name and description alone ("Run a SOQL query", "OData $filter expression",
"SQL WHERE clause", "filter formula", "WIQL"), the world's ``seed:`` holds the records, and
every answer is checked against what the language's documentation says the query selects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import stdio_session

S = {"type": "string"}
ACCOUNTS = [
    {"id": "001A", "Name": "Acme Rockets", "Industry": "Aerospace", "AnnualRevenue": 5_000_000, "IsActive": True,
     "CreatedDate": "2026-03-01T10:00:00Z", "Owner": {"Name": "Ada"}},
    {"id": "001B", "Name": "acme Bakery", "Industry": "Food", "AnnualRevenue": 90_000, "IsActive": False,
     "CreatedDate": "2025-06-15T08:30:00Z", "Owner": {"Name": "Bo"}},
    {"id": "001C", "Name": "Zephyr Wind", "Industry": None, "AnnualRevenue": 750_000, "IsActive": True,
     "CreatedDate": "2026-02-20T12:00:00Z", "Owner": {"Name": "Ada"}},
]


def _tool(name: str, properties: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": properties}}


def _world(tmp_path: Path, name: str, tools: list[dict[str, Any]], seed: dict[str, Any]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "tools": tools, "seed": seed}))
    return str(path)


def _answer(result: Any) -> Any:
    assert not result.isError, result.content[0].text
    return json.loads(result.content[0].text)


CRM = [
    _tool("run_object_query", {"query": {"type": "string", "description": "The SOQL query to run."}},
          "Run a SOQL query against the organisation's records, e.g. SELECT Id, Name FROM Account."),
    _tool("find_accounts", {"whereClause": {"type": "string", "description": "SQL WHERE clause to filter by"}},
          "Find accounts."),
]


async def test_an_object_query_selects_filters_orders_and_limits_the_seeded_records(tmp_path: Path) -> None:
    world = _world(tmp_path, "crm", CRM, {"accounts": ACCOUNTS})
    async with stdio_session(world) as session:
        call = session.call_tool
        found = _answer(await call("run_object_query", {
            "query": "SELECT Id, Name FROM Account WHERE Name LIKE 'acme%' ORDER BY Name ASC LIMIT 5"}))
        # LIKE and ORDER BY ignore case in this language: "acme Bakery" sorts before "Acme Rockets"
        assert found["totalSize"] == 2 and found["done"] is True
        assert [r["Name"] for r in found["records"]] == ["acme Bakery", "Acme Rockets"]
        assert found["records"][0] == {"attributes": {"type": "Account"}, "id": "001B", "Name": "acme Bakery"}
        rich = _answer(await call("run_object_query", {
            "query": "SELECT Name FROM Account WHERE AnnualRevenue > 500000 AND IsActive = true "
                     "AND CreatedDate >= 2026-01-01 ORDER BY AnnualRevenue LIMIT 1"}))
        assert [r["Name"] for r in rich["records"]] == ["Zephyr Wind"]
        unset = _answer(await call("run_object_query", {
            "query": "SELECT Name FROM Account WHERE Industry = null OR (Owner.Name = 'bo' AND NOT IsActive = true)"}))
        assert sorted(r["Name"] for r in unset["records"]) == ["Zephyr Wind", "acme Bakery"]
        listed = _answer(await call("run_object_query", {
            "query": "SELECT Name FROM Account WHERE Industry IN ('aerospace', 'food') ORDER BY Name"}))
        assert [r["Name"] for r in listed["records"]] == ["acme Bakery", "Acme Rockets"]
        counted = _answer(await call("run_object_query", {"query": "SELECT COUNT() FROM Account WHERE IsActive = true"}))
        assert counted == {"totalSize": 2, "done": True, "records": []}


async def test_an_unreadable_object_query_or_an_unknown_field_is_the_languages_error(tmp_path: Path) -> None:
    world = _world(tmp_path, "crm", CRM, {"accounts": ACCOUNTS})
    async with stdio_session(world) as session:
        call = session.call_tool
        broken = await call("run_object_query", {"query": "SELECT Id, Name FROM Account WHERE"})
        assert broken.isError and "MALFORMED_QUERY: unexpected token: 'WHERE'" in broken.content[0].text
        two = await call("run_object_query", {"query": "SELECT Id FROM Account; DELETE FROM Account"})
        assert two.isError and "unexpected token: ';'" in two.content[0].text
        unknown = await call("run_object_query", {"query": "SELECT Id, Revenue__x FROM Account"})
        assert unknown.isError and "No such column 'Revenue__x' on entity 'Account'" in unknown.content[0].text
        nowhere = await call("run_object_query", {"query": "SELECT Id FROM Spaceship"})
        assert nowhere.isError and "sObject type 'Spaceship' is not supported" in nowhere.content[0].text
        grouped = await call("run_object_query", {"query": "SELECT Industry FROM Account GROUP BY Industry"})
        assert grouped.isError and "GROUP BY" in grouped.content[0].text
        # the records are all still there: nothing above changed the world
        assert _answer(await call("run_object_query", {"query": "SELECT Id FROM Account"}))["totalSize"] == 3


async def test_a_sql_where_clause_filters_a_listing_with_real_comparisons(tmp_path: Path) -> None:
    world = _world(tmp_path, "crm", CRM, {"accounts": ACCOUNTS})
    async with stdio_session(world) as session:
        call = session.call_tool
        found = _answer(await call("find_accounts", {
            "whereClause": "AnnualRevenue BETWEEN 100000 AND 1000000 OR Name = 'acme Bakery' ORDER BY Name"}))
        assert [a["Name"] for a in found] == ["Zephyr Wind", "acme Bakery"]
        exact = _answer(await call("find_accounts", {"whereClause": "Name = 'ACME ROCKETS'"}))
        assert exact == []  # plain SQL compares text exactly
        empty = _answer(await call("find_accounts", {"whereClause": "Industry IS NULL"}))
        assert [a["id"] for a in empty] == ["001C"]
        bare = await call("find_accounts", {"whereClause": "Industry = Food"})  # an unquoted word is a column
        assert bare.isError and bare.content[0].text == "no such column: Food"
        broken = await call("find_accounts", {"whereClause": "Name = 'Acme"})
        assert broken.isError and "syntax error" in broken.content[0].text


SHOP = [
    _tool("list_products", {"$filter": {"type": "string", "description": "OData $filter expression"},
                            "$orderby": S, "$top": {"type": "integer"}}, "List the products in the catalog."),
]
PRODUCTS = [
    {"id": 1, "name": "Red Kettle", "price": 35.5, "stock": 0, "category": {"name": "Kitchen"},
     "released": "2025-11-02"},
    {"id": 2, "name": "Blue Kettle", "price": 42, "stock": 12, "category": {"name": "Kitchen"},
     "released": "2026-01-10"},
    {"id": 3, "name": "Desk Lamp", "price": 19.99, "stock": 4, "category": {"name": "Office"},
     "released": "2026-02-01"},
]


async def test_an_odata_filter_is_evaluated_with_its_operators_functions_and_query_options(tmp_path: Path) -> None:
    world = _world(tmp_path, "shop", SHOP, {"products": PRODUCTS})
    async with stdio_session(world) as session:
        call = session.call_tool

        async def names(**arguments: Any) -> list[str]:
            return [p["name"] for p in _answer(await call("list_products", arguments))]

        assert await names(**{"$filter": "contains(name,'Kettle') and price gt 40"}) == ["Blue Kettle"]
        assert await names(**{"$filter": "stock eq 0 or category/name eq 'Office'"}) == ["Red Kettle", "Desk Lamp"]
        assert await names(**{"$filter": "startswith(name,'red')"}) == []  # OData compares case exactly
        assert await names(**{"$filter": "startswith(tolower(name),'red')"}) == ["Red Kettle"]
        assert await names(**{"$filter": "not (price lt 20) and released ge 2026-01-01"}) == ["Blue Kettle"]
        assert await names(**{"$filter": "category/name eq 'Kitchen'", "$orderby": "price desc", "$top": 1}) == [
            "Blue Kettle"]
        broken = await call("list_products", {"$filter": "price gt"})
        assert broken.isError and broken.content[0].text == "Syntax error at position 8 in 'price gt'."
        unknown = await call("list_products", {"$filter": "colour eq 'red'"})
        assert unknown.isError and "Could not find a property named 'colour'" in unknown.content[0].text


BASE = [
    _tool("list_rows", {"table": S, "filterByFormula": {
        "type": "string", "description": "A formula used to filter records; rows where it is truthy are kept."}},
          "List rows of a table."),
]
ROWS = [
    {"id": "rec1", "fields": {"Task": "Paint fence", "Status": "Open", "Priority": 3, "Notes": "blue paint"}},
    {"id": "rec2", "fields": {"Task": "Fix gate", "Status": "Done", "Priority": 5}},
    {"id": "rec3", "fields": {"Task": "Mow lawn", "Status": "Open", "Priority": 1, "Notes": ""}},
]


async def test_a_formula_filter_keeps_the_rows_where_it_is_truthy(tmp_path: Path) -> None:
    world = _world(tmp_path, "base", BASE, {"rows": ROWS})
    async with stdio_session(world) as session:
        call = session.call_tool

        async def ids(formula: str) -> list[str]:
            return [r["id"] for r in _answer(await call("list_rows", {"filterByFormula": formula}))]

        assert await ids("AND({Status}='Open', {Priority}>2)") == ["rec1"]
        assert await ids("OR({Priority} >= 5, FIND('lawn', {Task}))") == ["rec2", "rec3"]
        assert await ids("{Notes} = BLANK()") == ["rec2", "rec3"]
        assert await ids("NOT({Status} = 'Done')") == ["rec1", "rec3"]
        assert await ids("{Status}='open'") == []  # text compares exactly
        broken = await call("list_rows", {"filterByFormula": "AND({Status}='Open',"})
        assert broken.isError and "INVALID_FILTER_BY_FORMULA" in broken.content[0].text
        unknown = await call("list_rows", {"filterByFormula": "{Colour}='red'"})
        assert unknown.isError and "Unknown field names: Colour" in unknown.content[0].text


BOARD = [
    _tool("query_work_items", {"wiql": {"type": "string", "description": "A WIQL query"}, "project": S},
          "Query work items."),
]
WORK_ITEMS = [
    {"id": 101, "fields": {"System.Title": "Login page crashes", "System.State": "Active",
                           "System.CreatedDate": "2026-03-05T09:00:00Z", "System.TeamProject": "Apollo"}},
    {"id": 102, "fields": {"System.Title": "Update docs", "System.State": "Closed",
                           "System.CreatedDate": "2026-03-06T09:00:00Z", "System.TeamProject": "Apollo"}},
    {"id": 103, "fields": {"System.Title": "Crash on logout", "System.State": "New",
                           "System.CreatedDate": "2025-12-01T09:00:00Z", "System.TeamProject": "Gemini"}},
]


async def test_a_work_item_query_answers_the_matching_ids_in_its_order(tmp_path: Path) -> None:
    world = _world(tmp_path, "board", BOARD, {"work_items": WORK_ITEMS})
    async with stdio_session(world) as session:
        call = session.call_tool
        found = _answer(await call("query_work_items", {
            "wiql": "SELECT [System.Id], [System.Title] FROM WorkItems WHERE [System.Title] CONTAINS 'crash' "
                    "AND [System.State] <> 'closed' ORDER BY [System.CreatedDate] DESC"}))
        assert [w["id"] for w in found["workItems"]] == [101, 103]
        assert [c["referenceName"] for c in found["columns"]] == ["System.Id", "System.Title"]
        scoped = _answer(await call("query_work_items", {
            "project": "Apollo",
            "wiql": "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project ORDER BY [System.Id]"}))
        assert [w["id"] for w in scoped["workItems"]] == [101, 102]
        unknown = await call("query_work_items", {"wiql": "SELECT [System.Id] FROM WorkItems WHERE [Custom.Risk] = 1"})
        assert unknown.isError and "«Custom.Risk»" in unknown.content[0].text


async def test_an_undeclared_filter_written_in_odata_is_read_as_odata(tmp_path: Path) -> None:
    tools = [_tool("list_products", {"filter": S}, "List products.")]
    world = _world(tmp_path, "shop", tools, {"products": PRODUCTS})
    async with stdio_session(world) as session:
        found = _answer(await session.call_tool("list_products", {"filter": "price le 20 or stock gt 10"}))
        assert [p["name"] for p in found] == ["Blue Kettle", "Desk Lamp"]
        long = await session.call_tool("list_products", {"filter": "price le 20" + " or stock gt 10" * 400})
        assert long.isError and "too large (6011 characters, at most 4000)" in long.content[0].text
