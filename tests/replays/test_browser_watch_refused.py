"""The watch page in chromium when the audience is full (issue 20, finding 2; docs/protocol.md
"Spectators"): the refusal is shown in the page's language, and the page connects by itself once a seat
is free."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games import services
from replays.models import ReplayAccess

pytestmark = pytest.mark.browser


def public_table(alice: Any, bob: Any) -> Any:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    services.table_join(user=bob, token=table.invite_token)
    ReplayAccess.objects.create(match=table, public=True)
    return table


def test_a_second_page_of_one_address_is_refused_then_connects_when_the_first_closes(
    daphne_server_factory: Any, browser: Any, page: Any, alice: Any, bob: Any, seeded_decks: Any
) -> None:
    # ``page`` (unused: its own context) lets this test's ORM calls run beside Playwright's event loop
    server = daphne_server_factory(SPECTATORS_PER_IP="1")
    table = public_table(alice, bob)
    url = f"{server.url}/watch/{table.pk}/"
    first_context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    second_context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    try:
        first = first_context.new_page()
        first.goto(url)
        expect(first.get_by_test_id("spectators")).to_have_text("1 watching")
        second = second_context.new_page()
        second.goto(url)
        refused = second.get_by_test_id("watch-refused")
        expect(refused).to_have_text("Too many pages from your address are watching matches (at most 1): "
                                     "close one and this page connects by itself.")
        # the message sits above the board, which keeps its place: the felt on the left, wider than the
        # side panel on its right (in a grid cell of its own the message pushed the felt into the side
        # column, clipped: the fresh-clone trial's screenshot)
        felt = second.locator("section.felt").bounding_box()
        side = second.locator("aside.side").bounding_box()
        message = refused.bounding_box()
        assert felt["x"] + felt["width"] <= side["x"] and felt["width"] > 2 * side["width"], (felt, side)
        assert message["y"] + message["height"] <= felt["y"], (message, felt)
        first.close()  # its seat is freed at once; the second page's next retry gets it (backoff <= 15 s)
        expect(refused).to_be_hidden()
        expect(second.get_by_test_id("spectators")).to_have_text("1 watching")
    finally:
        first_context.close()
        second_context.close()


def test_a_full_match_is_explained_in_portuguese(
    daphne_server_factory: Any, browser: Any, page: Any, alice: Any, bob: Any, seeded_decks: Any
) -> None:
    # ``page`` (unused: its own context) lets this test's ORM calls run beside Playwright's event loop
    server = daphne_server_factory(SPECTATORS_PER_MATCH="0")
    table = public_table(alice, bob)
    context = browser.new_context(locale="pt-BR")
    try:
        watching = context.new_page()
        watching.goto(f"{server.url}/watch/{table.pk}/")
        expect(watching.get_by_test_id("watch-refused")).to_have_text(
            "Esta partida já tem o máximo de espectadores (0): esta página continua tentando e se conecta "
            "assim que alguém sair.")
    finally:
        context.close()
