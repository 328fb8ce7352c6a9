"""Level 5's determinized rollouts (engine.bots.rollout): worlds built from public cards only, and
hand-made worlds played out to their exact score under the engine's rules."""

from __future__ import annotations

import random

from engine.bots.common import mask_of
from engine.bots.rollout import World, discard_values, make_worlds, rollout
from engine.cards import parse_card, parse_cards
from engine.melds import deadwood
from engine.rules import preset
from engine.scoring import score_knock

CLASSIC = preset("classic")


def world(opponent: str, stock: str) -> World:
    return World(mask_of(parse_cards(opponent)), tuple(parse_cards(stock)))


def test_opponent_gins_on_its_first_draw() -> None:
    # the opponent declines Ks (no meld), draws Th (Jh Qh Kh -> Th-Kh), discards 9c: gin
    me = mask_of(parse_cards("4h 5h 6h 8c 8d 8s Ac 2d 3s 5s"))
    w = world("2c 3c 4c 7d 7h 7s Jh Qh Kh 9c", "Th 2s 4s 6s 9d")
    assert deadwood(parse_cards("4h 5h 6h 8c 8d 8s Ac 2d 3s 5s")) == 11
    assert rollout(me, w, parse_card("Ks"), None, CLASSIC, 10, 1) == -(25 + 11)
    assert rollout(me, w, parse_card("Ks"), None, CLASSIC, 10, 2) == -2 * (25 + 11)


def test_opponent_takes_the_discard_that_melds_then_gins() -> None:
    # my discard Tc makes the opponent's set of tens; it then discards 9c: gin without a draw
    me = mask_of(parse_cards("4h 5h 6h 8c 8d 8s Ac 2d 3s 5s"))
    w = world("2c 3c 4c Th Td 7d 7h 7s Ts 9c", "2s 4s 6s 9d Kd")
    assert rollout(me, w, parse_card("Tc"), None, CLASSIC, 10, 1) == -36


def test_i_knock_first_and_score_like_the_engine() -> None:
    # I move first, draw 7h (4h-7h), shed Ks: deadwood 6, a knock scored with layoffs by score_knock
    me_cards = "4h 5h 6h 8c 8d 8s Ac 2d 3s Ks"
    opp = "2c 3c 9c Jh Qd Kd 9h 9s Tc 5d"
    w = world(opp, "7h Qs 6d 2s")
    expected = score_knock(parse_cards("4h 5h 6h 7h 8c 8d 8s Ac 2d 3s"), parse_cards(opp), CLASSIC)
    assert expected.winner == 0 and expected.points > 0
    got = rollout(mask_of(parse_cards(me_cards)), w, None, None, CLASSIC, 10, 1, opponent_moves=False)
    assert got == expected.points


def test_dead_hand_at_the_stock_floor() -> None:
    # three cards in the stock: the opponent draws (2 left, the floor), cannot knock: dead hand
    me = mask_of(parse_cards("Kc Kd Qs Qh Js Jd 9c 7d 5h 3s"))
    w = world("Kh Ks Qc Qd Jc Jh 9d 7h 5s 3c", "2s 4c 6h")
    assert rollout(me, w, parse_card("Ac"), None, CLASSIC, 10, 1) == 0


def test_worlds_use_only_unknown_cards_and_replay_by_seed() -> None:
    rng = random.Random(3)
    unknown = sorted(rng.sample(range(52), 30))
    opps = [mask_of(rng.sample(unknown, 10)) for _ in range(5)]
    a = make_worlds(opps, unknown, 20, random.Random(9))
    b = make_worlds(opps, unknown, 20, random.Random(9))
    assert a == b
    for w, opp in zip(a, opps, strict=True):
        assert w.opponent == opp and len(w.stock) == 20
        assert not mask_of(w.stock) & opp
        assert mask_of(w.stock) | opp == mask_of(unknown)


def _random_position(seed: int) -> tuple[int, list[int], list[World]]:
    rng = random.Random(seed)
    deck = rng.sample(range(52), 52)
    hand11, pile = mask_of(deck[:11]), deck[11]
    unknown = sorted(deck[12:])
    opps = [mask_of(rng.sample(unknown, 10)) for _ in range(12)]
    return hand11, [pile], make_worlds(opps, unknown, 25, rng)


def test_discard_values_are_mean_rollouts_over_the_same_worlds() -> None:
    hand11, (below,), worlds = _random_position(5)
    cards = sorted(c for c in range(52) if hand11 >> c & 1)[:4]
    values = discard_values(hand11, cards, worlds, below, CLASSIC, 10, 1)
    assert list(values) == cards
    for card in cards:
        runs = [rollout(hand11 ^ (1 << card), w, card, below, CLASSIC, 10, 1) for w in worlds]
        assert values[card] == sum(runs) / len(worlds)


def test_pruning_keeps_the_leader_and_drops_only_far_trailers() -> None:
    for seed in range(6):
        hand11, (below,), worlds = _random_position(seed)
        cards = sorted(c for c in range(52) if hand11 >> c & 1)
        head = worlds[:4]
        first = {c: sum(rollout(hand11 ^ (1 << c), w, c, below, CLASSIC, 10, 1) for w in head) for c in cards}
        kept = discard_values(hand11, cards, worlds, below, CLASSIC, 10, 1, prune_after=4, prune=2.0)
        lead = max(first.values())
        assert set(kept) == {c for c in cards if first[c] >= lead - 2.0 * 4}
        full = discard_values(hand11, cards, worlds, below, CLASSIC, 10, 1)
        assert all(kept[c] == full[c] for c in kept)
