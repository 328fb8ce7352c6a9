"""The site icon: an SVG in the static files, linked by every page; ``/favicon.ico`` redirects to it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
SVG = ROOT / "platform/web/static/web/favicon.svg"
LINK = '<link rel="icon" href="/static/web/favicon.svg" type="image/svg+xml">'
pytestmark = pytest.mark.django_db


def test_favicon_is_a_square_svg() -> None:
    root = ET.parse(SVG).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.attrib["viewBox"] == "0 0 64 64"
    assert SVG.stat().st_size < 2048  # small: fetched with every first visit


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accounts/signup/", "/no-such-page/"])
def test_pages_link_the_svg_icon(client: Client, path: str) -> None:
    assert LINK in client.get(path).content.decode()


def test_favicon_ico_redirects_to_the_svg(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response.url == "/static/web/favicon.svg"
    assert "max-age=86400" in response["Cache-Control"]
    icon = client.get(response.url)
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert b"".join(icon.streaming_content) == SVG.read_bytes()


def test_favicon_ico_is_get_only(client: Client) -> None:
    assert client.post("/favicon.ico").status_code == 405
