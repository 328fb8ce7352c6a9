"""Replays are rebuilt from the event log by the engine and verified against the stored results; a
tampered event (edited in the database behind the append-only guard) is caught by ``verify_replays``
and by the page, naming its seq; export -> import -> verify round-trips for every preset."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from engine.cards import card_name
from engine.replay_format import verify
from engine.rules import PRESETS
from games.live import rebuild
from games.models import Match, MatchEvent
from replays import selectors

pytestmark = pytest.mark.django_db


def edit_event(row: MatchEvent, payload: dict[str, Any]) -> None:
    """Overwrite a stored event's payload as an attacker with database access would (the model guard
    refuses; on PostgreSQL the append-only trigger is bypassed for this one statement, as a superuser
    restoring a dump would: ``session_replication_role = replica`` skips ordinary triggers)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
        sql = "UPDATE games_matchevent SET payload = %s WHERE id = %s"
        cursor.execute(sql, [json.dumps(payload), row.pk])
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = origin")


def stored_results(match: Match) -> list[dict[str, Any]]:
    ends = MatchEvent.objects.filter(match=match, type="hand_end").order_by("seq")
    return [r.payload["result"] for r in ends]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rebuilding_every_preset_reproduces_the_stored_results(finished_match: Any, preset: str) -> None:
    for level in (1, 3):
        match = finished_match(preset, level=level)
        data = selectors.replay_build(match=match, use_cache=False).data
        assert [h["result"] for h in data["hands"] if h["result"] is not None] == stored_results(match)
        assert data["match"]["scores"] == match.scores
        assert data["match"]["winner"] == match.winner
        actions = MatchEvent.objects.filter(match=match, type="action").count()
        assert sum(len(h["frames"]) - 1 for h in data["hands"]) == actions
        # the running totals after each hand are the stored ones
        ends = MatchEvent.objects.filter(match=match, type="hand_end").order_by("seq")
        totals = [h["scores_after"] for h in data["hands"] if h["result"]]
        assert totals == [r.payload["scores"] for r in ends]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_export_import_verify_round_trips(finished_match: Any, client: Any, alice: Any, preset: str) -> None:
    match = finished_match(preset)
    client.force_login(alice)
    exported = client.get(reverse("replays:replay_json", args=[match.pk]) + "?download=1")
    assert exported.status_code == 200
    assert exported["Content-Disposition"] == f'attachment; filename="gin-rummy-match-{match.pk}.json"'
    record = json.loads(exported.content)
    assert record["format"] == "gin-rummy-replay" and record["version"] == 1
    cut = MatchEvent.objects.filter(match=match, type="cut").first()
    if preset == "two_deck":  # its rules cut for the deal: the cut is stored first and exported
        assert cut is not None and cut.seq == 1
        assert record["cut"] == cut.payload["cuts"]
        assert record["first_dealer"] == cut.payload["dealer"] == match.first_dealer
    else:
        assert cut is None and "cut" not in record
    verified = verify(record)
    assert list(verified.state.final_scores or ()) == match.scores
    upload = io.BytesIO(exported.content)
    upload.name = "m.json"
    opened = client.post(reverse("replays:open"), {"file": upload})
    assert opened.status_code == 200
    shown = opened.context["replay"].data
    site = selectors.replay_build(match=match).data
    # the opened file's page: the same match, hand 1 whole, the others summed up (loaded on demand)
    assert shown["match"] == site["match"]
    assert shown["hands"][0] == site["hands"][0]
    summary = ("number", "dealer", "steps", "scores_before", "knock_limit", "multiplier", "scores_after")
    brief = ("kind", "knocker", "winner", "points")
    assert shown["hands"][1:] == [
        {**{k: h[k] for k in summary}, "result": h["result"] and {k: h["result"][k] for k in brief}}
        for h in site["hands"][1:]]
    assert all(len(h["frames"]) == h["steps"] + 1 for h in site["hands"])
    hands_url = opened.context["hands_url"]
    assert hands_url == f"/replay/open/{hashlib.sha256(exported.content).hexdigest()}/hands/"
    for hand in site["hands"]:  # each hand on demand: what the site's own replay shows of it
        answer = client.get(f"{hands_url}{hand['number']}.json")
        assert answer.status_code == 200 and answer.json() == hand


