// Quick chat at the table (docs/protocol.md "Quick chat"): a row of preset buttons, the opponent's
// messages shown as a short-lived bubble by their name and kept in a small log, and a mute switch.
// Only preset ids cross the socket: the texts are the page's own buttons' (rendered in the reader's
// language), so each player reads the other's message in their own language.
// Mute is this browser's choice (localStorage "gin.chat.muted"): muted, the opponent's messages are
// neither shown nor logged; one's own still echo in the log.
import { $, el, store, stored } from "./dom.js";
import { t } from "./i18n.js";

const MUTE_KEY = "gin.chat.muted";
const BUBBLE_MS = 4000;
const LOG_MAX = 20;

export class QuickChat {
  /** ``send(msg)``: the table socket's send (false when not connected); ``mySeat``: 0 or 1;
   * ``idFor()``: a new message id. Does nothing on a page without the chat panel (bot matches). */
  constructor(send, mySeat, idFor) {
    this.panel = $("chat-panel");
    this.send = send;
    this.mySeat = mySeat;
    this.idFor = idFor;
    this.texts = {};
    this.timer = null;
    this.muted = stored("localStorage", MUTE_KEY) === "1";
    if (!this.panel) return;
    for (const b of this.panel.querySelectorAll("[data-preset]")) {
      this.texts[b.dataset.preset] = b.textContent.trim();
      b.addEventListener("click", () => this.say(b.dataset.preset));
    }
    $("chat-mute").addEventListener("click", () => {
      this.muted = !this.muted;
      store("localStorage", MUTE_KEY, this.muted ? "1" : "0");
      if (this.muted) this.hideBubble();
      this.renderMute();
    });
    this.renderMute();
  }

  say(preset) {
    return this.send({ type: "chat", preset, id: this.idFor() });
  }

  renderMute() {
    const b = $("chat-mute");
    b.setAttribute("aria-pressed", this.muted ? "true" : "false");
    b.textContent = t(this.muted ? "chat_muted" : "chat_unmuted");
    this.panel.classList.toggle("chat-muted", this.muted); // (not "muted": the site's grey-text class)
  }

  /** A ``chat`` message from the socket. Returns whether it was shown. */
  receive(msg, opponentName) {
    if (!this.panel) return false;
    const mine = msg.seat === this.mySeat;
    if (!mine && this.muted) return false;
    const text = this.texts[msg.preset];
    if (text === undefined) return false; // a preset this page does not know (a newer server): skip
    const who = mine ? t("you") : opponentName || t("opponent");
    const line = el("li", mine ? "mine" : "theirs");
    line.append(el("strong", "", who + ": "), document.createTextNode(text));
    const log = $("chat-log");
    log.append(line);
    while (log.children.length > LOG_MAX) log.firstElementChild.remove();
    log.hidden = false;
    if (!mine) this.showBubble(text);
    return true;
  }

  showBubble(text) {
    const bubble = $("chat-bubble");
    bubble.textContent = text;
    bubble.hidden = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hideBubble(), BUBBLE_MS);
  }

  hideBubble() {
    clearTimeout(this.timer);
    $("chat-bubble").hidden = true;
  }
}
