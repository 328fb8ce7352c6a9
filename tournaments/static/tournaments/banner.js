// Site-wide "Your round k match is ready" banner (docs/tournaments.md "Live pages").
// A small WebSocket (/ws/tournaments/me/) pushes a notice when one of the user's rounds starts; the
// banner's text and link come from /tournaments/banner.json, fetched at load, on each notice, and when
// the tab comes back into view (a notice missed while the socket was down is not lost).
(function () {
  "use strict";
  const box = document.getElementById("tournament-banner");
  if (!box) return;
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
  let delay = 1000;
  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + "/ws/tournaments/me/");
    socket.onopen = function () { delay = 1000; refresh(); };
    socket.onmessage = refresh;
    socket.onclose = function (event) {
      if (event.code === 4401) return;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) refresh(); });
  refresh();
  connect();
})();
