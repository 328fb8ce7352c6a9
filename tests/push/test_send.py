"""push.send: the one after-commit path. What a group member receives, in order; nothing before the
commit and nothing after a rollback; an outage is recorded, logged and marked on the outcome but never
raised into the committed writer; a bug (a message no schema admits) is recorded and raised."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import redis.exceptions
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from infra import channel_layer
from push import send
from push.schemas import MessageRejected

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def member() -> Iterator[tuple[Any, str]]:
    """A channel in the groups ``g1`` and ``g2`` of the default (in-process) layer."""
    layer = get_channel_layer()
    name = async_to_sync(layer.new_channel)()
    for group in ("g1", "g2"):
        async_to_sync(layer.group_add)(group, name)
    yield layer, name


def received(layer: Any, name: str, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages of channel ``name``, received on ONE event loop (channels-redis keeps
    a process channel's receive buffer per loop: one receive per ``async_to_sync`` loop got a message
    twice)."""

    async def take() -> list[dict[str, Any]]:
        return [await layer.receive(name) for _ in range(count)]

    return async_to_sync(take)()


def test_messages_arrive_in_order_after_the_commit(member: tuple[Any, str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    layer, name = member
    sends: list[int] = []
    real = send._send_now

    def counted(messages: Any, outcome: Any) -> Any:
        sends.append(len(messages))
        return real(messages, outcome)

    monkeypatch.setattr(send, "_send_now", counted)
    with transaction.atomic():
        outcome = send.send_on_commit([("g1", {"type": "pool.count", "waiting": 2}),
                                       ("g2", {"type": "lobby.changed"})])
        assert sends == []  # not before the commit
    assert sends == [2]  # both in one batch
    assert received(layer, name, 2) == [{"type": "pool.count", "waiting": 2}, {"type": "lobby.changed"}]
    assert outcome.failed is False


def test_nothing_is_sent_after_a_rollback(member: tuple[Any, str]) -> None:
    layer, name = member

    class Undone(Exception):
        pass

    with pytest.raises(Undone), transaction.atomic():
        send.send_on_commit([("g1", {"type": "lobby.changed"})])
        raise Undone
    send.send_now([("g1", {"type": "pool.probe"})])
    assert received(layer, name, 1) == [{"type": "pool.probe"}]  # the rolled-back message never came


def test_messages_built_after_the_commit_see_the_committed_values(member: tuple[Any, str]) -> None:
    layer, name = member
    box = {"waiting": 1}
    with transaction.atomic():
        send.send_on_commit(lambda: [("g1", {"type": "pool.count", "waiting": box["waiting"]})])
        box["waiting"] = 5
    assert received(layer, name, 1) == [{"type": "pool.count", "waiting": 5}]


@pytest.mark.push_failure
def test_an_outage_is_recorded_logged_and_never_raised(
        member: tuple[Any, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    async def down(layer: Any, messages: Any) -> None:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(channel_layer, "group_send_many", down)
    seen: list[send.Failure] = []
    monkeypatch.setattr(send, "LISTENERS", [seen.append])
    with caplog.at_level(logging.WARNING, logger="push.send"), transaction.atomic():
        outcome = send.send_on_commit([("g1", {"type": "lobby.changed"}), ("g2", {"type": "pool.probe"})])
    assert outcome.failed is True
    assert [(f.groups, f.types, f.is_outage) for f in seen] == [
        (("g1", "g2"), ("lobby.changed", "pool.probe"), True)]
    assert [r.getMessage() for r in caplog.records if r.name == "push.send"] == [
        "push of lobby.changed, pool.probe to g1, g2 not sent: ConnectionError: Error 111 connecting to "
        "127.0.0.1:6379. Connection refused."]


@pytest.mark.push_failure
def test_a_stalled_layer_is_given_up_after_the_timeout(
        member: tuple[Any, str], monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    async def stalled(layer: Any, messages: Any) -> None:
        await asyncio.sleep(60)

    monkeypatch.setattr(channel_layer, "group_send_many", stalled)
    monkeypatch.setattr(send, "PUSH_TIMEOUT", 0.05)
    seen: list[send.Failure] = []
    monkeypatch.setattr(send, "LISTENERS", [seen.append])
    outcome = send.send_now([("g1", {"type": "lobby.changed"})])
    assert outcome.failed is True and len(seen) == 1
    assert isinstance(seen[0].error, TimeoutError) and seen[0].is_outage


@pytest.mark.push_failure
def test_a_bad_message_is_a_bug_raised_now_and_recorded_on_commit(
        member: tuple[Any, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    layer, name = member
    seen: list[send.Failure] = []
    monkeypatch.setattr(send, "LISTENERS", [seen.append])
    with pytest.raises(MessageRejected, match=r"^'pool.count' to 'g1': waiting: -1 is less than the minimum"):
        send.send_now([("g1", {"type": "pool.count", "waiting": -1})])
    # After a commit the writer is never failed (its write is committed): Django's robust on_commit logs it.
    with caplog.at_level(logging.ERROR), transaction.atomic():
        outcome = send.send_on_commit([("g1", {"type": "pool.count", "waitin": 1})])
    assert outcome.failed is True
    assert [type(f.error) for f in seen] == [MessageRejected, MessageRejected]
    assert not any(f.is_outage for f in seen)
    assert any(r.name == "push.send" and r.levelno == logging.ERROR for r in caplog.records)
    send.send_now([("g1", {"type": "pool.probe"})])
    assert received(layer, name, 1) == [{"type": "pool.probe"}]  # neither bad message went out


def test_the_check_is_off_unless_asked(member: tuple[Any, str], settings: Any) -> None:
    """Production does not pay for the check (``PUSH_CHECK`` off): what the sender gives is sent."""
    layer, name = member
    settings.PUSH_CHECK = False
    send.send_now([("g1", {"type": "pool.count", "waiting": -1})])
    assert received(layer, name, 1) == [{"type": "pool.count", "waiting": -1}]


def test_a_process_loop_serves_every_call_and_a_fork_gets_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    first = send._process_loop()
    assert send._process_loop() is first
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as a forked Celery child sees it
    assert send._process_loop() is not first


async def test_a_send_from_a_thread_the_loop_called_runs_on_that_loop(
    redis_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Daphne consumer's ``db_call`` thread sends on the consumer's own loop (``_callers_loop``): the
    process loop's thread is never used, and a member on that loop gets its copy without Redis."""
    import asyncio
    import uuid

    from asgiref.sync import sync_to_async

    layer = channel_layer.BatchingRedisChannelLayer(hosts=[redis_url], prefix=f"t{uuid.uuid4().hex[:8]}")
    monkeypatch.setattr(send, "get_channel_layer", lambda: layer)

    def no_process_loop(coroutine: Any, timeout: float) -> None:
        coroutine.close()
        raise AssertionError("sent on the process loop's thread")

    monkeypatch.setattr(send, "run_on_process_loop", no_process_loop)
    name = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(name))
    while name not in layer._receiving:
        await asyncio.sleep(0)
    await layer.group_add("g1", name)
    outcome = await sync_to_async(send.send_now, thread_sensitive=False)([("g1", {"type": "lobby.changed"})])
    assert not outcome.failed
    assert await asyncio.wait_for(receiving, 10) == {"type": "lobby.changed"}
    assert await layer.connection(0).zcard(f"{layer.prefix}specific.{layer.client_prefix}!") == 0
    assert send._callers_loop() is None  # on the loop itself: no loop "called" it
    await layer.flush()
    await layer.close_pools()
