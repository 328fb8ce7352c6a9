"""Who plays whom in one quick-pairing wave (docs/lobby.md "Pairing"), framework-free.

The rule, for the players waiting in one pool at one wave:

- **Window.** A player who has waited ``waited`` seconds accepts opponents within
  ``window(waited) = start + growth * waited`` rating points either side (capped at ``cap`` points when
  a cap is given). ``start`` and ``growth`` are the pool's ``window_start`` and ``window_growth``.
- **Both ways.** Two players may be paired only when each is inside the other's window:
  ``|r_a - r_b| <= min(window_a, window_b)``. A newcomer is not pushed onto a far opponent because the
  *other* player has waited long (lichess's pool matcher, lila ``modules/pool/src/main/MatchMaking.scala``,
  instead scores every couple by rating gap minus a bonus per missed wave and refuses couples above a
  fixed score; a per-player window that widens with time says the same thing in rating points that a
  player can be shown).
- **No rematch in a row.** Two players who are each other's ``last_opponent`` (the last match each
  played through this pool was against the other) are not paired, unless they are the only two
  (distinct) players waiting in the wave.
- **Pairs at their daily cap.** Two users whose pair is in ``avoid`` (user ids, either order: the pairs
  that have started ``games.conf.pair_rated_per_day()`` rated matches in 24 hours, in a rated pool)
  are never paired, even when they are the only two waiting (docs/fairplay.md).
- **Best wave.** Among all pairings that respect the above, the wave takes one that first has the most
  pairs and then the smallest total rating gap (sum of ``|r_a - r_b|`` over its pairs): a weighted
  matching, not first come first served.
- **One user, one seat.** A user who appears under several keys (two waiting entries, which the
  database's one-waiting-entry constraint forbids, but this module does not trust it) is considered once,
  under the entry that waited longest (then the smallest key); the other keys are never paired.

**How it is computed.** General weighted matching (networkx's blossom algorithm) takes about 4 s of CPU
for 1,000 players even on a sparse graph, far over the 100 ms budget of a wave. This module uses the
structure of the problem instead: it sorts the players by rating and runs an exact dynamic programme
over that order in which a player may be paired only with one of the ``band`` players next to them in
the order (default :data:`BAND` = 6) among those they are compatible with; the state is the set of the last
``band`` players still open (unpaired, and with a compatible player still ahead). That is an exact
optimum over all pairings whose pairs are at most ``band`` places apart in rating order, and therefore
the exact optimum whenever the wave has at most ``band + 1`` players, or whenever the best pairing needs
no pair further apart (pairs far apart in rating order are what the lexicographic objective avoids: a
gap that skips many players is large). It is not the exact optimum for every input: the tests compare it
with a brute-force enumeration of every pairing on thousands of random waves, and docs/lobby.md
"Pairing" gives the measured rate and size of the misses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

BAND = 6
"""How many places apart in rating order two paired players may be (see the module docstring)."""


@dataclass(frozen=True)
class Waiter:
    """One player waiting in one pool at one wave.

    ``key`` is the PoolEntry id; ``rating`` the rating shown to the player (provisional included);
    ``waited`` seconds since they joined, at this wave; ``last_opponent`` the user id of the last
    opponent this player met through this pool (``None``: none yet).
    """

    key: int
    user_id: int
    rating: float
    waited: float
    last_opponent: int | None


def window(waited: float, *, start: float, growth: float, cap: float | None = None) -> float:
    """The rating window (± rating points) of a player who has waited ``waited`` seconds.

    ``start + growth * waited``, at most ``cap`` when given. A negative ``waited`` (a clock read just
    before the join was stamped) counts as 0. Raises ValueError for a negative ``start``, ``growth``
    or ``cap``.

    >>> window(0, start=100, growth=10)
    100.0
    >>> window(12.5, start=100, growth=10)
    225.0
    >>> window(60, start=100, growth=10, cap=400)
    400.0
    """
    if start < 0 or growth < 0 or (cap is not None and cap < 0):
        raise ValueError("window: start, growth and cap must be >= 0")
    width = float(start) + float(growth) * max(0.0, float(waited))
    if cap is not None:
        width = min(width, float(cap))
    return width


def _distinct(waiters: Sequence[Waiter]) -> list[Waiter]:
    """One waiter per user: the one that waited longest, then the smallest key (see the module doc)."""
    best: dict[int, Waiter] = {}
    for w in waiters:
        kept = best.get(w.user_id)
        if kept is None or (w.waited, -w.key) > (kept.waited, -kept.key):
            best[w.user_id] = w
    return list(best.values())


def pair_wave(waiters: Sequence[Waiter], *, start: float, growth: float, cap: float | None = None,
              band: int = BAND, avoid: Collection[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The pairs of one wave, as ``(key, key)`` tuples (the lower-rated player's key first), in rating order.

    ``waiters`` are the players waiting in one pool (any order); ``start``, ``growth`` and ``cap`` define
    :func:`window`; ``band`` (>= 1) how many places apart in rating order a pair may be (the module doc);
    ``avoid``: pairs of user ids (either order) never paired.
    Players left out wait for the next wave. Deterministic: the same waiters give the same pairs in any
    input order. Raises ValueError for a bad ``band`` or window parameter.
    """
    if band < 1:
        raise ValueError("pair_wave: band must be >= 1")
    people = sorted(_distinct(waiters), key=lambda w: (w.rating, w.key))
    n = len(people)
    if n < 2:
        return []
    ratings = [float(w.rating) for w in people]
    widths = [window(w.waited, start=start, growth=growth, cap=cap) for w in people]
    only_two = n == 2
    banned = {(min(a, b), max(a, b)) for a, b in avoid}

    # back[p]: the players q < p (at most ``band`` places before) that p may be paired with.
    back: list[list[int]] = [[] for _ in range(n)]
    last_ahead = list(range(n))  # the furthest compatible player ahead of q (q itself: none)
    for p in range(n):
        rp, wp, up, op = ratings[p], widths[p], people[p].user_id, people[p].last_opponent
        for q in range(p - 1, max(-1, p - band - 1), -1):
            gap = rp - ratings[q]
            if gap > wp:
                break  # ratings only fall further back: nobody before q fits p's window either
            if gap > widths[q]:
                continue
            if not only_two and op == people[q].user_id and people[q].last_opponent == up:
                continue
            if banned and (min(up, people[q].user_id), max(up, people[q].user_id)) in banned:
                continue
            back[p].append(q)
            last_ahead[q] = p

    # big > any total gap, so one more pair always beats any saving in rating gap.
    big = (ratings[-1] - ratings[0]) * n + 1.0
    # State: bit j of the mask is "player p - j is still open" after player p (bits beyond ``band``
    # never survive). Value: (score, chain of pairs as nested tuples, newest first).
    Chain = tuple[int, int, object] | None
    states: dict[int, tuple[float, Chain]] = {0: (0.0, None)}
    for p in range(n):
        nxt: dict[int, tuple[float, Chain]] = {}
        keep = 0
        for j in range(min(band, p) + 1):
            if last_ahead[p - j] > p:
                keep |= 1 << j
        opens_p = 1 if last_ahead[p] > p else 0
        candidates = back[p]
        rp = ratings[p]
        for mask, (score, chain) in states.items():
            shifted = mask << 1
            # p is not paired now: it stays open if someone ahead may still take it.
            m = (shifted | opens_p) & keep
            old = nxt.get(m)
            if old is None or score > old[0]:
                nxt[m] = (score, chain)
            for q in candidates:
                bit = 1 << (p - q)
                if shifted & bit:
                    m = (shifted & ~bit) & keep
                    s = score + big - (rp - ratings[q])
                    old = nxt.get(m)
                    if old is None or s > old[0]:
                        nxt[m] = (s, (q, p, chain))
        states = nxt
    _, chain = max(states.values(), key=lambda v: v[0])
    pairs: list[tuple[int, int]] = []
    link: object = chain
    while link is not None:
        q, p, link = link  # type: ignore[misc]
        pairs.append((people[q].key, people[p].key))
    pairs.reverse()
    return pairs
