"""The names real tools give to paging arguments and to the fields that say where a listing goes on.

Plain data shared by the world models (which answer the page a call asks for) and the
pagination perturbation (which cuts a whole listing into pages): neither may import the other.
"""

from __future__ import annotations

CURSOR_ARGS = ("cursor", "page_token", "pageToken", "next_token", "nextToken", "continuation_token",
               "continuationToken", "starting_after", "after", "next_cursor", "nextCursor")
PAGE_ARGS = ("page", "page_number", "pageNumber")
OFFSET_ARGS = ("offset", "skip", "start")
SIZE_ARGS = ("per_page", "page_size", "pageSize", "perPage", "limit", "max_results", "maxResults", "size",
             "count", "first", "top")
NEXT_FIELDS = ("next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next_token", "nextToken",
               "cursor", "next")
MORE_FIELDS = ("has_more", "hasMore", "has_next_page", "hasNextPage", "more")
TOTAL_FIELDS = ("total", "total_count", "totalCount", "total_results", "num_results")
PAGE_FIELDS = ("page", "page_number")
SIZE_FIELDS = ("per_page", "page_size", "pageSize", "limit")
