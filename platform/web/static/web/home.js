// The home page's live numbers: /ws/home/ (docs/protocol.md "Home socket") through the site's
// reconnecting socket. Each `home` message carries every number; this only writes them into the page
// (text only: names go in with textContent, never as HTML). Each number's noun follows it in the right
// plural form of the page language (the template's .i18n-strings hold both forms).
import { tn } from "../games/js/i18n.js";
import { playerName } from "../games/js/text.js";
import { ReconnectingSocket } from "../web/socket.js";

const root = document.getElementById("home-live");

function setText(el, value) {
  if (el && el.textContent !== String(value)) el.textContent = String(value);
}

function showLiveMatch(match) {
  const box = document.getElementById("live-match");
  const none = document.getElementById("no-live-match");
  if (!box || !none) return;
  box.hidden = !match;
  none.hidden = !!match;
  if (!match) return;
  for (const seat of [0, 1]) {
    const player = match.players[seat] || { name: "?", rating: "" };
    const nameBox = box.querySelector(`[data-live-player="${seat}"]`);
    if (nameBox) {
      // The same shape as the template's player_name filter: a bounded name with its title.
      const span = document.createElement("span");
      span.className = "player-name";
      const name = player.is_bot ? playerName(player) : player.name; // a house bot: in the page language
      span.title = name;
      span.textContent = name;
      nameBox.replaceChildren(span);
    }
    setText(box.querySelector(`[data-live-rating="${seat}"]`), player.rating);
  }
  const watch = box.querySelector("[data-live-watch]");
  if (watch && typeof match.url === "string" && match.url.startsWith("/watch/")) watch.href = match.url;
}

function apply(msg) {
  const note = document.getElementById("home-live-error");
  if (msg.type === "error" && msg.code === "home_ip_limit") {
    if (note) note.hidden = false;
    return;
  }
  if (msg.type !== "home") return;
  if (note) note.hidden = true;
  for (const key of ["players_online", "matches_in_play"]) {
    setText(root.querySelector(`[data-live="${key}"]`), msg[key]);
    setText(root.querySelector(`[data-live-noun="${key}"]`), tn(key, msg[key]));
  }
  for (const pool of msg.pools || []) {
    document.querySelectorAll("[data-pool-waiting]").forEach((el) => {
      if (el.dataset.poolWaiting === pool.slug) setText(el, pool.waiting);
    });
    document.querySelectorAll("[data-pool-noun]").forEach((el) => {
      if (el.dataset.poolNoun === pool.slug) setText(el, tn("players_waiting", pool.waiting));
    });
  }
  showLiveMatch(msg.live_match);
  root.dataset.updates = String(Number(root.dataset.updates || 0) + 1); // tests: messages applied
}

if (root) {
  const socket = new ReconnectingSocket(root.dataset.ws, {
    onMessage: apply,
    onStatus: (status) => { root.dataset.socket = status; },
  });
  socket.connect();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") socket.retryNow();
  });
}
