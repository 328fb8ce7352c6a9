// Direct challenges on every page (docs/protocol.md "Notices socket"): /ws/notices/ sends this player's
// open challenges ("notices") on connect, then each new one ("challenge"), its end ("challenge_closed")
// and "go" when a match of theirs starts. A received challenge shows Accept / Decline and a countdown
// (from the server's seconds_left); the challenger sees "waiting" and then the answer.
import { ReconnectingSocket } from "../web/socket.js";

const box = document.getElementById("notices");
const strings = JSON.parse(box.dataset.strings);
const items = new Map(); // challenge id -> {el, timer}
let socket = null;

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? String(values[key]) : ""));
}

function remove(id) {
  const item = items.get(id);
  if (!item) return;
  clearInterval(item.timer);
  item.el.remove();
  items.delete(id);
  box.hidden = box.children.length === 0;
}

function say(text, code) {
  const p = document.createElement("p");
  p.className = "notice message";
  p.setAttribute("data-testid", "notice-said");
  if (code) p.dataset.code = code;
  p.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "link";
  close.textContent = "×";
  close.setAttribute("aria-label", strings.close);
  close.addEventListener("click", () => { p.remove(); box.hidden = box.children.length === 0; });
  p.appendChild(close);
  box.appendChild(p);
  box.hidden = false;
}

function show(c, received) {
  if (items.has(c.id)) return;
  const el = document.createElement("div");
  el.className = "notice challenge-notice";
  el.setAttribute("data-testid", received ? "challenge-notice" : "challenge-sent");
  el.dataset.challenge = String(c.id);
  const text = document.createElement("p");
  const what = (c.rated ? strings.rated : strings.casual) + " · " + (strings.presets[c.preset] || c.preset)
    + " · " + c.target + (c.turn_timer ? " · " + c.turn_timer + " s" : "");
  text.textContent = (received ? fill(strings.received, { name: c.challenger }) : fill(strings.sent, { name: c.challenged }))
    + " (" + what + ")";
  if (received ? c.challenger_bot_account : c.challenged_bot_account) {
    // the other side is a program playing through the bot API (docs/bot-api.md): marked as everywhere
    const bot = document.createElement("span");
    bot.className = "bot-badge";
    bot.title = strings.bot_account;
    bot.textContent = "BOT";
    text.append(" ", bot);
  }
  el.appendChild(text);
  const clock = document.createElement("span");
  clock.className = "countdown muted";
  clock.setAttribute("data-testid", "notice-countdown");
  el.appendChild(clock);
  const ends = Date.now() + c.seconds_left * 1000;
  const tick = () => { clock.textContent = " " + Math.max(0, Math.ceil((ends - Date.now()) / 1000)) + " s"; };
  tick();
  const buttons = document.createElement("span");
  buttons.className = "notice-buttons";
  const add = (label, testid, kind, primary) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = primary ? "button small primary" : "button small";
    b.setAttribute("data-testid", testid);
    b.textContent = label;
    b.addEventListener("click", () => { socket.send({ type: kind, challenge: c.id }); });
    buttons.appendChild(b);
  };
  if (received) {
    add(strings.accept, "notice-accept", "accept", true);
    add(strings.decline, "notice-decline", "decline", false);
  } else {
    add(strings.withdraw, "notice-withdraw", "decline", false);
  }
  el.appendChild(buttons);
  box.appendChild(el);
  box.hidden = false;
  items.set(c.id, { el, timer: setInterval(tick, 1000) });
}

socket = new ReconnectingSocket("/ws/notices/", {
  onMessage(msg) {
    if (msg.type === "notices") {
      // reconnected: tournaments/notices.js fetches the event notices pushed while the socket was down
      if (box.dataset.live === "1") document.dispatchEvent(new CustomEvent("tournament-notice"));
      box.dataset.live = "1"; // connected: notices arrive live from here on (tests wait for it)
      for (const id of [...items.keys()]) remove(id);
      for (const c of msg.received || []) show(c, true);
      for (const c of msg.sent || []) show(c, false);
    } else if (msg.type === "challenge") {
      show(msg.challenge, true);
    } else if (msg.type === "challenge_sent") {
      show(msg.challenge, false);
    } else if (msg.type === "challenge_closed") {
      const mine = items.get(msg.id);
      remove(msg.id);
      if (mine && mine.el.dataset.testid !== "challenge-notice" && msg.status !== "accepted") {
        say(fill(strings[msg.status] || strings.expired, { name: msg.challenged }), msg.status);
      } else if (mine && msg.status === "expired") {
        say(fill(strings.expired_received, { name: msg.challenger }), msg.status);
      }
    } else if (msg.type === "go" && typeof msg.url === "string" && msg.url.startsWith("/")) {
      if (window.location.pathname !== msg.url) window.location.assign(msg.url);
    } else if (msg.type === "tournament_notice") {
      document.dispatchEvent(new CustomEvent("tournament-notice", { detail: msg })); // tournaments/notices.js
    } else if (msg.type === "error") {
      say(msg.message, msg.code); // the sentence only: the code stays in data-code
    }
  },
  onStatus() {},
});
document.addEventListener("visibilitychange", () => { if (!document.hidden) socket.retryNow(); });
socket.connect();
