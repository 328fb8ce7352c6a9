// Tournament pages: start times in the viewer's time zone, countdowns, and the live part of a
// tournament's page re-fetched on each notice of /ws/tournaments/<id>/.
(function () {
  "use strict";
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
  if (!live) return;
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
  let delay = 1000;
  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + live.dataset.ws);
    socket.onopen = function () { if (delay > 1000) refresh(); delay = 1000; };
    socket.onmessage = refresh;
    socket.onclose = function () { setTimeout(connect, delay); delay = Math.min(delay * 2, 30000); };
  }
  connect();
  // Live match scores move with every hand; a light re-fetch while a round is in play keeps them fresh.
  setInterval(function () { if (live.querySelector("[data-round-playing]")) refresh(); }, 10000);
})();
