"""Rematch after a friend match (``games.rematch``): offer, cancel, decline, accept; exactly one new
match with the same settings and the first dealer alternated; refusals with the protocol's codes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from games import rematch, services
from games.models import Match, MatchStatus, RematchOffer
from games.services import GameError

pytestmark = pytest.mark.django_db


def finished_friend_match(host: Any, friend: Any, **options: Any) -> Match:
    """A friend table of ``host`` joined by ``friend``, which ``friend`` resigned (finished, host won)."""
    settings = {"rules_preset": "classic", "target": 100, "turn_timer": None, "rated": False, **options}
    table = services.table_create(user=host, **settings)
    match = services.table_join(user=friend, token=table.invite_token or "")
    services.match_resign(match_id=match.pk, user=friend)
    match.refresh_from_db()
    return match


def here(match: Match, *users: Any) -> None:
    """``users`` have the table of ``match`` open: a socket slot each, as a connected socket holds."""
    from games import ratelimit

    for user in users:
        assert ratelimit.socket_slot_acquire(match_id=match.pk, user_id=user.pk, owner=f"test-{user.pk}") == 0


def code(call: Any, **kwargs: Any) -> str:
    with pytest.raises(GameError) as info:
        call(**kwargs)
    return info.value.code


def test_an_accepted_offer_makes_one_match_with_the_same_settings_and_the_other_dealer(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    old = finished_friend_match(alice, bob, rules_preset="oklahoma", target=50, turn_timer=45, rated=True)
    here(old, alice, bob)
    assert old.status == MatchStatus.ABORTED and old.rated  # rated, resigned before a move: aborted
    offered = rematch.rematch_offer(match_id=old.pk, user=bob)
    assert offered.changed and offered.new_match_id is None
    assert rematch.rematch_payload(match=old, seat=0, opponent_present=True) == {
        "type": "rematch", "match_id": old.pk, "offer": {"by": 1, "status": "open"}, "can_offer": True,
        "offers_left": 3, "opponent_present": True, "first_dealer": 1 - (old.first_dealer or 0),
        "new_match": None,
    }
    accepted = rematch.rematch_accept(match_id=old.pk, user=alice)
    assert accepted.changed and accepted.new_match_id is not None
    new = Match.objects.get(pk=accepted.new_match_id)
    assert (new.player0_id, new.player1_id, new.rematch_of_id) == (alice.pk, bob.pk, old.pk)
    assert (new.preset, new.rules, new.turn_timer_seconds, new.rated) == ("oklahoma", old.rules, 45, True)
    assert new.rules["target"] == 50 and new.status == MatchStatus.ACTIVE
    assert new.first_dealer == 1 - (old.first_dealer or 0)  # the other player deals hand 1
    assert new.turn_deadline is not None and new.last_seq == 1  # dealt, the clock running
    # a second accept, the offerer's "offer" again, or a rematch of the match again: the same match
    assert rematch.rematch_accept(match_id=old.pk, user=alice).new_match_id == new.pk
    again = rematch.rematch_offer(match_id=old.pk, user=bob)
    assert (again.changed, again.new_match_id) == (False, new.pk)
    assert Match.objects.filter(rematch_of=old).count() == 1
    payload = rematch.rematch_payload(match=old, seat=1, opponent_present=False)
    assert payload is not None
    assert payload["offer"] == {"by": 1, "status": "accepted"} and not payload["can_offer"]
    assert payload["new_match"] == {"id": new.pk, "url": f"/match/{new.pk}/"}


def test_the_rematch_of_a_rematch_alternates_again(alice: Any, bob: Any) -> None:
    old = finished_friend_match(alice, bob)
    here(old, alice, bob)
    rematch.rematch_offer(match_id=old.pk, user=alice)
    second = Match.objects.get(pk=rematch.rematch_accept(match_id=old.pk, user=bob).new_match_id)
    here(second, alice, bob)
    services.match_resign(match_id=second.pk, user=alice)
    rematch.rematch_offer(match_id=second.pk, user=bob)
    third = Match.objects.get(pk=rematch.rematch_accept(match_id=second.pk, user=alice).new_match_id)
    assert [old.first_dealer, second.first_dealer, third.first_dealer] in ([0, 1, 0], [1, 0, 1])
    assert third.rematch_of_id == second.pk


def test_under_rules_that_cut_for_the_deal_the_rematch_cuts_again(alice: Any, bob: Any) -> None:
    from games.models import MatchEvent

    old = finished_friend_match(alice, bob, rules_preset="two_deck")
    here(old, alice, bob)
    assert rematch.next_first_dealer(old) is None
    rematch.rematch_offer(match_id=old.pk, user=alice)
    new = Match.objects.get(pk=rematch.rematch_accept(match_id=old.pk, user=bob).new_match_id)
    first = MatchEvent.objects.filter(match=new).order_by("seq").first()
    assert first is not None and first.type == "cut" and first.payload["dealer"] == new.first_dealer


def test_a_guest_opponent_gets_a_rematch_never_rated(alice: Any, guest: Any) -> None:
    old = finished_friend_match(alice, guest, rated=True)  # a guest joined: the table stopped being rated
    here(old, alice, guest)
    assert not old.rated
    rematch.rematch_offer(match_id=old.pk, user=guest)
    new = Match.objects.get(pk=rematch.rematch_accept(match_id=old.pk, user=alice).new_match_id)
    assert new.player1_id == guest.pk and not new.rated


def test_cancel_decline_and_the_limits(alice: Any, bob: Any) -> None:
    old = finished_friend_match(alice, bob)
    here(old, alice, bob)
    assert code(rematch.rematch_cancel, match_id=old.pk, user=alice) == "no_rematch_offer"
    assert code(rematch.rematch_accept, match_id=old.pk, user=alice) == "no_rematch_offer"
    rematch.rematch_offer(match_id=old.pk, user=alice)
    assert not rematch.rematch_offer(match_id=old.pk, user=alice).changed  # already open: a repeat
    assert code(rematch.rematch_accept, match_id=old.pk, user=alice) == "no_rematch_offer"  # your own
    assert code(rematch.rematch_decline, match_id=old.pk, user=alice) == "no_rematch_offer"
    assert code(rematch.rematch_cancel, match_id=old.pk, user=bob) == "no_rematch_offer"  # not bob's
    rematch.rematch_cancel(match_id=old.pk, user=alice)
    assert code(rematch.rematch_decline, match_id=old.pk, user=bob) == "no_rematch_offer"  # cancelled
    rematch.rematch_offer(match_id=old.pk, user=alice)
    rematch.rematch_cancel(match_id=old.pk, user=alice)
    rematch.rematch_offer(match_id=old.pk, user=alice)  # the 3rd offer
    payload = rematch.rematch_payload(match=old, seat=0, opponent_present=True)
    assert payload is not None and (payload["offers_left"], payload["can_offer"]) == (0, False)
    rematch.rematch_cancel(match_id=old.pk, user=alice)
    assert code(rematch.rematch_offer, match_id=old.pk, user=alice) == "rematch_limit"
    # bob may still offer; alice declines; bob may not offer again, alice may
    rematch.rematch_offer(match_id=old.pk, user=bob)
    rematch.rematch_decline(match_id=old.pk, user=alice)
    assert code(rematch.rematch_offer, match_id=old.pk, user=bob) == "rematch_declined"
    bobs = rematch.rematch_payload(match=old, seat=1, opponent_present=True)
    assert bobs is not None and bobs["offer"] == {"by": 1, "status": "declined"} and not bobs["can_offer"]
    assert list(RematchOffer.objects.filter(match=old).values_list("seat", "status")) == [
        (0, "cancelled"), (0, "cancelled"), (0, "cancelled"), (1, "declined"),
    ]
    assert not Match.objects.filter(rematch_of=old).exists()


def test_an_offer_cannot_be_accepted_while_the_offerer_is_away(alice: Any, bob: Any) -> None:
    """The new match deals at once (its timer would run for a player not there): accepting needs the
    offerer at the table; the offer stays open until they are back."""
    old = finished_friend_match(alice, bob, turn_timer=30)
    here(old, alice)  # alice at the table, bob not
    rematch.rematch_offer(match_id=old.pk, user=bob)
    assert code(rematch.rematch_accept, match_id=old.pk, user=alice) == "opponent_left"
    assert code(rematch.rematch_offer, match_id=old.pk, user=alice) == "opponent_left"  # offering back
    payload = rematch.rematch_payload(match=old, seat=0, opponent_present=False)
    assert payload is not None and payload["offer"] == {"by": 1, "status": "open"}
    assert not payload["can_offer"]
    assert not Match.objects.filter(rematch_of=old).exists()
    here(old, bob)  # bob opens his table again
    assert rematch.rematch_accept(match_id=old.pk, user=alice).new_match_id is not None


def test_offering_when_the_opponent_already_offered_accepts(alice: Any, bob: Any) -> None:
    old = finished_friend_match(alice, bob)
    here(old, alice, bob)
    rematch.rematch_offer(match_id=old.pk, user=alice)
    done = rematch.rematch_offer(match_id=old.pk, user=bob)
    assert done.changed and done.new_match_id == Match.objects.get(rematch_of=old).pk


def test_refusals(alice: Any, bob: Any, django_user_model: Any, house_bots: Any) -> None:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    # a table nobody joined
    assert code(rematch.rematch_offer, match_id=table.pk, user=alice) == "rematch_unavailable"
    active = services.table_join(user=bob, token=table.invite_token or "")
    assert code(rematch.rematch_offer, match_id=active.pk, user=alice) == "match_not_over"
    services.match_resign(match_id=active.pk, user=bob)  # rated, before any move: aborted, still a rematch
    assert Match.objects.get(pk=active.pk).status == MatchStatus.ABORTED
    carol = django_user_model.objects.create_user(username="carol")
    assert code(rematch.rematch_offer, match_id=active.pk, user=carol) == "not_seated"
    assert code(rematch.rematch_offer, match_id=999_999, user=alice) == "no_such_match"
    bot = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    services.match_resign(match_id=bot.pk, user=alice)
    assert code(rematch.rematch_offer, match_id=bot.pk, user=alice) == "rematch_unavailable"
    assert rematch.rematch_payload(match=Match.objects.get(pk=bot.pk), seat=0, opponent_present=None) is None
    # a tournament's pairing (two people seated by the server, no invitation): never a rematch
    paired = services.match_create_seated(player0=alice, player1=bob, turn_timer=60)
    services.match_resign(match_id=paired.pk, user=bob)
    assert code(rematch.rematch_offer, match_id=paired.pk, user=alice) == "rematch_unavailable"
    bob.is_active = False
    bob.save()
    assert code(rematch.rematch_offer, match_id=active.pk, user=alice) == "rematch_unavailable"
    assert not RematchOffer.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("row_lock", [True, False])
def test_racing_accepts_make_one_match(
    alice: Any, bob: Any, row_lock: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight accepts at once (a double click, two tabs, two servers): one new match, every accept gets
    it. PostgreSQL's row lock (CI) or SQLite's immediate transactions serialize them; without the row
    lock the one-to-one ``rematch_of`` alone still lets one insert through."""
    if not row_lock:
        monkeypatch.setattr(rematch, "locked_match", lambda match_id: Match.objects.select_related(
            "player0", "player1").get(pk=match_id))
    old = finished_friend_match(alice, bob)
    here(old, alice, bob)
    rematch.rematch_offer(match_id=old.pk, user=bob)
    barrier = threading.Barrier(8)
    results: list[int | str | None] = [None] * 8

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = rematch.rematch_accept(match_id=old.pk, user=alice).new_match_id
        except Exception as exc:  # reported through results
            results[i] = f"{type(exc).__name__}: {exc}"
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    new = Match.objects.get(rematch_of=old)
    assert results == [new.pk] * 8
    assert list(RematchOffer.objects.filter(match=old).values_list("status", flat=True)) == ["accepted"]


def test_the_admin_shows_a_matchs_offers_read_only(alice: Any, bob: Any, admin_client: Any) -> None:
    old = finished_friend_match(alice, bob)
    rematch.rematch_offer(match_id=old.pk, user=alice)
    page = admin_client.get(f"/admin/games/match/{old.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Rematch offer" in html and "open" in html
