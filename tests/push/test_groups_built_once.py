"""Every channel-layer group name is built by ``push.groups`` and nowhere else (issue 24): no module of
the site writes a group's name itself (an f-string ``"match_{...}"``, ``"watch_{...}"``, ...)."""

from __future__ import annotations

import re
from pathlib import Path

from push import groups

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("games", "replays", "tournaments", "platform", "scripts")
# The prefixes of push.groups' builders, written as an f-string's start ("match_{", 'pool_entry_{').
BUILT = re.compile(
    r"""f["'](match|watch|user|tournament|lobby_user|notices|pool|pool_entry|analysis|bot_events)_\{""")


def test_the_names_are_what_a_running_system_knows() -> None:
    assert [groups.match_group(7), groups.seat_group(7, 1), groups.watch_group(7)] == [
        "match_7", "match_7_seat1", "watch_7"]
    assert [groups.sessions_group(3), groups.tournament_group(5), groups.tournament_banner_group(3)] == [
        "user_3", "tournament_5", "user_3_tournaments"]
    assert [groups.lobby_user_group(3), groups.notice_group(3), groups.pool_group(2), groups.entry_group(9),
            groups.analysis_group(7), groups.LOBBY_GROUP, groups.HOME_GROUP] == [
        "lobby_user_3", "notices_3", "pool_2", "pool_entry_9", "analysis_7", "lobby_seeks", "home"]
    assert groups.bot_events_group(3) == "bot_events_3"


def test_no_module_builds_a_group_name_but_push_groups() -> None:
    own = ROOT / "platform" / "push" / "groups.py"
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != own and ".venv" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BUILT.search(line)
    ]
    assert found == []
