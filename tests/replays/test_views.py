"""Who may open a replay, and every bad request gets a clear page (never a 500, never a wrong replay):
unknown ids, live matches, private replays without the token, out-of-range positions, bad files."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest
from django.urls import reverse

from games import services
from replays.models import ReplayAccess

pytestmark = pytest.mark.django_db


def upload(content: bytes, name: str = "r.json") -> io.BytesIO:
    f = io.BytesIO(content)
    f.name = name
    return f


def play_friend_match(alice: Any, bob: Any, *, rated: bool) -> Any:
    from tests.games.play import play_until

    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None, rated=rated)
    services.table_join(user=bob, token=table.invite_token)
    done = play_until(table.pk, {0: alice, 1: bob})
    assert done.status == "finished"
    return done


@pytest.fixture
def friend_match(alice: Any, bob: Any, seeded_decks: Any) -> Any:
    """A finished unrated friend match between alice (owner, seat 0) and bob."""
    return play_friend_match(alice, bob, rated=False)


def test_a_rated_friend_match_is_public_once_finished(
    alice: Any, bob: Any, seeded_decks: Any, client: Any
) -> None:
    match = play_friend_match(alice, bob, rated=True)
    assert match.rated
    assert client.get(reverse("replays:replay", args=[match.pk])).status_code == 200
    # its owner sees that it is public by rule: no toggle, no private link (it would be a lie)
    client.force_login(alice)
    page = client.get(reverse("replays:replay", args=[match.pk]))
    html = page.content.decode()
    assert page.context["public_by_rule"] and not page.context["is_owner"]
    assert page.context["share_url"] is None
    assert 'data-testid="toggle-public"' not in html and 'data-testid="share-url"' not in html
    assert "always public" in html and "This replay is public." not in html
    refused = client.post(reverse("replays:visibility", args=[match.pk]), {"public": "0"})
    assert refused.status_code == 409
    assert not ReplayAccess.objects.filter(match=match, public=True).exists()
    client.logout()
    assert client.get(reverse("replays:replay", args=[match.pk])).status_code == 200


def visibility_line(page: Any) -> tuple[str, str]:
    """The page's visibility sentence and its toggle button's label."""
    import re

    html = page.content.decode()
    line = re.search(r'data-testid="visibility">([^<]*)<', html)
    button = re.search(r'data-testid="toggle-public">([^<]*)<', html)
    assert line is not None and button is not None
    return line.group(1), button.group(1)


def test_the_owners_toggle_really_changes_who_may_watch(friend_match: Any, client: Any, alice: Any) -> None:
    url = reverse("replays:replay", args=[friend_match.pk])
    visibility = reverse("replays:visibility", args=[friend_match.pk])
    client.force_login(alice)
    page = client.get(url)
    assert not page.context["public_by_rule"]
    token = ReplayAccess.objects.get(match=friend_match).token
    assert visibility_line(page) == (
        "This replay is private: only its players and people with its link can watch it.", "Make it public")
    assert client.post(visibility, {"public": "1"}).status_code == 302
    assert visibility_line(client.get(url)) == ("This replay is public.", "Make it private")
    client.logout()
    assert client.get(url).status_code == 200
    client.force_login(alice)
    assert client.post(visibility, {"public": "0"}).status_code == 302
    assert visibility_line(client.get(url))[1] == "Make it public"
    assert visibility_line(client.get(url))[0].startswith("This replay is private")
    client.logout()
    assert client.get(url).status_code == 404  # private again: to a stranger, no such match
    assert client.get(url + f"?token={token}").status_code == 200


def test_a_members_bot_match_is_public_once_finished(finished_match: Any, client: Any) -> None:
    match = finished_match("classic")
    page = client.get(reverse("replays:replay", args=[match.pk]))
    assert page.status_code == 200
    assert page.context["replay"].data["match"]["id"] == match.pk
    assert page.context["share_url"] is None  # not a player: no private link shown
    assert client.get(reverse("replays:replay_json", args=[match.pk])).status_code == 200


def test_a_guests_bot_match_is_private(finished_match: Any, guest: Any, client: Any, bob: Any) -> None:
    match = finished_match("classic", user=guest)
    client.force_login(bob)
    refused = client.get(reverse("replays:replay", args=[match.pk]))
    assert refused.status_code == 404  # answered as a match that does not exist (issue 20, finding 7)
    assert "There is no finished match with this number." in refused.content.decode()


def test_a_friend_replay_is_for_its_players_and_the_token(
    friend_match: Any, client: Any, alice: Any, bob: Any, django_user_model: Any
) -> None:
    url = reverse("replays:replay", args=[friend_match.pk])
    assert client.get(url).status_code == 404  # anonymous: as if there were no such match
    carol = django_user_model.objects.create_user(username="carol")
    client.force_login(carol)
    assert client.get(url).status_code == 404
    assert client.get(reverse("replays:replay_json", args=[friend_match.pk])).status_code == 404
    assert client.get(url + "?token=wrong").status_code == 404
    client.force_login(bob)
    page = client.get(url)
    assert page.status_code == 200
    token = ReplayAccess.objects.get(match=friend_match).token
    assert page.context["share_url"].endswith(f"/replay/{friend_match.pk}/?token={token}")
    assert not page.context["is_owner"]
    client.logout()
    shared = client.get(url + f"?token={token}")
    assert shared.status_code == 200
    json_url = reverse("replays:replay_json", args=[friend_match.pk])
    assert client.get(json_url + f"?token={token}").status_code == 200
    visibility = reverse("replays:visibility", args=[friend_match.pk])
    # only the owner may make it public; then anyone may watch
    client.force_login(bob)
    assert client.post(visibility, {"public": "1"}).status_code == 403
    client.force_login(alice)
    assert client.post(visibility, {"public": "x"}).status_code == 400
    made = client.post(reverse("replays:visibility", args=[friend_match.pk]), {"public": "1"})
    assert made.status_code == 302
    client.force_login(carol)
    assert client.get(url).status_code == 200
    client.force_login(alice)
    client.post(reverse("replays:visibility", args=[friend_match.pk]), {"public": "0"})
    client.force_login(carol)
    assert client.get(url).status_code == 404


def test_a_live_match_is_refused_until_it_ends(house_bots: Any, alice: Any, client: Any) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=50)
    client.force_login(alice)
    page = client.get(reverse("replays:replay", args=[match.pk]))
    assert page.status_code == 409
    assert "still being played" in page.content.decode()
    assert client.get(reverse("replays:replay_json", args=[match.pk])).json()["error"] == "not_finished"


@pytest.mark.parametrize("path", ["/replay/999999/", "/replay/999999.json", "/replay/0/", "/replay/abc/",
                                  "/replay/-1/", "/replay/99999999999999999999/"])
def test_unknown_matches_are_404(client: Any, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    "query, hand, step, notice",
    [
        ("?hand=2&step=3", 2, 3, False),
        ("?hand=99&step=0", 1, 0, True),
        ("?hand=1&step=9999", 1, 0, True),
        ("?hand=x", 1, 0, True),
        ("?hand=1&step=-1", 1, 0, True),
        ("?hand=" + "9" * 5000, 1, 0, True),
    ],
)
def test_positions_out_of_range_say_so_and_start_at_the_deal(
    finished_match: Any, client: Any, query: str, hand: int, step: int, notice: bool
) -> None:
    match = finished_match("classic")
    page = client.get(reverse("replays:replay", args=[match.pk]) + query)
    assert page.status_code == 200
    if len(page.context["replay"].steps) < 2 and hand == 2:
        pytest.skip("a one-hand match")
    assert page.context["start"] == {"hand": hand, "step": step}
    assert (page.context["notice"] is not None) is notice


def test_a_nul_in_the_position_is_a_bad_request(finished_match: Any, client: Any) -> None:
    match = finished_match("classic")
    assert client.get(reverse("replays:replay", args=[match.pk]) + "?hand=%00").status_code == 400


@pytest.fixture
def record(finished_match: Any, client: Any) -> dict[str, Any]:
    match = finished_match("classic")
    return json.loads(client.get(reverse("replays:replay_json", args=[match.pk])).content)


def _tamper_action(r: dict[str, Any]) -> None:
    r["hands"][0]["actions"][0]["action"] = "knock"


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"not json", "at event 0"),
        (b"", "at event 0"),
        (b"[1, 2]", "at event 0"),
        (b"\xff\xfe\x00garbage", "at event 0"),
        ("version", "unsupported version"),
        ("action", "at event 2"),
        ("deck", "commitment"),
    ],
)
def test_bad_files_are_refused_with_the_reason(
    client: Any, record: dict[str, Any], content: Any, expected: str
) -> None:
    if isinstance(content, str):
        bad = copy.deepcopy(record)
        if content == "version":
            bad["version"] = 99
        elif content == "action":
            _tamper_action(bad)
        else:
            deck = bad["hands"][0]["deck"]
            deck[0], deck[1] = deck[1], deck[0]
        content = json.dumps(bad).encode()
    page = client.post(reverse("replays:open"), {"file": upload(content)})
    assert page.status_code == 400
    text = page.content.decode()
    assert "failed verification" in text and expected in text
    assert "replay-data" not in text


def test_open_page_without_a_file_or_with_a_huge_one(client: Any) -> None:
    assert client.get(reverse("replays:open")).status_code == 200
    assert client.post(reverse("replays:open"), {}).status_code == 400
    huge = client.post(reverse("replays:open"), {"file": upload(b" " * (4 * 1024 * 1024 + 1))})
    assert huge.status_code == 400 and "too large" in huge.content.decode()


def test_the_replay_page_speaks_pt_br(finished_match: Any, client: Any) -> None:
    match = finished_match("classic")
    page = client.get(reverse("replays:replay", args=[match.pk]) + "?hand=99", HTTP_ACCEPT_LANGUAGE="pt-br")
    html = page.content.decode()
    assert f"Replay da partida {match.pk}" in html and "Baixar o arquivo de replay" in html
    assert "Esta partida não tem a mão 99" in html
    english = client.get(reverse("replays:replay", args=[match.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert f"Replay of match {match.pk}" in english.content.decode()


def test_the_share_token_is_compared_in_constant_time(
    friend_match: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token check goes through ``hmac.compare_digest`` (a ``==`` stops at the first wrong character:
    its time tells a guesser how much was right); a wrong, empty, None, non-string or too long token is
    refused as a match that does not exist, the right one opens the replay."""
    from django.contrib.auth.models import AnonymousUser

    from replays import selectors
    from replays.selectors import ReplayRefused
    from replays.services import replay_access_ensure

    token = replay_access_ensure(match=friend_match).token
    compared: list[tuple[bytes, bytes]] = []

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return a == b

    monkeypatch.setattr(selectors.hmac, "compare_digest", spy)
    anonymous = AnonymousUser()
    selectors.check_can_watch(match=friend_match, user=anonymous, token=token)
    assert compared == [(token.encode(), token.encode())]
    for bad in ("wrong", "", None, ["x"], token + "x" * 64, "é" * 8):
        with pytest.raises(ReplayRefused) as refused:
            selectors.check_can_watch(match=friend_match, user=anonymous, token=bad)  # type: ignore[arg-type]
        assert refused.value.code == "no_such_match"
    assert compared[1:] == [(b"wrong", token.encode())]  # only the well-formed guess reached the comparison
