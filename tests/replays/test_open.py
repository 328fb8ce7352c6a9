"""``/replay/open/`` (replays.opened, issue 20): a file's strings must be text (the engine's verify
refuses what the command line refuses: 400, nothing held), the page carries one hand whole and the
others load on demand (``/replay/open/<sha256>/hands/<n>.json``), verification stops past its CPU
budget, and files opened (and hands served) are limited per IP and per account (429 + Retry-After)."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import random
from typing import Any

import pytest
from django.urls import reverse

from engine.actions import ActionKind
from engine.deck import deck_commitment, shuffled_deck
from engine.events import DealEvent
from engine.match import MatchState
from engine.replay_format import hand_frames, record_from_events, verify
from engine.rules import preset
from engine.tools.playout import random_playout
from replays import opened, selectors
from tests.engine.test_replay_format import _Ticks

pytestmark = pytest.mark.django_db

PLAYERS = [{"name": "alice", "bot_level": None}, {"name": "Bot 3", "bot_level": 3}]


def record_of(m: MatchState) -> dict[str, Any]:
    deals = [e for e in m.events if isinstance(e, DealEvent)]
    secrets = [(f"{i:032x}", deck_commitment(e.deck, f"{i:032x}")) for i, e in enumerate(deals)]
    return record_from_events(rules=m.rules, first_dealer=m.first_dealer, events=m.events, secrets=secrets,
                              players=PLAYERS, match={"id": 7, "preset": "classic"})


def dead_hands(hands: int) -> dict[str, Any]:
    """``hands`` dead hands (stock floor 20, nobody knocks), the last one resigned: the shape of the
    issue's 2,000-hand file (scripts/bench_replay_open.py), smaller."""
    rng = random.Random(3)
    m = MatchState(preset("classic").replace(stock_floor=20), 0)
    for _ in range(hands):
        m.deal(shuffled_deck(rng))
        hand = m.hand
        assert hand is not None
        while not hand.is_over:
            kinds = {a.kind: a for a in hand.legal_actions()}
            kind = next(k for k in (ActionKind.PASS, ActionKind.DRAW_STOCK, ActionKind.DISCARD) if k in kinds)
            m.apply(kinds[kind])
    m.resign(0)
    return record_of(m)


@pytest.fixture(scope="module")
def classic() -> dict[str, Any]:
    return record_of(random_playout(preset("classic"), 11))


def upload(content: bytes, name: str = "r.json") -> io.BytesIO:
    f = io.BytesIO(content)
    f.name = name
    return f


def post(client: Any, content: bytes, **extra: Any) -> Any:
    return client.post(reverse("replays:open"), {"file": upload(content)}, **extra)


def held(content: bytes) -> bool:
    try:
        opened.hand_get(hashlib.sha256(content).hexdigest(), 1)
    except opened.NotHeld:
        return False
    return True


@pytest.mark.parametrize("field", ["name", "preset"])
def test_a_lone_surrogate_is_refused_with_its_field_not_a_500(
    client: Any, classic: dict[str, Any], field: str
) -> None:
    """A "\\ud800" escape in ``players[].name`` or ``match.preset`` made the page fail with a 500
    (UnicodeEncodeError writing the page) although the engine called the file verified: now 400, the
    engine's own message, nothing held."""
    bad = copy.deepcopy(classic)
    if field == "name":
        bad["players"][1]["name"] = "Bot \ud800"
        where = "players[1].name"
    else:
        bad["match"]["preset"] = "\ud800"
        where = "match.preset"
    content = json.dumps(bad).encode()  # ASCII: the surrogate is written as the escape \ud800
    assert b"\\ud800" in content
    page = post(client, content)
    assert page.status_code == 400
    html = page.content.decode()
    assert page.context["error"] == (
        f"This replay file failed verification at event 0: {where} is not valid Unicode: "
        "a lone surrogate (U+D800)")
    assert 'data-testid="open-error"' in html and "replay-data" not in html
    assert not held(content)


def test_two_byte_order_marks_are_refused_on_the_page(client: Any, classic: dict[str, Any]) -> None:
    text = json.dumps(classic).encode()
    assert post(client, b"\xef\xbb\xbf" + text).status_code == 200
    page = post(client, b"\xef\xbb\xbf" * 2 + text)
    assert page.status_code == 400
    assert "more than one byte order mark (U+FEFF) at the start" in page.context["error"]


def test_the_page_carries_one_hand_and_serves_the_others_on_demand(client: Any) -> None:
    """120 dead hands: the page's data holds hand 1's frames only (the whole file's frames before), each
    other hand comes from its URL (held in chunks of 50: both sides of each chunk's edge), equal to the
    frames the whole verification builds; the page is a fraction of what it was."""
    record = dead_hands(120)
    content = json.dumps(record).encode()
    page = post(client, content)
    assert page.status_code == 200
    data = page.context["replay"].data
    whole = verify(record, frames=True)
    assert len(data["hands"]) == 120
    assert [("frames" in h) for h in data["hands"]] == [True] + [False] * 119
    assert data["hands"][0]["frames"] == whole.hands[0].frames
    assert [h["steps"] for h in data["hands"]] == [len(h.actions) for h in whole.hands]
    assert all(h["result"]["kind"] == "dead" for h in data["hands"])
    everything = selectors.built_of(selectors.viewer_data(whole)).json
    assert len(page.content) * 5 < len(everything.encode())  # 120 hands' frames were all in the page
    url = page.context["hands_url"]
    assert f'data-hands-url="{url}"' in page.content.decode()
    rules = whole.state.rules
    for n in (2, 50, 51, 100, 101, 120):
        hand = client.get(f"{url}{n}.json")
        assert hand.status_code == 200
        body = hand.json()
        frames, arrangements = hand_frames(rules, *(getattr(whole.hands[n - 1], k) for k in
                                                    ("dealer", "deck", "limit_card", "actions")))
        assert body["frames"] == frames == whole.hands[n - 1].frames
        assert body["arrangements"] == arrangements
        assert body["number"] == n and body["steps"] == len(frames) - 1
        assert body["scores_before"] == body["scores_after"] == [0, 0]
    none = client.get(f"{url}121.json")
    assert none.status_code == 404 and none.json()["error"] == "no_such_hand"
    gone = client.get(reverse("replays:open_hand", args=["0" * 64, 1]))
    assert gone.status_code == 404 and gone.json() == {
        "error": "not_held", "message": "This replay file is no longer held by the server: open it again."}


