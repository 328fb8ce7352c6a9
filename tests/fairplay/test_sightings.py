"""Sightings (docs/fairplay.md "Privacy: sightings"): a member's log-in and table page record their
network and device as salted hashes only, at most once an hour per user, kind and digest; the device
cookie's attributes; "same network as X" (shared_with); guests are not recorded."""

from __future__ import annotations

import logging
import threading

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import User
from fairplay import sightings
from fairplay.hashing import device_digest, network_digest
from fairplay.models import Sighting
from tests.factories import FriendMatchFactory, GuestFactory, UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "felt-green-42-knock"
DEVICE = "D" * 32


def log_in(username: str, ip: str, device: str | None = None) -> Client:
    client = Client(REMOTE_ADDR=ip)
    if device is not None:
        client.cookies[sightings.DEVICE_COOKIE] = device
    response = client.post(reverse("accounts:login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def rows() -> list[tuple[str, str, str, int]]:
    return sorted(Sighting.objects.values_list("user__username", "kind", "digest", "times"))


def test_log_in_records_network_and_device_hashed_and_sets_the_cookie(caplog) -> None:
    UserFactory(username="ana", password=PASSWORD)
    caplog.set_level(logging.DEBUG)
    client = log_in("ana", "203.0.113.7")
    cookie = client.cookies[sightings.DEVICE_COOKIE]
    assert sightings.DEVICE_ID_SHAPE.fullmatch(cookie.value)
    assert (cookie["httponly"], cookie["samesite"], cookie["max-age"]) == (True, "Lax", 2 * 365 * 24 * 3600)
    assert cookie["secure"] == ("" if not settings.SESSION_COOKIE_SECURE else True)
    salt = settings.FAIRPLAY_HASH_SALT
    assert rows() == sorted([
        ("ana", "device", device_digest(cookie.value, salt=salt), 1),
        ("ana", "ip", network_digest("203.0.113.7", salt=salt), 1),
    ])
    # Neither the address nor the device id is stored or logged anywhere by fairplay.
    stored = " ".join(str(v) for row in Sighting.objects.values() for v in row.values())
    assert "203.0.113.7" not in stored and cookie.value not in stored
    assert not [r for r in caplog.records if r.name.startswith("fairplay")
                and ("203.0.113.7" in r.getMessage() or cookie.value in r.getMessage())]


def test_a_well_formed_device_cookie_is_kept_and_a_bad_one_replaced() -> None:
    UserFactory(username="ana", password=PASSWORD)
    kept = log_in("ana", "203.0.113.7", device=DEVICE)
    assert kept.cookies[sightings.DEVICE_COOKIE].value == DEVICE  # not set again
    assert ("ana", "device", device_digest(DEVICE, salt=settings.FAIRPLAY_HASH_SALT), 1) in rows()
    replaced = log_in("ana", "203.0.113.7", device="not-a-device-id")
    assert sightings.DEVICE_ID_SHAPE.fullmatch(replaced.cookies[sightings.DEVICE_COOKIE].value)


def test_at_most_one_write_per_user_kind_and_digest_an_hour() -> None:
    UserFactory(username="ana", password=PASSWORD)
    for _ in range(3):
        log_in("ana", "203.0.113.7", device=DEVICE)
    assert [times for *_, times in rows()] == [1, 1]
    # A new network within the hour is its own sighting; the device is still within its hour.
    log_in("ana", "2001:db8:1:2::5", device=DEVICE)
    assert [(kind, times) for _, kind, _, times in rows()] == [("device", 1), ("ip", 1), ("ip", 1)]
    cache.clear()  # the hour's guards gone, as they are after SIGHTING_EVERY seconds
    log_in("ana", "2001:db8:1:2::77", device=DEVICE)  # the same /64
    ip6 = network_digest("2001:db8:1:2::", salt=settings.FAIRPLAY_HASH_SALT)
    assert ("ana", "ip", ip6, 2) in rows()
    assert ("ana", "device", device_digest(DEVICE, salt=settings.FAIRPLAY_HASH_SALT), 2) in rows()


def test_opening_a_table_is_a_sighting_for_members_not_guests() -> None:
    ana = UserFactory(username="ana")
    guest = GuestFactory()
    match = FriendMatchFactory(host=ana, friend=guest, rated=False)
    for user in (ana, guest):
        client = Client(REMOTE_ADDR="198.51.100.4")
        client.force_login(user)  # no network: not a sighting (sighting_receivers)
        assert not Sighting.objects.filter(user=user).exists()
        client.cookies[sightings.DEVICE_COOKIE] = DEVICE
        assert client.get(reverse("games:table", args=[match.pk])).status_code == 200
    assert [(u, k) for u, k, _, _ in rows()] == [("ana", "device"), ("ana", "ip")]
    # Other pages are not sightings, and a member with no cookie gets one from the table page.
    cache.clear()
    bare = Client(REMOTE_ADDR="198.51.100.4")
    bare.force_login(ana)
    bare.get(reverse("games:my_matches"))
    assert sightings.DEVICE_COOKIE not in bare.cookies
    assert [times for *_, times in rows()] == [1, 1]
    bare.get(reverse("games:table", args=[match.pk]))
    assert sightings.DEVICE_ID_SHAPE.fullmatch(bare.cookies[sightings.DEVICE_COOKIE].value)
    assert [(k, t) for _, k, _, t in rows()] == [("device", 1), ("device", 1), ("ip", 2)]


def test_shared_with_names_the_accounts_seen_from_the_same_network_or_device() -> None:
    for name in ("ana", "bob", "cy", "dee"):
        UserFactory(username=name, password=PASSWORD)
    log_in("ana", "203.0.113.7", device=DEVICE)
    log_in("bob", "203.0.113.7", device=DEVICE)  # bob: ana's network and browser
    log_in("cy", "203.0.113.7")  # cy: her network only (his own new cookie)
    log_in("dee", "192.0.2.1")  # dee: nothing in common
    ana, cy, dee = (User.objects.get(username=n) for n in ("ana", "cy", "dee"))
    assert [(u.username, kinds) for u, kinds in sightings.shared_with(ana)] == [
        ("bob", ["device", "ip"]), ("cy", ["ip"])]
    assert [(u.username, kinds) for u, kinds in sightings.shared_with(cy)] == [
        ("ana", ["ip"]), ("bob", ["ip"])]
    assert sightings.shared_with(dee) == []


@pytest.mark.django_db(transaction=True)
def test_sighting_record_counts_both_of_two_writers_at_once() -> None:
    ana = UserFactory(username="ana")
    barrier = threading.Barrier(4)

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            sightings.sighting_record(user_id=ana.pk, kind="ip", digest="a" * 64)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert rows() == [("ana", "ip", "a" * 64, 4)]
