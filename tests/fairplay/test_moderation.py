"""Moderators' actions (``fairplay.services``; docs/fairplay.md "Moderation", "Consequences and
refunds"): each is logged with who and why, needs a reason, handles the reports; marking, clearing and
closing keep the ranks exact; closing refunds the opponents once; a warning is shown once; marked and
closed accounts leave tournaments."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from accounts.models import Standing, User
from fairplay import services
from fairplay.models import ActionKind, ModerationAction, Notice, Report, ReportStatus
from games.models import Match, MatchStatus
from ratings import selectors
from ratings.models import PlayerRating, RatingBucket, RatingChange, RatingRefund
from tests.factories import TournamentFactory
from tournaments import services as tournament_services
from tournaments.errors import TournamentError
from tournaments.models import Registration, TournamentStatus

pytestmark = pytest.mark.django_db


def _buckets() -> dict[int, tuple[int, int]]:
    return {b: (e, a) for b, e, a in RatingBucket.objects.values_list("bucket", "established", "everyone")
            if (e, a) != (0, 0)}


def _brute_rank(user_id: int) -> int | None:
    row = PlayerRating.objects.filter(user_id=user_id).first()
    if row is None or row.hidden or row.rated_matches < 10:
        return None
    board = PlayerRating.objects.filter(rated_matches__gte=10, hidden=False)
    return board.filter(Q(rating__gt=row.rating) | Q(rating=row.rating, user_id__lt=user_id)).count() + 1


def _report(reporter: User, reported: User, reason: str = "collusion") -> Report:
    return Report.objects.create(reporter=reporter, reported=reported, reason=reason, place="profile")


# --------------------------------------------------------------------------------------------- reasons


@pytest.mark.parametrize("reason", ["", "   \n "])
def test_every_action_needs_a_reason(member: Callable[..., Any], moderator: Any, reason: str) -> None:
    target = member("target", 1500.0, 12)
    for name in ("account_warn", "account_mark", "account_close", "account_rename", "reports_dismiss"):
        with pytest.raises(services.ModerationError) as caught:
            getattr(services, name)(moderator=moderator, target_id=target.pk, reason=reason)
        assert caught.value.code == "no_reason"
    target.refresh_from_db()
    assert (target.standing, target.is_active, target.username) == (Standing.GOOD, True, "target")
    assert not ModerationAction.objects.exists() and not Notice.objects.exists()


def test_refusals_change_nothing(member: Callable[..., Any], moderator: Any) -> None:
    target, other = member("target"), member("other")
    cases = [
        (lambda: services.account_unmark(moderator=moderator, target_id=target.pk, reason="r"), "not_marked"),
        (lambda: services.account_mark(moderator=moderator, target_id=moderator.pk, reason="r"), "self"),
        (lambda: services.account_rename(moderator=moderator, target_id=target.pk, reason="r",
                                         new_username="other"), "name_taken"),
        (lambda: services.account_rename(moderator=moderator, target_id=target.pk, reason="r",
                                         new_username="bad name!"), "bad_name"),
        # the sign-up's abusive-word check holds for a moderator's name too (a typo must not insult)
        (lambda: services.account_rename(moderator=moderator, target_id=target.pk, reason="r",
                                         new_username="puta_1"), "bad_name"),
        (lambda: services.reports_dismiss(moderator=moderator, target_id=target.pk, reason="r"),
         "no_reports"),
        (lambda: services.account_warn(moderator=moderator, target_id=10**9, reason="r"), "no_such_user"),
    ]
    for call, code in cases:
        with pytest.raises(services.ModerationError) as caught:
            call()
        assert caught.value.code == code
    assert not ModerationAction.objects.exists()
    assert other.username == "other"


# --------------------------------------------------------------------------------------------- the log


def test_each_action_is_logged_with_who_why_and_details(member: Callable[..., Any], moderator: Any,
                                                        django_capture_on_commit_callbacks: Any) -> None:
    target, reporter, reporter2 = member("target", 1500.0, 12), member("rep1"), member("rep2")
    first = _report(reporter, target)
    services.account_warn(moderator=moderator, target_id=target.pk, reason="first warning",
                          message="Stop resigning to your friend.")
    first.refresh_from_db()
    assert (first.status, first.handled_by_id) == (ReportStatus.ACTED, moderator.pk)
    second = _report(reporter2, target, "assistance")
    services.reports_dismiss(moderator=moderator, target_id=target.pk, reason="no evidence")
    second.refresh_from_db()
    assert second.status == ReportStatus.DISMISSED and second.handled_at is not None
    services.account_mark(moderator=moderator, target_id=target.pk, reason="pair signal 0.93")
    services.account_unmark(moderator=moderator, target_id=target.pk, reason="appeal accepted")
    services.account_rename(moderator=moderator, target_id=target.pk, reason="offensive", new_username="calm")
    services.account_rename(moderator=moderator, target_id=target.pk, reason="again")
    with django_capture_on_commit_callbacks(execute=True):
        services.account_close(moderator=moderator, target_id=target.pk, reason="farming confirmed")
    log = list(ModerationAction.objects.order_by("id").values_list("kind", "moderator_id", "reason"))
    assert log == [
        (ActionKind.WARN, moderator.pk, "first warning"), (ActionKind.DISMISS, moderator.pk, "no evidence"),
        (ActionKind.MARK, moderator.pk, "pair signal 0.93"),
        (ActionKind.UNMARK, moderator.pk, "appeal accepted"),
        (ActionKind.RENAME, moderator.pk, "offensive"), (ActionKind.RENAME, moderator.pk, "again"),
        (ActionKind.CLOSE, moderator.pk, "farming confirmed"),
    ]
    details = [a.details for a in ModerationAction.objects.order_by("id")]
    assert details[0] == {"message": "Stop resigning to your friend.", "reports": [first.pk]}
    assert details[1] == {"reports": [second.pk]}
    assert details[4] == {"old": "target", "new": "calm"}
    assert details[5]["old"] == "calm" and details[5]["new"].startswith("player-")
    assert len(details[5]["new"]) == len("player-12345") and details[5]["new"][7:].isdigit()
    assert details[6] == {"was": Standing.GOOD, "unregistered": [], "withdrawn": [], "recomputed": []}
    target.refresh_from_db()
    assert (target.standing, target.is_active) == (Standing.CLOSED, False)
    assert not target.has_usable_password()
    assert target.username == details[5]["new"] and target.standing_since is not None


# --------------------------------------------------------------------------------------------- rankings


def test_ranks_exact_after_mark_unmark_close(member: Callable[..., Any], moderator: Any,
                                             django_capture_on_commit_callbacks: Any) -> None:
    """Five established players 1800, 1700, 1650.5, 1650.2, 1500 and a provisional one at 1900."""
    a, b, c, d, e = (member(n, r, 12) for n, r in (("a", 1800.0), ("b", 1700.0), ("c", 1650.5),
                                                     ("d", 1650.2), ("e", 1500.0)))
    p = member("p", 1900.0, 3)
    everyone = [a, b, c, d, e]

    def ranks() -> dict[str, int | None]:
        return {u.username: selectors.rank_get(user_id=u.pk) for u in everyone}

    assert ranks() == {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    services.account_mark(moderator=moderator, target_id=b.pk, reason="collusion with e")
    assert ranks() == {"a": 1, "b": None, "c": 2, "d": 3, "e": 4}
    assert all(ranks()[u.username] == _brute_rank(u.pk) for u in everyone)
    assert _buckets() == {1800: (1, 1), 1650: (2, 2), 1500: (1, 1), 1900: (0, 1)}
    board = selectors.board_page(tab="all", provisional=False, search="", page=1)
    assert [(r["username"], r["rank"]) for r in board.rows] == [("a", 1), ("c", 2), ("d", 3), ("e", 4)]
    assert board.count == 4
    everyone_board = selectors.board_page(tab="all", provisional=True, search="", page=1)
    assert [r["username"] for r in everyone_board.rows] == ["p", "a", "c", "d", "e"]
    assert selectors.board_page(tab="30d", provisional=True, search="b", page=1).rows == []
    assert selectors.profile_get(user=User.objects.get(pk=b.pk))["rank"] is None
    # The profile says so without the provisional player's line (b has 12 rated matches; trial).
    profile = Client().get("/u/b/").content.decode()
    assert '<span class="stat-value" data-testid="profile-rank">—</span>' in profile
    assert "Not on the rankings" in profile and "Ranked after 10 rated matches" not in profile
    assert "Fora do ranking" in Client(headers={"accept-language": "pt-br"}).get("/u/b/").content.decode()
    assert "Ranked after 10 rated matches" in Client().get("/u/p/").content.decode()  # 3 rated matches
    # The public API reads the same boards.
    api = Client().get("/api/v1/rankings/").json()
    assert [row["username"] for row in api["results"]] == ["a", "c", "d", "e"]

    services.account_unmark(moderator=moderator, target_id=b.pk, reason="appeal accepted")
    assert ranks() == {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    assert _buckets() == {1800: (1, 1), 1700: (1, 1), 1650: (2, 2), 1500: (1, 1), 1900: (0, 1)}

    with django_capture_on_commit_callbacks(execute=True):
        services.account_close(moderator=moderator, target_id=c.pk, reason="assistance")
    assert ranks() == {"a": 1, "b": 2, "c": None, "d": 3, "e": 4}
    assert all(ranks()[u.username] == _brute_rank(u.pk) for u in everyone)
    assert _buckets() == {1800: (1, 1), 1700: (1, 1), 1650: (1, 1), 1500: (1, 1), 1900: (0, 1)}
    # A member never rated, marked: a hidden row of no match (no bucket moves).
    n = member("never")
    services.account_mark(moderator=moderator, target_id=n.pk, reason="abusive name")
    assert PlayerRating.objects.get(user=n).hidden and _buckets()[1500] == (1, 1)
    assert p.pk  # the provisional player stayed on the provisional board throughout


# --------------------------------------------------------------------------------------------- close


def test_close_refunds_its_opponents_once_after_commit(member: Callable[..., Any], moderator: Any,
                                                       django_capture_on_commit_callbacks: Any) -> None:
    cheat, victim = member("cheat", 1600.0, 20), member("victim", 1480.0, 15)
    for _ in range(10):  # the victim's ten earlier matches: established when it lost
        m = Match.objects.create(rules={}, player0=victim, player1=cheat, status=MatchStatus.FINISHED,
                                 rated=True, winner=0)
        RatingChange.objects.create(match=m, player=victim, opponent=cheat, before=1500, after=1501, delta=1,
                                    k=20, expected=0.5, opponent_rating=1500, won=True)
    lost = Match.objects.create(rules={}, player0=victim, player1=cheat, status=MatchStatus.FINISHED,
                                rated=True, winner=1)
    for player, other, delta in ((victim, cheat, -20.0), (cheat, victim, 20.0)):
        RatingChange.objects.create(match=lost, player=player, opponent=other, before=1500,
                                    after=1500 + delta,
                                    delta=delta, k=20, expected=0.5, opponent_rating=1500, won=delta > 0)
    RatingChange.objects.filter(match=lost).update(created_at=timezone.now() - timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.account_close(moderator=moderator, target_id=cheat.pk, reason="assistance")
    assert len(callbacks) == 1
    made = list(RatingRefund.objects.values_list("player_id", "match_id", "points"))
    assert made == [(victim.pk, lost.pk, 20.0)]
    assert PlayerRating.objects.get(user=victim).rating == 1500.0
    services.refunds_retry(closed_id=cheat.pk)  # a moderator sends it again: nothing twice
    assert RatingRefund.objects.count() == 1 and PlayerRating.objects.get(user=victim).rating == 1500.0


# --------------------------------------------------------------------------------------------- warn


def test_warning_shown_once_on_the_next_page(member: Callable[..., Any], moderator: Any,
                                             django_capture_on_commit_callbacks: Any) -> None:
    target = member("target")
    client = Client()
    client.force_login(target)
    assert "A moderator warned you" not in client.get("/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        services.account_warn(moderator=moderator, target_id=target.pk, reason="internal note XYZ",
                              message="Play your own games.")
    page = client.get("/").content.decode()
    assert "A moderator warned you about fair play" in page and "Play your own games." in page
    assert "internal note XYZ" not in page
    assert "A moderator warned you" not in client.get("/").content.decode()
    assert Notice.objects.get(user=target).seen_at is not None
    pt = Client()
    pt.force_login(target)
    with django_capture_on_commit_callbacks(execute=True):
        services.account_warn(moderator=moderator, target_id=target.pk, reason="again")
    page = pt.get("/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Um moderador advertiu você sobre jogo limpo" in page


# --------------------------------------------------------------------------------------------- tournaments


def test_marked_account_refused_and_removed_from_tournaments(member: Callable[..., Any],
                                                             moderator: Any) -> None:
    target = member("target")
    upcoming, later = TournamentFactory(), TournamentFactory(starts_at=timezone.now() + timedelta(days=2))
    tournament_services.tournament_join(tournament_id=upcoming.pk, user=target)
    stale = User.objects.get(pk=target.pk)  # a request's user, read before the mark
    action = services.account_mark(moderator=moderator, target_id=target.pk, reason="sandbagging")
    assert action.details == {"unregistered": [upcoming.pk]}
    assert not Registration.objects.filter(user=target).exists()
    with pytest.raises(TournamentError) as caught:  # the standing is read again under the user's lock
        tournament_services.tournament_join(tournament_id=later.pk, user=stale)
    assert caught.value.code == "standing"
    target.refresh_from_db()
    with pytest.raises(TournamentError) as caught:
        tournament_services.tournament_join(tournament_id=later.pk, user=target)
    assert caught.value.code == "standing"
    assert later.status == TournamentStatus.OPEN


@pytest.mark.django_db(transaction=True)
def test_mark_racing_joins_never_deadlocks_nor_leaves_a_registration(member: Callable[..., Any],
                                                                     moderator: Any) -> None:
    """A mark and two joins of the same member at once (PostgreSQL: real row locks): whichever order the
    database gives them, the mark succeeds and no registration is left."""
    import threading

    from django.db import connection

    if connection.vendor == "sqlite":
        pytest.skip("SQLite serializes writers with one database lock (the PostgreSQL run races them)")
    target = member("target")
    first, second = TournamentFactory(), TournamentFactory(starts_at=timezone.now() + timedelta(hours=5))
    tournament_services.tournament_join(tournament_id=first.pk, user=target)
    barrier = threading.Barrier(3)
    results: list[Any] = [None] * 3

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except (TournamentError, services.ModerationError) as exc:
            results[i] = exc.code
        except Exception as exc:  # a deadlock would land here: the assertions show it
            results[i] = exc
        finally:
            connection.close()

    calls = [
        lambda: services.account_mark(moderator=moderator, target_id=target.pk, reason="race").kind,
        lambda: tournament_services.tournament_join(tournament_id=second.pk, user=target) and "joined",
        lambda: tournament_services.tournament_join(tournament_id=first.pk, user=target) and "joined",
    ]
    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results[0] == ActionKind.MARK
    assert results[1] in ("joined", "standing") and results[2] in ("joined", "standing"), results
    assert not Registration.objects.filter(user=target).exists()
