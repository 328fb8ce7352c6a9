"""``web.paging.page_of``: the one paginator of the rankings board and the API's lists; worked examples."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

from accounts.models import User
from web import paging
from web.errors import ApplicationError
from web.paging import NoSuchPage, page_of

LETTERS = list("abcdefg")


def test_pages_of_a_list() -> None:
    pages = [page_of(LETTERS, page=n, per_page=3) for n in (1, 2, 3)]
    assert [p.object_list for p in pages] == [["a", "b", "c"], ["d", "e", "f"], ["g"]]
    assert [(p.number, p.has_previous(), p.has_next()) for p in pages] == [
        (1, False, True), (2, True, True), (3, True, False)]
    assert {(p.paginator.count, p.paginator.num_pages) for p in pages} == {(7, 3)}
    assert [p.start_index() for p in pages] == [1, 4, 7]


def test_page_one_always_exists_and_a_page_past_the_last_is_refused() -> None:
    empty = page_of([], page=1, per_page=3)
    assert (empty.object_list, empty.paginator.count, empty.paginator.num_pages) == ([], 0, 1)
    with pytest.raises(NoSuchPage) as past:
        page_of(LETTERS, page=4, per_page=3)
    assert isinstance(past.value, ApplicationError)
    assert (past.value.code, past.value.message) == ("no_such_page", "page 4 is past the last page")
    assert (past.value.page, past.value.last_page) == (4, 3)
    with pytest.raises(NoSuchPage) as after_empty:
        page_of([], page=2, per_page=3)
    assert after_empty.value.last_page == 1


def test_a_lagging_count_never_hides_rows() -> None:
    """A count read a while ago (the 30-day board's cached count) is raised to the rows read: the page
    is full and says a next page exists."""
    first = page_of(LETTERS, page=1, per_page=3, count=2)
    assert first.object_list == ["a", "b", "c"] and first.has_next() and first.paginator.count == 4
    last = page_of(LETTERS, page=3, per_page=3, count=2)
    assert last.object_list == ["g"] and not last.has_next() and last.paginator.count == 7
    with pytest.raises(NoSuchPage) as past:
        page_of(LETTERS, page=9, per_page=3, count=2)
    assert past.value.last_page == 1  # as counted: that page may be past the end too


@pytest.mark.django_db
def test_a_queryset_is_counted_then_read_in_one_slice(django_assert_num_queries: Any) -> None:
    for name in ("p1", "p2", "p3"):
        User.objects.create(username=name)
    rows = User.objects.filter(username__startswith="p").order_by("username")
    with django_assert_num_queries(2):  # its count, its page (and one row past it)
        page = page_of(rows, page=2, per_page=2)
    assert [u.username for u in page.object_list] == ["p3"]
    assert (page.paginator.count, page.paginator.num_pages, page.has_next()) == (3, 2, False)


def test_the_docstring_examples() -> None:
    assert doctest.testmod(paging).failed == 0
