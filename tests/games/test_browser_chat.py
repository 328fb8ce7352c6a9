"""Quick chat in a real browser (chromium, Daphne subprocess): hal (English, 1280 px) says "Good luck!",
ivy (pt-BR, 390 px) reads "Boa sorte!" by hal's name and in the log; ivy mutes the chat, hal's next
message is neither shown nor logged on ivy's page, and the mute survives a reload. No sleeps: the
"nothing shown" check waits for ivy's own later echo (the channel layer delivers in order)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from games import services
from tests.browser_pages import log_in, make_user, off_loop, open_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_lines(page: Any) -> list[str]:
    return [li.strip() for li in page.locator("#chat-log li").all_inner_texts()]


def wait_log(page: Any, count: int) -> None:
    page.wait_for_function("(n) => document.querySelectorAll('#chat-log li').length === n", arg=count)


def test_preset_shown_in_the_readers_language_and_mute_hides_and_is_remembered(
    daphne_server: Any, contexts: Any
) -> None:
    cache.clear()  # the chat limits' counters
    hal_user, ivy_user = make_user("hal"), make_user("ivy")
    table = services.table_create(user=hal_user, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    off_loop(lambda: services.table_join(user=ivy_user, token=table.invite_token or ""))
    hal, ivy = contexts(1280, "en-US"), contexts(390, "pt-BR")
    for page, user, locale in ((hal, hal_user, "en-US"), (ivy, ivy_user, "pt-BR")):
        log_in(page, daphne_server.url, user.username, locale)
        open_table(page, daphne_server.url, table.pk)

    assert hal.get_by_test_id("chat-good_luck").inner_text() == "Good luck!"
    assert ivy.get_by_test_id("chat-good_luck").inner_text() == "Boa sorte!"
    assert ivy.get_by_test_id("chat-mute").inner_text() == "Chat: ligado"
    # the panel fits the phone: no sideways scrolling
    assert ivy.evaluate("document.documentElement.scrollWidth") <= 390

    hal.get_by_test_id("chat-good_luck").click()
    ivy.wait_for_selector("#chat-bubble:not([hidden])")
    assert ivy.get_by_test_id("chat-bubble").inner_text() == "Boa sorte!"
    wait_log(ivy, 1)
    assert log_lines(ivy) == ["hal: Boa sorte!"]
    wait_log(hal, 1)
    assert log_lines(hal) == ["You: Good luck!"]
    assert hal.locator("#chat-bubble").is_hidden()  # one's own message is no bubble

    ivy.get_by_test_id("chat-mute").click()
    assert ivy.get_by_test_id("chat-mute").inner_text() == "Chat: silenciado"
    assert ivy.get_by_test_id("chat-mute").get_attribute("aria-pressed") == "true"
    assert ivy.locator("#chat-bubble").is_hidden()
    hal.get_by_test_id("chat-well_played").click()
    wait_log(hal, 2)  # hal's echo: the message went to both seats' sockets
    ivy.get_by_test_id("chat-thanks").click()  # ivy's echo comes after hal's message on ivy's socket
    wait_log(ivy, 2)
    assert log_lines(ivy) == ["hal: Boa sorte!", "Você: Valeu!"]
    assert ivy.locator("#chat-bubble").is_hidden()
    wait_log(hal, 3)
    assert log_lines(hal)[-1] == "ivy: Thanks!"  # hal did not mute: ivy's reply reaches hal in English
    assert hal.get_by_test_id("chat-bubble").inner_text() == "Thanks!"
    hal.screenshot(path="/tmp/chat-1280-en.png")

    ivy.reload()
    ivy.wait_for_function("document.getElementById('chat-mute').textContent.length > 0")
    assert ivy.get_by_test_id("chat-mute").inner_text() == "Chat: silenciado"
    ivy.screenshot(path="/tmp/chat-390-pt.png", full_page=True)


COUNT_CHAT_REFUSALS = """
(() => {
  window.chatRefusals = 0;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        try {
          const msg = JSON.parse(event.data);
          if (msg.type === "error" && msg.code === "chat_rate_limited") window.chatRefusals += 1;
        } catch (e) { /* not JSON: not ours */ }
      });
    }
  };
})();
"""


@pytest.mark.parametrize(("locale", "sentence"), [
    ("en-US", "Too many chat messages: wait a few seconds."),
    ("pt-BR", "Mensagens de chat demais: espere alguns segundos."),
])
def test_a_burst_of_presets_shows_one_rate_limit_toast(
    daphne_server: Any, contexts: Any, locale: str, sentence: str
) -> None:
    """8 quick clicks on a preset: 3 are sent (chat.WINDOW_MAX), 5 refused with chat_rate_limited, and
    the page shows one toast saying so (refreshed), not one per refusal. The page counts the refusal
    frames it received, so the check waits for all 5 rather than for a time."""
    cache.clear()  # the chat limits' counters
    hal_user, ivy_user = make_user("hal"), make_user("ivy")
    table = services.table_create(user=hal_user, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    off_loop(lambda: services.table_join(user=ivy_user, token=table.invite_token or ""))
    hal = contexts(1280, locale)
    hal.add_init_script(COUNT_CHAT_REFUSALS)
    log_in(hal, daphne_server.url, hal_user.username, locale)
    open_table(hal, daphne_server.url, table.pk)

    button = hal.get_by_test_id("chat-good_luck")
    for _ in range(8):
        button.click()
    hal.wait_for_function("window.chatRefusals === 5")
    wait_log(hal, 3)
    toasts = hal.locator("[data-testid=toast]")
    assert toasts.all_inner_texts() == [sentence]
    assert hal.locator("[data-testid=toast].error").count() == 1
