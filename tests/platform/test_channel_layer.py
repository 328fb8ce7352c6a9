"""config.channel_layer: the batched group send delivers exactly what channels-redis' own group_send
does (same messages, same channels, same order, same capacity drops), in two Redis round trips."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer
from redis.asyncio.client import Pipeline, Redis

from config.channel_layer import BatchingRedisChannelLayer, group_send_many


def _layer(redis_url: str, **config: Any) -> BatchingRedisChannelLayer:
    # Own prefix per layer: nothing left by another test (or run) is read.
    return BatchingRedisChannelLayer(hosts=[redis_url], prefix=f"t{uuid.uuid4().hex[:12]}", **config)


async def _drain(layer: Any, channel: str) -> list[dict[str, Any]]:
    """Every message queued for ``channel``, in order (the layer's own receive)."""
    got = []
    while True:
        try:
            got.append(await _receive(layer, channel))
        except TimeoutError:
            return got


async def _receive(layer: Any, channel: str) -> dict[str, Any]:
    import asyncio

    return await asyncio.wait_for(layer.receive(channel), 0.3)  # type: ignore[no-any-return]


async def _delivered(layer: Any, send: Any) -> dict[str, list[dict[str, Any]]]:
    """Seat a and b (a also watching), one spectator c, an empty group; ``send(layer, messages)``; what
    each channel then receives. ``a`` and ``c`` are process-local channels (``new_channel``), ``b`` a
    plain named one."""
    a, c = await layer.new_channel(), await layer.new_channel()
    b = f"plain.{uuid.uuid4().hex[:8]}"
    await layer.group_add("seat0", a)
    await layer.group_add("seat1", b)
    await layer.group_add("watch", a)
    await layer.group_add("watch", c)
    messages = [
        ("seat0", {"type": "match.update", "seq": 7, "state": {"cards": ["AS", "TD"]}}),
        ("seat1", {"type": "match.update", "seq": 7, "state": {"cards": ["2C"]}}),
        ("nobody", {"type": "match.update", "seq": 7}),
        ("watch", {"type": "match.update", "seq": 7}),
        ("seat0", {"type": "match.update", "seq": 8, "state": {"cards": []}}),
    ]
    await send(layer, messages)
    try:
        return {"a": await _drain(layer, a), "b": await _drain(layer, b), "c": await _drain(layer, c)}
    finally:
        await layer.flush()


async def _one_by_one(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    for group, message in messages:
        await layer.group_send(group, message)


async def test_batch_delivers_what_group_send_delivers(redis_url: str) -> None:
    expected = {
        "a": [{"type": "match.update", "seq": 7, "state": {"cards": ["AS", "TD"]}},
              {"type": "match.update", "seq": 7},
              {"type": "match.update", "seq": 8, "state": {"cards": []}}],
        "b": [{"type": "match.update", "seq": 7, "state": {"cards": ["2C"]}}],
        "c": [{"type": "match.update", "seq": 7}],
    }
    assert await _delivered(_layer(redis_url), _one_by_one) == expected
    assert await _delivered(_layer(redis_url), group_send_many) == expected


async def test_over_capacity_drops_as_group_send_does(redis_url: str) -> None:
    """Capacity 2 per channel: ``a``'s third message is dropped by both ways of sending."""
    one_by_one = await _delivered(_layer(redis_url, capacity=2), _one_by_one)
    batched = await _delivered(_layer(redis_url, capacity=2), group_send_many)
    assert [m["seq"] for m in batched["a"]] == [7, 7] and batched == one_by_one


async def test_batch_is_two_round_trips(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five group messages, four with members: two pipelines, no single command (group_send: 18)."""
    counts = {"pipelines": 0, "commands": 0}
    pipeline_execute, command = Pipeline.execute, Redis.execute_command

    async def counted_execute(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["pipelines"] += 1
        return await pipeline_execute(self, *args, **kwargs)

    async def counted_command(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["commands"] += 1
        return await command(self, *args, **kwargs)

    layer = _layer(redis_url)
    a = await layer.new_channel()
    for group in ("seat0", "seat1", "watch", "other"):
        await layer.group_add(group, a)
    monkeypatch.setattr(Pipeline, "execute", counted_execute)
    monkeypatch.setattr(Redis, "execute_command", counted_command)
    await group_send_many(layer, [(g, {"type": "x", "n": i}) for i, g in enumerate(
        ("seat0", "seat1", "nobody", "watch", "other"))])
    assert counts == {"pipelines": 2, "commands": 0}
    monkeypatch.undo()
    assert [m["n"] for m in await _drain(layer, a)] == [0, 1, 3, 4]
    await layer.flush()


async def test_other_layers_send_one_by_one_in_order() -> None:
    layer = InMemoryChannelLayer()
    a = await layer.new_channel()
    await layer.group_add("g1", a)
    await layer.group_add("g2", a)
    await group_send_many(layer, [("g1", {"type": "x", "n": 1}), ("g2", {"type": "x", "n": 2}),
                                  ("g3", {"type": "x", "n": 3})])
    assert [(await layer.receive(a))["n"] for _ in range(2)] == [1, 2]


async def test_bad_group_name_sends_nothing(redis_url: str) -> None:
    layer = _layer(redis_url)
    a = await layer.new_channel()
    await layer.group_add("g1", a)
    with pytest.raises(TypeError, match="Group name"):
        await group_send_many(layer, [("g1", {"type": "x"}), ("bad name!", {"type": "x"})])
    assert await _drain(layer, a) == []
    await layer.flush()
