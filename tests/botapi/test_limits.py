"""The bot API's request limits (docs/bot-api.md "Fair limits"): per token (``BOTAPI_TOKEN_RATE``), per
IP address without a live token (``API_ANON_RATE``), 429 ``throttled`` with ``Retry-After``; a cache
outage lets requests through."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.botapi.conftest import BotApi, error_of
from tests.botapi.conftest import pair as _pair

pytestmark = pytest.mark.django_db


def test_the_token_rate_refuses_the_next_request_with_retry_after(
    make_bot: Any, make_token: Any, settings: Any
) -> None:
    settings.BOTAPI_TOKEN_RATE = "3/min"
    robo, token = _pair(make_bot("robo"))
    api = BotApi(token)
    for _ in range(3):
        assert api.get("account/").status_code == 200
    refused = api.post("match/house/", {"level": 1})  # every endpoint counts
    assert error_of(refused) == (429, "throttled")
    assert 1 <= int(refused["Retry-After"]) <= 60
    # a second token of the same account has its own count
    other = BotApi(make_token(robo, name="second"))
    assert other.get("account/").status_code == 200


def test_a_refused_scope_counts_too(make_token: Any, alice: Any, settings: Any) -> None:
    settings.BOTAPI_TOKEN_RATE = "2/min"
    api = BotApi(make_token(alice, scopes=["challenge:write"]))
    assert error_of(api.post("match/house/", {"level": 1})) == (403, "missing_scope")
    assert api.get("account/").status_code == 200
    assert error_of(api.get("account/")) == (429, "throttled")


def test_requests_without_a_live_token_are_counted_per_ip(make_bot: Any, settings: Any) -> None:
    settings.API_ANON_RATE = "2/min"
    settings.BOTAPI_TOKEN_RATE = "100/min"
    assert error_of(BotApi(None).get("account/")) == (401, "not_authenticated")
    assert error_of(BotApi("gin_" + "y" * 40).get("account/")) == (401, "bad_token")
    refused = BotApi("gin_" + "z" * 40).get("account/")
    assert error_of(refused) == (429, "throttled") and int(refused["Retry-After"]) >= 1
    # a live token is counted on its own, not in the address's count
    _robo, token = _pair(make_bot("robo"))
    assert BotApi(token).get("account/").status_code == 200


def test_a_cache_outage_lets_requests_through(
    make_bot: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    settings.BOTAPI_TOKEN_RATE = "1/min"
    _robo, token = _pair(make_bot("robo"))

    class Down:
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("cache down")

        def set(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("cache down")

    monkeypatch.setattr(SimpleRateThrottle, "cache", Down())
    api = BotApi(token)
    with caplog.at_level(logging.WARNING, logger="botapi.throttles"):
        for _ in range(3):
            assert api.get("account/").status_code == 200
    assert sum("cache unavailable (ConnectionError), request allowed" in r.getMessage()
               for r in caplog.records) == 3


def test_a_token_throttled_again_and_again_goes_to_the_fair_play_queue(make_bot: Any, settings: Any) -> None:
    """The throttle's refusals are counted per token (``botapi.pauses.note_throttled``): past
    ``BOTAPI_ABUSE_THROTTLES`` in the hour, one system report of the account, and only one."""
    from fairplay.models import Report, ReportReason

    settings.BOTAPI_TOKEN_RATE = "1/min"
    settings.BOTAPI_ABUSE_THROTTLES = 2
    robo, token = _pair(make_bot("robo"))
    api = BotApi(token)
    assert api.get("account/").status_code == 200
    codes = [error_of(api.get("account/")) for _ in range(5)]
    assert codes == [(429, "throttled")] * 5
    reports = list(Report.objects.filter(reported=robo).values_list("reason", "reporter_id"))
    assert reports == [(ReportReason.BOT_THROTTLED, None)]