def test_verification_stops_past_its_cpu_budget(
    client: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``REPLAYS_OPEN_CPU_SECONDS`` of ``opened.CLOCK`` from before the parsing: reads 1 (start), then 2,
    3, 4 before hands 1, 2, 3; 4 > 1 + 2.5: hand 3 of 5 stops, 400 with the limit and how to check it
    offline, nothing held."""
    settings.REPLAYS_OPEN_CPU_SECONDS = 2.5
    monkeypatch.setattr(opened, "CLOCK", _Ticks())
    content = json.dumps(dead_hands(5)).encode()
    page = post(client, content)
    assert page.status_code == 400
    assert page.context["error"] == (
        "This replay file takes more than 2.5 s of the server's time to verify (stopped in hand 3 of 5): "
        "verify it on your computer with python -m engine replay verify FILE.")
    assert not held(content)
    monkeypatch.setattr(opened, "CLOCK", _Ticks())
    settings.REPLAYS_OPEN_CPU_SECONDS = 100.0
    assert post(client, content).status_code == 200 and held(content)


def test_opening_files_is_limited_per_ip_and_per_account(
    client: Any, settings: Any, classic: dict[str, Any], alice: Any
) -> None:
    """Per IP (``REPLAYS_OPEN_RATE``, anyone) and per account (``REPLAYS_OPEN_USER_RATE``): over either,
    the site's 429 page with Retry-After, before the file is read (a bad file counts too)."""
    settings.REPLAYS_OPEN_RATE = "3/h"
    settings.REPLAYS_OPEN_USER_RATE = "2/h"
    content = json.dumps(classic).encode()
    assert post(client, b"not json").status_code == 400
    assert post(client, content).status_code == 200
    assert post(client, content).status_code == 200
    over = post(client, content)
    assert over.status_code == 429
    assert 0 < int(over["Retry-After"]) <= 3600
    assert "Too many replay files were opened from your network or your account." in over.content.decode()
    assert post(client, content, REMOTE_ADDR="10.0.0.2").status_code == 200  # another network
    client.force_login(alice)
    assert post(client, content, REMOTE_ADDR="10.0.0.3").status_code == 200
    assert post(client, content, REMOTE_ADDR="10.0.0.4").status_code == 200
    account = post(client, content, REMOTE_ADDR="10.0.0.5")  # a fresh IP, but the account's third
    assert account.status_code == 429 and int(account["Retry-After"]) > 0
    assert client.get(reverse("replays:open")).status_code == 200  # the form is not counted


def test_hands_are_limited_per_ip(client: Any, settings: Any) -> None:
    settings.REPLAYS_OPEN_HAND_RATE = "2/h"
    content = json.dumps(dead_hands(4)).encode()
    url = post(client, content).context["hands_url"]
    assert client.get(f"{url}2.json").status_code == 200
    assert client.get(f"{url}3.json").status_code == 200
    over = client.get(f"{url}4.json")
    assert over.status_code == 429 and over.json()["error"] == "throttled" and int(over["Retry-After"]) > 0


def test_the_form_states_the_limits(client: Any) -> None:
    html = client.get(reverse("replays:open")).content.decode()
    assert ("Limits: at most 4 MB and 2000 hands per file, 5 s of the server's time to verify it; the "
            "viewer loads one hand at a time and the server keeps the verified hands for 60 minutes.") in html


def test_the_limits_and_refusals_speak_pt_br(client: Any, settings: Any, classic: dict[str, Any]) -> None:
    html = client.get(reverse("replays:open"), HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Limites: no máximo 4 MB e 2000 mãos por arquivo, 5 s do tempo do servidor" in html
    settings.REPLAYS_OPEN_RATE = "1/h"
    content = json.dumps(classic).encode()
    assert post(client, content, HTTP_ACCEPT_LANGUAGE="pt-br").status_code == 200
    over = post(client, content, HTTP_ACCEPT_LANGUAGE="pt-br")
    assert over.status_code == 429
    assert ("Arquivos de replay demais foram abertos a partir da sua rede ou da sua conta."
            in over.content.decode())


def test_every_hand_stays_held_in_the_embedded_profiles_cache(client: Any, settings: Any) -> None:
    """The embedded profile's local-memory cache keeps 300 entries in all (then culls a third): 400
    hands held one per entry lost some; held 50 a chunk, every one is served."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "test-open"}}
    url = post(client, json.dumps(dead_hands(400)).encode()).context["hands_url"]
    assert [client.get(f"{url}{n}.json").status_code for n in (2, 100, 250, 399, 400)] == [200] * 5
