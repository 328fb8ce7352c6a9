"""One way to page a list, for the site's pages and the API (``ratings.selectors.board_page``,
``api.pagination.page_of``): numbered pages (from 1) of ``per_page`` rows, read by OFFSET.

:func:`page_of` reads one row past the page (whether a next page exists), so a ``count`` that may lag
behind the rows (a cached count) never hides rows that exist: the page's count is raised to what was
read. Page 1 always exists (maybe empty); a later page without a row is :class:`NoSuchPage`.

It gives a ``django.core.paginator.Page`` (``number``, ``object_list``, ``has_next``, ``start_index``,
``paginator.count``, ``paginator.num_pages``), which templates and the API's envelope read; Django's
``Paginator`` is used for that shape only (no query of its own).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from django.core.paginator import Page, Paginator

from web.errors import ApplicationError


class NoSuchPage(ApplicationError):
    """``no_such_page``: page ``page`` is past the last page; ``last_page`` is the last page as counted
    then (>= 1; with a count that lags, that page may be past the end too)."""

    def __init__(self, page: int, *, last_page: int) -> None:
        super().__init__("no_such_page", f"page {page} is past the last page")
        self.page = page
        self.last_page = last_page


def page_of(rows: Any, *, page: int, per_page: int, count: int | None = None) -> Page[Any]:
    """Page ``page`` (from 1) of ``rows`` (a list, or a queryset in its order), ``per_page`` rows each.

    ``count``: the number of rows if known (it may lag behind: it is raised to the rows read); else
    ``len(rows)`` for a sequence, ``rows.count()`` (one query) otherwise. The page's rows are one slice
    of ``rows`` (one query for a queryset) and its ``object_list`` is a list.

    >>> first = page_of(list("abcde"), page=1, per_page=2)
    >>> first.object_list, first.paginator.count, first.paginator.num_pages, first.has_next()
    (['a', 'b'], 5, 3, True)
    >>> page_of(list("abcde"), page=3, per_page=2).object_list
    ['e']
    >>> page_of(list("abcde"), page=2, per_page=2, count=0).paginator.count  # a lagging count is raised
    5
    >>> page_of([], page=1, per_page=2).paginator.num_pages  # page 1 always exists
    1

    :raises NoSuchPage: ``page`` > 1 has no row.
    """
    if count is None:
        count = len(rows) if isinstance(rows, Sequence) else int(rows.count())
    offset = (page - 1) * per_page
    read = list(rows[offset:offset + per_page + 1])  # one past the page: whether a next page exists
    if page > 1 and not read:
        raise NoSuchPage(page, last_page=max(1, math.ceil(count / per_page)))
    paginator = Paginator(range(max(count, offset + len(read))), per_page, allow_empty_first_page=True)
    return Page(read[:per_page], page, paginator)