def test_a_tampered_action_is_caught_by_the_command_and_the_page(
    finished_match: Any, client: Any, alice: Any
) -> None:
    good = finished_match("classic")
    bad = finished_match("classic")
    discards = MatchEvent.objects.filter(match=bad, type="action", payload__action__startswith="discard")
    discard = discards.first()
    assert discard is not None
    # a discard turned into a big-gin knock: illegal (the hand is not all melded: the log went on)
    payload = {**discard.payload, "action": "knock"}
    edit_event(discard, payload)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_replays", stdout=out, stderr=err)
    assert exit_info.value.code == 1
    text = out.getvalue()
    assert f"match {bad.pk}: failed verification at event " in text
    assert f"match {good.pk}:" not in text
    assert "1 of 2 finished matches verified, 1 failed" in text
    failing = next(line for line in text.splitlines() if line.startswith(f"match {bad.pk}:"))
    event = int(failing.split("event ")[1].split(":")[0])
    assert event == discard.seq
    client.force_login(alice)
    page = client.get(reverse("replays:replay", args=[bad.pk]))
    assert page.status_code == 422
    assert f"failed verification at event {event}" in page.content.decode()
    assert "replay-data" not in page.content.decode()  # never rendered wrong
    assert client.get(reverse("replays:replay_json", args=[bad.pk])).status_code == 422
    assert client.get(reverse("replays:replay", args=[good.pk])).status_code == 200
    call_command("verify_replays", "--match", str(good.pk), stdout=io.StringIO(), stderr=io.StringIO())


def test_an_edited_deck_fails_its_commitment_at_the_deal(finished_match: Any) -> None:
    match = finished_match("classic")
    deal = MatchEvent.objects.filter(match=match, type="deal").order_by("seq")[1]
    deck = deal.payload["deck"]
    edit_event(deal, {**deal.payload, "deck": deck[1:2] + deck[:1] + deck[2:]})
    with pytest.raises(selectors.ReplayFailed) as info:
        selectors.replay_build(match=match)
    assert info.value.event == deal.seq
    assert "commitment" in info.value.reason


def test_an_edited_result_is_caught(finished_match: Any) -> None:
    match = finished_match("classic")
    end = MatchEvent.objects.filter(match=match, type="hand_end").order_by("seq").first()
    assert end is not None
    result = {**end.payload["result"], "points": end.payload["result"]["points"] + 5}
    edit_event(end, {**end.payload, "result": result})
    with pytest.raises(selectors.ReplayFailed) as info:
        selectors.replay_check(match=match)
    assert info.value.event == end.seq


def test_a_stored_score_that_disagrees_is_caught(finished_match: Any) -> None:
    match = finished_match("classic")
    Match.objects.filter(pk=match.pk).update(scores=[match.scores[0] + 1, match.scores[1]])
    match.refresh_from_db()
    with pytest.raises(selectors.ReplayFailed) as info:
        selectors.replay_check(match=match)
    assert "stored result" in info.value.reason


def test_verify_replays_filters_and_bad_arguments(finished_match: Any) -> None:
    match = finished_match("classic")
    out = io.StringIO()
    call_command("verify_replays", "--since", "2000-01-01", stdout=out, stderr=io.StringIO())
    assert "1 of 1 finished matches verified, 0 failed" in out.getvalue()
    out = io.StringIO()
    call_command("verify_replays", "--since", "2999-01-01", stdout=out, stderr=io.StringIO())
    assert "0 of 0" in out.getvalue()
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no finished match"):
        call_command("verify_replays", "--match", str(match.pk + 99), stdout=io.StringIO(),
                     stderr=io.StringIO())
    with pytest.raises(CommandError, match="--since"):
        call_command("verify_replays", "--since", "yesterday", stdout=io.StringIO(), stderr=io.StringIO())


def test_the_build_is_cached_after_the_first_time(
    finished_match: Any, django_assert_num_queries: Any
) -> None:
    match = finished_match("classic")
    first = selectors.replay_build(match=match)
    with django_assert_num_queries(1):  # the rows, for the digest the cache is keyed by
        again = selectors.replay_build(match=match)
    assert again == first


def test_an_event_edited_after_a_cached_build_is_never_served_from_the_cache(
    finished_match: Any, client: Any, alice: Any
) -> None:
    match = finished_match("classic")
    client.force_login(alice)
    url = reverse("replays:replay", args=[match.pk])
    assert client.get(url).status_code == 200  # built and cached
    rows = MatchEvent.objects.filter(match=match, type="action", payload__action__startswith="discard")
    discard = rows.order_by("seq")[2]
    held = discard.payload["action"].split()[1]
    # the discard turned into one of the opponent's cards (the mover cannot hold it): illegal there
    before = rebuild(match, MatchEvent.objects.filter(match=match, seq__lt=discard.seq).order_by("seq"))
    assert before.state.hand is not None
    other = card_name(before.state.hand.hands[1 - discard.payload["seat"]][0])
    edit_event(discard, {**discard.payload, "action": f"discard {other}"})
    page = client.get(url)
    assert page.status_code == 422
    text = page.content.decode()
    assert f"failed verification at event {discard.seq}." in text and "replay-data" not in text
    # the command agrees, and so does the export; repairing the row serves the replay again
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("verify_replays", "--match", str(match.pk), stdout=out, stderr=io.StringIO())
    assert f"match {match.pk}: failed verification at event " in out.getvalue()
    assert client.get(reverse("replays:replay_json", args=[match.pk])).status_code == 422
    edit_event(discard, {**discard.payload, "action": f"discard {held}"})
    assert client.get(url).status_code == 200
