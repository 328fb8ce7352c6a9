// Site-wide "Your round k match is ready" banner (docs/tournaments.md "Live pages").
// A small WebSocket (/ws/tournaments/me/, the site's reconnecting socket: 1 s doubling to 30 s, without
// jitter, restarted on open; final on 4401, no session) pushes a notice when one of the user's rounds
// starts; the banner's text and link come from /tournaments/banner.json, fetched at load, on each
// (re)open and notice, and when the tab comes back into view (a notice missed while the socket was
// down is not lost).
import { ReconnectingSocket } from "../web/socket.js";

const box = document.getElementById("tournament-banner");
if (box) {
  const link = box.querySelector("a");
  async function refresh() {
    try {
      const response = await fetch(box.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const data = await response.json();
      const here = data.match_url && window.location.pathname === data.match_url;
      if (!data.match_url || here) { box.hidden = true; return; }
      link.textContent = data.text + " · " + data.tournament;
      link.href = data.match_url;
      box.hidden = false;
    } catch (err) { /* offline: the next notice or focus retries */ }
  }
  const socket = new ReconnectingSocket("/ws/tournaments/me/", {
    onMessage: refresh,
    onStatus(status) { if (status === "open") refresh(); },
  }, { minDelay: 1000, maxDelay: 30000, jitter: 0, fatalCodes: [4401], resetOn: "open" });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) refresh(); });
  refresh();
  socket.connect();
}
