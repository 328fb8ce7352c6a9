"""Page pagination of the API's lists: ``?page=`` (from 1) and ``?limit=`` (rows per page, 1..100).

Every list answers ``{"count", "page", "pages", "limit", "next", "previous", "results"}``; ``next`` and
``previous`` are absolute URLs (None at the ends) with the list's own parameters only. Page 1 always
exists (maybe empty); a page past the
last is a 404 ``no_such_page``.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page
from rest_framework import serializers
from rest_framework.request import Request

from api.errors import ApiError
from api.fields import QueryInteger
from web import paging

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_PAGE = 1_000_000


class PageQuery(serializers.Serializer[Any]):
    """The pagination parameters (other query serializers of lists extend this)."""

    page = QueryInteger(
        min_value=1, max_value=MAX_PAGE, default=1, help_text="Page number, from 1."
    )
    limit = QueryInteger(
        min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT, help_text=f"Rows per page, 1 to {MAX_LIMIT}."
    )


def no_such_page(page: int, pages: int | None = None) -> ApiError:
    """The 404 of a page past the last one."""
    last = f" (pages: {pages})" if pages is not None else ""
    return ApiError(404, "no_such_page", f"there is no page {page}{last}")


def page_of(items: Any, *, page: int, limit: int) -> Page[Any]:
    """Page ``page`` of ``items`` (a queryset or a list), ``limit`` rows each (``web.paging.page_of``):
    two queries for a queryset (its count, its rows).

    :raises ApiError: ``no_such_page`` (404) past the last page.
    """
    try:
        return paging.page_of(items, page=page, per_page=limit)
    except paging.NoSuchPage as past:
        raise no_such_page(page, past.last_page) from None


def envelope(
    request: Request,
    page: Page[Any],
    limit: int,
    results: Any,
    query: type[serializers.Serializer[Any]] = PageQuery,
) -> dict[str, Any]:
    """The list body for ``page`` (a Django ``Page``) with its serialized ``results`` (a list: the ``data``
    of a ``many=True`` serializer, which DRF's stubs type as a dict, hence ``Any``). ``next`` and
    ``previous`` keep only the parameters ``query`` (the list's query serializer) knows, sorted by name:
    an unknown parameter the list ignored is not copied into them."""
    known = set(query().fields) - {"page", "limit"}
    params = request.query_params
    kept = [(name, value) for name in sorted(known) if name in params for value in params.getlist(name)]
    base = request.build_absolute_uri(request.path)

    def link(number: int) -> str:
        pairs = [*kept, ("limit", str(limit))] + ([("page", str(number))] if number != 1 else [])
        return f"{base}?{urlencode(sorted(pairs))}"

    return {
        "count": page.paginator.count,
        "page": page.number,
        "pages": page.paginator.num_pages,
        "limit": limit,
        "next": link(page.next_page_number()) if page.has_next() else None,
        "previous": link(page.previous_page_number()) if page.has_previous() else None,
        "results": results,
    }


@functools.cache
def paged(item: type[serializers.Serializer[Any]]) -> type[serializers.Serializer[Any]]:
    """The serializer (for the schema) of a list of ``item`` rows in the envelope above."""
    name = item.__name__.removesuffix("Serializer") + "PageSerializer"
    fields = {
        "count": serializers.IntegerField(help_text="Rows in the whole list."),
        "page": serializers.IntegerField(),
        "pages": serializers.IntegerField(help_text="Number of pages (at least 1)."),
        "limit": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": item(many=True),
    }
    return type(name, (serializers.Serializer,), {**fields, "__module__": item.__module__})
