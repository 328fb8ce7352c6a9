"""Issue 22 item 7 in chromium: long names, phone tables, the language menu, the desktop header.

A username may be 150 characters without a space. At 390 x 844 (a phone) the welcome message, the
invitation page and the rankings cut such a name with an ellipsis on one line (the full name in the
``title``), the tournament pages' tables fit the screen (their rows stack), and the language menu is
inside the screen; at 1280 x 800 the logged-in header (that name, every menu link) stays on one line;
on a phone the header is compact (at most a sixth of the screen) and every control in it stays tappable.
Each check: ``document.scrollingElement.scrollWidth`` <= the viewport width, and the elements' boxes
inside the viewport. English and pt-BR (the longer menu).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import HEADER_TAPPABLE, LONG_A, log_in, make_user, sized

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-for-narrow-tests-1"
LONG = "W" + "w" * 148 + "Z"  # 150 characters, the widest letters, no space to break at
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Boxes of the visible elements matching ``selector`` that leave the viewport (left < 0 or right past
# its width), and the page's own sideways scroll.
OUTSIDE = """(selector) => {
    const width = document.documentElement.clientWidth;
    const outside = [...document.querySelectorAll(selector)]
        .filter((e) => e.getClientRects().length)
        .map((e) => ({what: e.tagName + '.' + e.className + ' ' + e.textContent.trim().slice(0, 30),
                      box: e.getBoundingClientRect()}))
        .filter((e) => e.box.left < -0.5 || e.box.right > width + 0.5)
        .map((e) => `${e.what} ${Math.round(e.box.left)}..${Math.round(e.box.right)}`);
    return {scroll: document.scrollingElement.scrollWidth, width, outside,
            found: document.querySelectorAll(selector).length};
}"""

# A name cut on one line: one box no taller than a line of its font, its text overflowing (the
# ellipsis), the whole name in its title.
NAME = """(selector) => [...document.querySelectorAll(selector)].filter((e) => e.getClientRects().length)
    .map((e) => {
        const style = getComputedStyle(e);
        const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.6;
        return {title: e.title, rects: e.getClientRects().length, tall: e.getBoundingClientRect().height,
                line, cut: e.scrollWidth > e.clientWidth, ellipsis: style.textOverflow,
                clamped: e.scrollHeight > e.clientHeight && style.webkitLineClamp !== 'none',
                right: e.getBoundingClientRect().right};
    })"""


# The language menu's shown label: the width its text needs in the menu's font, and the room for it (the
# menu's inner width less its padding and the arrow, taken as 1.25em).
LABEL = """() => {
    const menu = document.getElementById('lang-select');
    const style = getComputedStyle(menu);
    const text = menu.options[menu.selectedIndex].text;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
        - 1.25 * parseFloat(style.fontSize);
    return {text, needed: ctx.measureText(text).width, room};
}"""


def _fits(page: Any, selector: str) -> dict[str, Any]:
    got: dict[str, Any] = page.evaluate(OUTSIDE, selector)
    assert got["found"] > 0, (selector, got)
    assert got["scroll"] <= got["width"] and got["outside"] == [], (selector, got)
    return got


def _one_line_names(page: Any, selector: str, width: int, lines: int = 1) -> None:
    """Every name matched is the long one, cut (its text overflows, with an ellipsis) within ``lines``
    lines of its font, its right edge on the screen."""
    names = page.evaluate(NAME, selector)
    assert names, selector
    for name in names:
        assert name["title"] == LONG and name["rects"] == 1 and name["ellipsis"] == "ellipsis", name
        assert name["tall"] <= name["line"] * (lines + 0.25) and name["right"] <= width, name
        assert name["cut"] if lines == 1 else name["clamped"], name


def _language(page: Any, base: str, language: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])


def _sign_up_long(page: Any, base: str) -> None:
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", LONG)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(base + "/")


@pytest.mark.parametrize("language", ["en", "pt-br"])
def test_long_names_are_cut_on_a_phone(daphne_server: Any, page: Any, language: str) -> None:
    from accounts.models import User
    from games import services
    from ratings.models import PlayerRating

    base = daphne_server.url
    _language(page, base, language)
    page.set_viewport_size(PHONE)
    _sign_up_long(page, base)
    # The welcome message ("Welcome, <name>!"), the header's name and the language menu.
    _one_line_names(page, ".messages .message .player-name", PHONE["width"])
    _fits(page, ".messages .message, .site-header .who, .site-header .account > *, #lang-select")
    _one_line_names(page, ".site-header .who .player-name", PHONE["width"])

    # The invitation page of a table the long-named player opened.
    long_user = User.objects.get(username=LONG)
    table = services.table_create(user=long_user, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    visitor = page.context.browser.new_context(locale="en-US", viewport=PHONE)
    try:
        invited = visitor.new_page()
        _language(invited, base, language)
        invited.goto(f"{base}/t/{table.invite_token}/")
        _one_line_names(invited, "main h1 .player-name", PHONE["width"])
        _fits(invited, "main h1, main .player-name, main a, main button, #lang-select")
    finally:
        visitor.close()

    # The rankings: the long name cut at two lines in its row (a shorter one may wrap once: names that
    # differ only at the end stay apart), the row on the screen.
    PlayerRating.objects.create(user=long_user, rating=1650, peak=1650, rated_matches=12, wins=7, losses=5)
    other = User.objects.create_user(username="short", password=PASSWORD)
    PlayerRating.objects.create(user=other, rating=1600, peak=1600, rated_matches=12, wins=6, losses=6)
    page.goto(base + "/rankings/")
    _one_line_names(page, '[data-testid="board"] .player-name[title^="Ww"]', PHONE["width"], lines=2)
    _fits(page, '[data-testid="board"] tr, [data-testid="board"] td, [data-testid="board"] th')
    rows = page.locator('[data-testid="board-row"]')
    assert rows.count() == 2
    heights = [rows.nth(i).bounding_box()["height"] for i in range(2)]
    assert heights[0] < 2.2 * heights[1], heights  # the long name's row: at most one line more


@pytest.mark.parametrize("language", ["en", "pt-br"])
def test_tournament_tables_fit_a_phone(daphne_server: Any, page: Any, language: str) -> None:
    from accounts.models import User
    from tests.tournaments.test_pages import finished_event, soon

    base = daphne_server.url
    members = [User.objects.create_user(username=name, password=PASSWORD)
               for name in (LONG, "Bartholomew_Longname-Smithson", "carol")]
    tournament, _ = finished_event(members)
    soon(name_en="Evening Swiss Championship", name_pt="Campeonato Suíço da Noite", max_players=16)
    _language(page, base, language)
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/tournaments/{tournament.pk}/")
    for table in ("standings", "pairings"):
        _fits(page, f'[data-testid="{table}"], [data-testid="{table}"] tr, [data-testid="{table}"] td')
        scroller = page.evaluate(
            "(t) => { const e = document.querySelector(`[data-testid='${t}']`);"
            " return [e.scrollWidth, e.parentElement.clientWidth]; }", table)
        assert scroller[0] <= scroller[1], (table, scroller)  # the table does not scroll in its box either
    _one_line_names(page, '[data-testid="standings"] td .player-name[title="' + LONG + '"]', PHONE["width"])
    page.goto(f"{base}/tournaments/")
    _fits(page, '[data-testid="upcoming"], [data-testid="upcoming"] tr, [data-testid="upcoming"] td, '
                '[data-testid="upcoming"] a, [data-testid="upcoming"] button')
    scroller = page.evaluate("() => { const e = document.querySelector('[data-testid=upcoming]');"
                             " return [e.scrollWidth, e.parentElement.clientWidth]; }")
    assert scroller[0] <= scroller[1], scroller


@pytest.mark.parametrize("language", ["en", "pt-br"])
@pytest.mark.parametrize("who", ["visitor", "guest", "long"])
def test_the_language_menu_is_on_a_phone_screen(daphne_server: Any, page: Any, language: str,
                                                who: str) -> None:
    base = daphne_server.url
    _language(page, base, language)
    page.set_viewport_size(PHONE)
    if who == "guest":
        page.goto(base + "/")
        page.locator("main form[action='/accounts/guest/'] button").first.click()
        page.wait_for_selector(".site-header .who")
    elif who == "long":
        _sign_up_long(page, base)
    for path in ("/", "/rankings/", "/tournaments/"):
        page.goto(base + path)
        _fits(page, "#lang-select, .site-header .account > *, .site-header .nav a, .site-header .brand")
        shown = page.evaluate(LABEL)
        assert shown["text"] == ("Português" if language == "pt-br" else "English"), shown
        assert shown["needed"] <= shown["room"], shown  # the chosen language's name is not cut off
    other = "en" if language == "pt-br" else "pt-br"
    with page.expect_navigation():
        page.locator("#lang-select").select_option(other)
    assert page.locator("html").get_attribute("lang") == other
    _fits(page, "#lang-select, .site-header .account > *, .site-header .nav a, .site-header .brand")
    shown = page.evaluate(LABEL)
    assert shown["needed"] <= shown["room"], shown


@pytest.mark.parametrize("language", ["en", "pt-br"])
@pytest.mark.parametrize("long", [False, True])
def test_the_logged_in_header_keeps_one_line_on_a_desktop(daphne_server: Any, page: Any, language: str,
                                                          long: bool) -> None:
    from accounts.models import User

    base = daphne_server.url
    _language(page, base, language)
    page.set_viewport_size(DESKTOP)
    if long:
        _sign_up_long(page, base)
    else:
        User.objects.create_user(username="alice", password=PASSWORD)
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", "alice")
        page.fill("#id_password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(base + "/")
    for path in ("/", "/rankings/"):
        page.goto(base + path)
        _fits(page, ".site-header .brand, .site-header .nav a, .site-header .account > *, #lang-select")
        tops = page.evaluate("""() => [...document.querySelectorAll(
            '.site-header .brand, .site-header .nav a, .site-header .who, .site-header .account form')]
            .filter((e) => e.getClientRects().length)
            .map((e) => { const r = e.getBoundingClientRect();
                          return [Math.round(r.top + r.height / 2), e.textContent.trim().slice(0, 12),
                                  Math.round(r.left), Math.round(r.right)]; })""")
        middles = [top[0] for top in tops]
        assert len(tops) >= 12 and max(middles) - min(middles) <= 4, tops  # one row
        header = page.locator(".site-header").bounding_box()
        assert header is not None and header["height"] <= 64, header
        if long:
            _one_line_names(page, ".site-header .who .player-name", DESKTOP["width"])


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_phone_header_is_compact_and_every_link_stays_tappable(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """390 x 844: the site header (a member with a 150-character name, logged in) takes at most a sixth
    of the screen's height, and every link, button and the language menu in it is on screen and not
    covered; so does a visitor's."""
    make_user(LONG_A)
    for member in (True, False):
        page = sized(contexts, 390, locale)
        if member:
            log_in(page, daphne_server.url, LONG_A, locale)
        page.goto(daphne_server.url + "/rules/")
        height = page.locator("header.site-header").bounding_box()["height"]
        page.locator("header.site-header").screenshot(path=f"/tmp/t13/header-{locale}-{member}.png")
        assert height <= 844 / 6, (member, height)
        assert page.evaluate(HEADER_TAPPABLE) == [], member
        page.close()
