// The waiting screen of a quick-pairing pool: one socket to /ws/pool/<slug>/ (?bot=1 with the house-bot
// checkbox), reopened with backoff by ReconnectingSocket while the wait goes on (a reconnect within the
// server's LEAVE_AFTER keeps the wait). Frames: docs/protocol.md "Pool socket".
import { ReconnectingSocket } from "../web/socket.js";

const root = document.getElementById("pool-wait");
const $ = (id) => root.querySelector(`[data-testid="${id}"]`);
const t = (key) => root.dataset["t" + key.charAt(0).toUpperCase() + key.slice(1)];
const status = $("pool-status");
const waited = $("pool-waited");
const count = $("pool-count");
const bot = $("pool-bot");
const cancel = $("pool-cancel");
const errorLine = $("pool-error");
const back = $("pool-back");
const live = $("pool-live");
let socket = null;
let over = false;
let joined = false; // a `waiting` came on the current socket: later errors refuse a frame, not the join

function finish(message, isError) {
  over = true;
  if (socket) socket.stopped = true;
  status.textContent = isError ? "" : message;
  if (isError) {
    errorLine.textContent = message;
    errorLine.hidden = false;
  }
  cancel.hidden = true;
  bot.disabled = true;
  back.hidden = false;
}

/** The join was refused (on connect: already playing, a playban, already waiting, ...): the screen
 * becomes the reason and the way back; nothing of a wait (status, counters, the bot choice, Cancel). */
function refused(message) {
  finish(message, true);
  live.hidden = true;
}

function onMessage(msg) {
  if (over) return;
  if (msg.type === "waiting") {
    joined = true;
    status.textContent = t("waiting");
    waited.textContent = String(msg.waited);
    count.textContent = String(msg.waiting);
  } else if (msg.type === "paired") {
    over = true;
    socket.stopped = true;
    status.textContent = t("paired");
    location.assign(msg.url);
  } else if (msg.type === "left") {
    finish(msg.reason === "cancelled" ? t("left") : t("disconnected"), false);
    if (msg.reason === "cancelled") location.assign(root.dataset.playUrl);
  } else if (msg.type === "error") {
    if (joined && (msg.code === "bad_frame" || msg.code === "pool_rate_limited")) {
      errorLine.textContent = msg.message; // our own frame was refused: the wait goes on
      errorLine.hidden = false;
      return;
    }
    if (joined) finish(msg.message, true);
    else refused(msg.message);
  }
}

function onStatus(state) {
  if (over) return;
  if (state === "connecting") status.textContent = t("connecting");
  else if (state === "retrying") status.textContent = t("retrying");
  else if (state === "closed") finish(status.textContent, false);
}

function open() {
  if (socket) {
    socket.stopped = true;
    if (socket.ws) socket.ws.close(1000);
  }
  // Each socket's handlers speak only while it is the current one (the one replaced by a change of
  // the checkbox closes later, and must not end the wait on the page).
  const mine = new ReconnectingSocket(`/ws/pool/${root.dataset.slug}/${bot.checked ? "?bot=1" : ""}`, {
    onMessage: (msg) => { if (socket === mine) onMessage(msg); },
    onStatus: (state, code) => { if (socket === mine) onStatus(state, code); },
  });
  socket = mine;
  joined = false;
  socket.connect();
}

bot.addEventListener("change", () => { if (!over) open(); });
cancel.addEventListener("click", () => {
  if (over) return;
  if (!socket || !socket.send({ type: "cancel" })) location.assign(root.dataset.playUrl);
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && socket && !over) socket.retryNow();
});
open();
