"""Replay files opened from disk (``/replay/open/``, docs/replay-format.md "Opening a file on the site").

A file is verified once, within a CPU budget (``REPLAYS_OPEN_CPU_SECONDS`` of the request thread's CPU
time: ``engine.replay_format.verify``'s ``budget``), without the viewer's frames; what each hand needs to
be drawn again (its deal, its verified actions) is then held in the cache for
``REPLAYS_OPEN_HOLD_SECONDS`` under the SHA-256 of the file's bytes, and the page gets the match and a
summary of each hand plus the first hand whole. Any other hand is drawn when the viewer asks for it
(:func:`hand_get`, ``/replay/open/<sha256>/hands/<n>.json``): the frames of that one hand, built on their
own by ``engine.replay_format.hand_frames``. Before, the page carried every frame of every hand: a valid
4 MB file of 2,000 dead hands made an 18.7 MB page.

Only what was verified is held (the file's own bytes are not kept), and a hand is served to whoever
names the file's digest: that is, to whoever has the file.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

from engine.replay_format import HandReplay, hand_frames, verify_text
from engine.rules import RuleSet
from replays import selectors

CACHE_VERSION = 2
"""Bump when what is held changes shape (old entries are then never read)."""
CHUNK = 50
"""Hands held per cache entry: a 2,000-hand file is 40 entries (the embedded profile's local-memory
cache keeps 300 entries in all), and a hand's request unpickles 50 hands (about 50 KB), not 2,000."""
CLOCK: Callable[[], float] = time.thread_time
"""The budget's clock: the request thread's CPU seconds (waiting for a busy processor does not count)."""


@dataclass(frozen=True, slots=True)
class Opened:
    """A verified file: ``digest`` (SHA-256 hex of its bytes, the name of its hands' URLs) and ``built``
    (``selectors.Built`` of the viewer's data: the match, every hand's summary, hand 1 whole)."""

    digest: str
    built: selectors.Built


def _key(digest: str, what: str | int) -> str:
    """The cache key of an opened file's header (``"rules"``: its rules and number of hands) or of its
    hands' chunk ``what`` (hands ``CHUNK * what + 1`` ...)."""
    return f"replay-open:{CACHE_VERSION}:{digest}:{what}"


def _whole(rules: RuleSet, summary: dict[str, Any], hand: HandReplay) -> dict[str, Any]:
    frames, arrangements = hand_frames(rules, hand.dealer, hand.deck, hand.limit_card, hand.actions)
    return selectors.hand_view(summary, hand, frames, arrangements)


def file_open(content: bytes) -> Opened:
    """Verify the replay file ``content`` within the CPU budget, hold its hands, and give the page's data.

    :raises engine.replay_format.ReplayBudgetError: past ``REPLAYS_OPEN_CPU_SECONDS``.
    :raises engine.replay_format.ReplayVerificationError: the file does not verify (nothing is held).
    """
    verified = verify_text(content, budget=settings.REPLAYS_OPEN_CPU_SECONDS, clock=CLOCK)
    digest = hashlib.sha256(content).hexdigest()
    data = selectors.viewer_data(verified, whole=False)
    rules = verified.state.rules
    pairs = list(zip(data["hands"], verified.hands, strict=True))
    held: dict[str, Any] = {_key(digest, "rules"): {"rules": rules.to_dict(), "hands": len(pairs)}}
    for start in range(0, len(pairs), CHUNK):
        held[_key(digest, start // CHUNK)] = pairs[start:start + CHUNK]
    cache.set_many(held, settings.REPLAYS_OPEN_HOLD_SECONDS)
    data["hands"][0] = _whole(rules, data["hands"][0], verified.hands[0])
    return Opened(digest, selectors.built_of(data))


class NotHeld(Exception):
    """No such hand of an opened file: ``code`` ``not_held`` (the file is not, or no longer, held:
    open it again) or ``no_such_hand``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def hand_get(digest: str, number: int) -> dict[str, Any]:
    """Hand ``number`` (1-based) of the opened file ``digest``, whole (``selectors.hand_view``).

    :raises NotHeld: see its codes.
    """
    chunk = _key(digest, (number - 1) // CHUNK)
    found = cache.get_many([_key(digest, "rules"), chunk])
    header = found.get(_key(digest, "rules"))
    if header is None:
        raise NotHeld("not_held")
    if not 1 <= number <= header["hands"]:
        raise NotHeld("no_such_hand")
    if chunk not in found:
        raise NotHeld("not_held")
    summary, hand = found[chunk][(number - 1) % CHUNK]
    return _whole(RuleSet.from_dict(header["rules"]), summary, hand)
