"""The home page: entry points to the games app, the house bots, login state."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


def test_anonymous_home_offers_guest_play_and_lists_bots(client: Client) -> None:
    call_command("ensure_house_bots", verbosity=0, stdout=None)
    page = client.get(reverse("home:home")).content.decode()
    assert f'href="{reverse("games:new_bot_match")}"' in page
    assert f'href="{reverse("games:new_friend_table")}"' in page
    assert f'href="{reverse("games:my_matches")}"' not in page  # only for logged-in players
    assert 'data-testid="play-as-guest"' in page and f'action="{reverse("accounts:guest")}"' in page
    for name in ("Bot 1 · Beginner", "Bot 5 · Expert"):
        assert name in page


def test_member_home_shows_name_matches_link_and_logout(client: Client) -> None:
    client.force_login(User.objects.create_user("ana", password="x"))
    page = client.get(reverse("home:home")).content.decode()
    assert 'data-testid="who"><span class="player-name" title="ana">ana</span>' in page
    assert f'href="{reverse("games:my_matches")}"' in page
    assert f'action="{reverse("accounts:logout")}"' in page
    assert 'data-testid="play-as-guest"' not in page


def test_home_query_count_is_bounded(client: Client, django_assert_max_num_queries) -> None:
    client.force_login(User.objects.create_user("ana", password="x"))
    # session, user, bots; pools, matches in play, the live match, the next tournament; the top 10 (ids,
    # count, rows); the member's rating and last matches (home.numbers); the live public matches' count (the
    # "All live matches" link, replays.live_list)
    with django_assert_max_num_queries(13):
        assert client.get(reverse("home:home")).status_code == 200
