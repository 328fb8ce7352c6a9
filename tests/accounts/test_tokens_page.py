"""API tokens (``/accounts/tokens/``, from one's own profile; docs/bot-api.md "Tokens"): a new token's text
is shown once (the answer to the POST) and never again; revoking; each bad input refused with the form's
error, 400, nothing made; the per-account creation rate; guests and anonymous visitors refused; the upgrade
to a BOT account (``/accounts/bot/upgrade/``, ``botapi.upgrade.bot_upgrade``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiToken, User
from accounts.tokens import hash_token, token_user
from tests.factories import FriendMatchFactory, GuestFactory, UserFactory

pytestmark = pytest.mark.django_db

TOKEN_TEXT = re.compile(r'id="new-token-text" value="(gin_[A-Za-z0-9_-]{40})"')


def _client(user: Any, language: str | None = None) -> Client:
    client = Client(headers={"accept-language": language}) if language else Client()
    client.force_login(user)
    return client


@pytest.fixture
def member() -> User:
    return UserFactory(username="maker")


def test_create_shows_the_token_once(member: User) -> None:
    client = _client(member)
    made = client.post("/accounts/tokens/", {"name": "laptop bot", "scopes": ["bot:play", "challenge:write"]})
    # Post/redirect/get: a reload of the page that shows the token never makes a second one.
    assert (made.status_code, made["Location"]) == (303, "/accounts/tokens/")
    response = client.get("/accounts/tokens/")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    text = TOKEN_TEXT.search(html).group(1)  # type: ignore[union-attr]
    token = ApiToken.objects.get(user=member)
    assert (token.name, token.scopes, token.token_hash, token.prefix) == (
        "laptop bot", ["bot:play", "challenge:write"], hash_token(text), text[:10])
    assert token_user(text) == (member, token)
    assert 'data-testid="new-token-warning"' in html
    # Listed with its prefix, never its text again: not on a reload, no longer in the session.
    again = client.get("/accounts/tokens/").content.decode()
    assert text not in again and 'data-testid="new-token"' not in again
    assert f"<code>{text[:10]}…</code>" in again
    assert text not in str(dict(client.session))
    assert client.get("/accounts/tokens/").content.decode().count('data-testid="token-row"') == 1
    assert ApiToken.objects.filter(user=member).count() == 1


def test_revoke(member: User) -> None:
    client = _client(member)
    client.post("/accounts/tokens/", {"name": "one", "scopes": ["bot:play"]})
    token = ApiToken.objects.get(user=member)
    other = UserFactory(username="other")
    # Someone else cannot revoke it, GET does nothing.
    assert _client(other).post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert client.get(f"/accounts/tokens/{token.pk}/revoke/").status_code == 405
    token.refresh_from_db()
    assert token.revoked_at is None
    response = client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert response.status_code == 302 and response["Location"] == "/accounts/tokens/"
    token.refresh_from_db()
    assert token.revoked_at is not None
    page = client.get("/accounts/tokens/").content.decode()
    assert 'data-testid="token-row"' not in page and 'data-testid="no-tokens"' in page
    # CSRF is enforced on the revoke form.
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(member)
    assert strict.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 403


@pytest.mark.parametrize("data, field, message", [
    ({"name": "", "scopes": ["bot:play"]}, "name", "This field is required."),
    ({"name": "   ", "scopes": ["bot:play"]}, "name", "This field is required."),
    ({"name": "x" * 61, "scopes": ["bot:play"]}, "name",
     "Ensure this value has at most 60 characters (it has 61)."),
    ({"name": "ok"}, "scopes", "Choose at least one scope."),
    ({"name": "ok", "scopes": ["bot:play", "admin:all"]}, "scopes",
     "Select a valid choice. admin:all is not one of the available choices."),
    ({"name": "a\x00b", "scopes": ["bot:play"]}, "name", "Null characters are not allowed."),
    ({"name": "a\tb", "scopes": ["bot:play"]}, "name", "A token&#x27;s name has no control characters."),
])
def test_bad_input_is_refused_and_makes_nothing(member: User, data: dict[str, Any], field: str,
                                                message: str) -> None:
    response = _client(member).post("/accounts/tokens/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert response.context["form"].errors[field]
    assert not ApiToken.objects.exists()
    assert "gin_" not in html


def test_creation_is_rate_limited_per_account(member: User, settings: Any) -> None:
    settings.ACCOUNTS_TOKEN_RATE = "2/h"
    client = _client(member)
    for n in range(2):
        assert client.post("/accounts/tokens/", {"name": f"t{n}", "scopes": ["bot:play"]}).status_code == 303
    response = client.post("/accounts/tokens/", {"name": "t2", "scopes": ["bot:play"]})
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert ApiToken.objects.filter(user=member).count() == 2
    # Another account has its own count.
    other = UserFactory(username="other")
    assert _client(other).post("/accounts/tokens/", {"name": "t", "scopes": ["bot:play"]}).status_code == 303


def test_the_token_limit_is_the_form_s_error(member: User) -> None:
    from accounts.tokens import TOKENS_PER_ACCOUNT, token_create

    for n in range(TOKENS_PER_ACCOUNT):
        token_create(user=member, name=f"t{n}", scopes=["bot:play"])
    response = _client(member).post("/accounts/tokens/", {"name": "one more", "scopes": ["bot:play"]})
    assert response.status_code == 400
    said = "You have 20 live tokens, the most an account may hold: revoke one first."
    assert said in response.content.decode()
    assert ApiToken.objects.filter(user=member).count() == TOKENS_PER_ACCOUNT


def test_guests_and_visitors_are_refused() -> None:
    guest = GuestFactory()
    assert _client(guest).get("/accounts/tokens/").status_code == 403
    assert _client(guest).post("/accounts/tokens/", {"name": "g", "scopes": ["bot:play"]}).status_code == 403
    assert _client(guest).post("/accounts/bot/upgrade/").status_code == 403
    response = Client().get("/accounts/tokens/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Client().post("/accounts/bot/upgrade/").status_code == 302
    assert not ApiToken.objects.exists()
    guest.refresh_from_db()
    assert not guest.bot_account


def test_page_in_pt_br_and_linked(member: User) -> None:
    html = _client(member, "pt-br").get("/accounts/tokens/").content.decode()
    assert "Tokens de API" in html and "Criar token" in html
    assert 'href="/developers/bots/"' in html
    profile = _client(member).get("/u/maker/").content.decode()
    assert 'href="/accounts/tokens/"' in profile


def test_upgrade_a_fresh_account(member: User) -> None:
    client = _client(member)
    page = client.get("/accounts/tokens/").content.decode()
    assert 'data-testid="bot-upgrade-button"' in page
    assert client.get("/accounts/bot/upgrade/").status_code == 405
    response = client.post("/accounts/bot/upgrade/")
    assert response.status_code == 302 and response["Location"] == "/accounts/tokens/"
    member.refresh_from_db()
    assert member.bot_account
    page = client.get("/accounts/tokens/").content.decode()
    assert 'data-testid="bot-upgrade-done"' in page and 'class="bot-badge"' in page
    assert client.post("/accounts/bot/upgrade/").status_code == 302  # again: the same, nothing changes
    member.refresh_from_db()
    assert member.bot_account


def test_upgrade_refused_after_a_rated_match_against_a_person(member: User) -> None:
    from games.models import MatchStatus

    match = FriendMatchFactory(host=member, rated=True, turn_timer=30)
    assert match.status == MatchStatus.ACTIVE
    client = _client(member)
    assert 'data-testid="bot-upgrade-refused"' in client.get("/accounts/tokens/").content.decode()
    response = client.post("/accounts/bot/upgrade/", follow=True)
    assert "cannot become a BOT account" in response.content.decode()
    type(match).objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED)
    assert client.post("/accounts/bot/upgrade/").status_code == 302
    member.refresh_from_db()
    assert not member.bot_account


def test_own_profile_links_the_tokens_page(member: User) -> None:
    """The way to the page: one's own profile (not the header, which has no room left in pt-BR)."""
    link = 'href="/accounts/tokens/" data-testid="profile-tokens"'
    assert link in _client(member).get("/u/maker/").content.decode()
    other = UserFactory(username="other")
    assert link not in _client(other).get("/u/maker/").content.decode()
    assert link not in Client().get("/u/maker/").content.decode()
    assert 'data-testid="nav-tokens"' not in _client(member).get("/").content.decode()
    pt = _client(member, "pt-br").get("/u/maker/").content.decode()
    assert re.search(r'data-testid="profile-tokens">([^<]+)<', pt).group(1) != "API tokens"  # type: ignore[union-attr]
