"""``manage.py verify_replays [--since DATE] [--match ID]``: re-run every stored finished match through
the engine (the replay path, without its cache) and report those whose record fails verification.

Exit status 0 when all verify, 1 when any fails (each failure is printed with the seq of its first bad
event), 2 for bad arguments.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from tqdm import tqdm

from replays.selectors import ReplayFailed, finished_matches, replay_cache_forget, replay_check


def _date(text: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--since must be a date or date-time such as 2026-12-01, got {text!r}") from None
    return timezone.make_aware(value) if timezone.is_naive(value) else value


class Command(BaseCommand):
    help = "Re-run every finished match's event log through the engine; exit 1 if any fails verification."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", type=_date, help="only matches finished on or after this date (ISO)")
        parser.add_argument("--match", type=int, dest="match_id", help="only this match id")

    def handle(self, *args: Any, since: dt.datetime | None = None, match_id: int | None = None,
               **options: Any) -> None:
        if match_id is not None and match_id < 1:
            raise CommandError("--match must be a positive match id")
        qs = finished_matches(since=since, match_id=match_id)
        total = qs.count()
        if match_id is not None and total == 0:
            raise CommandError(f"no finished match {match_id}")
        failures: list[tuple[int, ReplayFailed]] = []
        # stderr's wrapped stream: private, so Django's stubs know it only as some attribute.
        stream = cast(TextIO, self.stderr._out)
        bar = tqdm(qs.iterator(chunk_size=200), total=total, unit="match", file=stream,
                   disable=total == 0, dynamic_ncols=True)
        for match in bar:
            try:
                replay_check(match=match)
            except ReplayFailed as exc:
                failures.append((match.pk, exc))
                replay_cache_forget(match=match)  # never serve a cached copy of a record that fails now
                bar.set_postfix(failed=len(failures))
        bar.close()
        for pk, failure in failures:
            self.stdout.write(f"match {pk}: {failure}")
        ok = total - len(failures)
        self.stdout.write(f"{ok} of {total} finished matches verified, {len(failures)} failed")
        if failures:
            raise SystemExit(1)
