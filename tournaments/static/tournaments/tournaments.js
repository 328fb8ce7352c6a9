// Tournament pages: start times in the viewer's time zone, countdowns, and the live part of a
// tournament's page re-fetched on each notice of /ws/tournaments/<id>/ (the site's reconnecting socket:
// 1 s doubling to 30 s, without jitter, restarted on open; never final).
import { ReconnectingSocket } from "../web/socket.js";

const lang = document.documentElement.lang || undefined;
function localTimes(root) {
  root.querySelectorAll("time[data-local]").forEach(function (el) {
    const when = new Date(el.getAttribute("datetime"));
    el.textContent = when.toLocaleString(lang, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  });
}
// "1 h 05 min", "15 min 09 s", "42 s": with units, so "Starts in 18:41" is never read as a clock time
// (fresh-clone trial); h, min and s are written the same in English and Portuguese.
function countdownText(left) {
  const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
  if (h) return h + " h " + String(m).padStart(2, "0") + " min";
  if (m) return m + " min " + String(s).padStart(2, "0") + " s";
  return s + " s";
}
function countdowns() {
  document.querySelectorAll("[data-countdown]").forEach(function (el) {
    const left = Math.max(0, Math.round((new Date(el.dataset.countdown) - Date.now()) / 1000));
    el.textContent = countdownText(left);
  });
}
localTimes(document);
countdowns();
setInterval(countdowns, 1000);
const live = document.getElementById("tournament-live");
if (live) {
  let pending = false;
  async function refresh() {
    if (pending) return;
    pending = true;
    try {
      const response = await fetch(live.dataset.url, { credentials: "same-origin" });
      if (response.ok) { live.innerHTML = await response.text(); localTimes(live); countdowns(); }
    } catch (err) { /* the next notice retries */ }
    pending = false;
  }
  let dropped = false; // a reopened socket may have missed notices: re-fetch once it is back
  const socket = new ReconnectingSocket(live.dataset.ws, {
    onMessage: refresh,
    onStatus(status) {
      if (status === "retrying") dropped = true;
      else if (status === "open" && dropped) { dropped = false; refresh(); }
    },
  }, { minDelay: 1000, maxDelay: 30000, jitter: 0, fatalCodes: [], resetOn: "open" });
  socket.connect();
  // Live match scores move with every hand; a light re-fetch while a round is in play keeps them fresh.
  setInterval(function () { if (live.querySelector("[data-round-playing]")) refresh(); }, 10000);
}
