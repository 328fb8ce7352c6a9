"""A BOT account plays only through the bot API (docs/bot-api.md): the site's pages refuse to start or
join a match for it (a house bot at ``/play/bot/``, a friend table, a rematch: ``bot_api_only``, in both
languages) and hide their "Play" buttons; the API's ``match/house/`` still works."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import rematch, services
from games.models import Match, MatchStatus

pytestmark = pytest.mark.django_db

EN = "A BOT account plays only through the bot API (/api/v1/bot/), not from the site&#x27;s pages."
PT = "Uma conta de robô joga apenas pela API de robôs (/api/v1/bot/), não pelas páginas do site."


def _code(call: Any) -> str:
    with pytest.raises(services.GameError) as refused:
        call()
    return refused.value.code


def test_the_services_refuse_a_bot_account_and_change_nothing(
    make_bot: Any, alice: Any, house_bots: Any
) -> None:
    bot = make_bot("refused").user
    assert _code(lambda: services.match_create_vs_bot(user=bot, level=2, rules_preset="classic", target=100,
                                                      rated=False)) == "bot_api_only"
    assert _code(lambda: services.table_create(user=bot, rules_preset="classic", target=100,
                                               turn_timer=None, rated=False)) == "bot_api_only"
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    assert _code(lambda: services.table_join(user=bot, token=table.invite_token or "")) == "bot_api_only"
    table.refresh_from_db()
    assert (table.status, table.player1_id) == (MatchStatus.WAITING, None)
    assert list(Match.objects.values_list("pk", flat=True)) == [table.pk]
    # the bot API's path (HouseView) says so, and keeps working
    made = services.match_create_vs_bot(user=bot, level=2, rules_preset="classic", target=100, rated=False,
                                        turn_timer=30, via_api=True)
    assert (made.player0_id, made.bot_level, made.turn_timer_seconds) == (bot.pk, 2, 30)


@pytest.mark.parametrize(("language", "text"), [("en", EN), ("pt-br", PT)])
def test_the_pages_refuse_a_bot_account_in_its_language(make_bot: Any, alice: Any, house_bots: Any,
                                                        language: str, text: str) -> None:
    bot = make_bot("refused").user
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    client = Client(headers={"Accept-Language": language})
    client.force_login(bot)
    made = client.post("/play/bot/", {"level": 2, "preset": "classic", "target": 100})
    assert made.status_code == 400 and text in made.content.decode()
    friend = client.post("/play/friend/", {"preset": "classic", "target": 100})
    assert friend.status_code == 400 and text in friend.content.decode()
    joined = client.post(f"/t/{table.invite_token}/", follow=True)
    assert text in joined.content.decode()
    assert list(Match.objects.values_list("pk", "status")) == [(table.pk, MatchStatus.WAITING)]
    # the "Play a bot" / "Play a friend" buttons are gone for it, not for a person
    page = client.get("/matches/").content.decode()
    assert "/play/bot/" not in page and "/play/friend/" not in page
    person = Client()
    person.force_login(alice)
    page = person.get("/matches/").content.decode()
    assert "/play/bot/" in page and "/play/friend/" in page


def test_no_rematch_with_a_bot_account(make_bot: Any, alice: Any) -> None:
    """A friend match one of whose players is (now) a BOT account has no rematch, for either seat."""
    bot = make_bot("rematcher", bot=False).user
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    services.table_join(user=bot, token=table.invite_token or "")
    services.match_resign(match_id=table.pk, user=alice)
    type(bot).objects.filter(pk=bot.pk).update(bot_account=True)
    bot.refresh_from_db()
    match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
    assert match.status == MatchStatus.FINISHED and rematch.is_friend_match(match)
    assert _code(lambda: rematch.rematch_offer(match_id=match.pk, user=bot)) == "bot_api_only"
    assert _code(lambda: rematch.rematch_offer(match_id=match.pk, user=alice)) == "rematch_unavailable"
    assert rematch.rematch_payload(match=match, seat=0, opponent_present=True) is None
    assert rematch.rematch_payload(match=match, seat=1, opponent_present=True) is None
    assert not Match.objects.filter(rematch_of=match).exists()
