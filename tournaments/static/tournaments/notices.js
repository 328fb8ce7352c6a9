// A member's event notices on every page (docs/tournaments.md "Calendar and reminders"). The server
// renders the unseen ones; lobby's notices socket (/ws/notices/, lobby/notices.js) re-dispatches each
// {"type": "tournament_notice"} push, and each (re)connection, as a "tournament-notice" document event:
// the bar is then fetched again from /tournaments/notices.json (in the page's language), and a notice not
// shown before becomes a browser notification when the member allowed them (the permission is asked only
// by a "Remind me" click: tournaments/remind.js). "Dismiss" posts and removes the notice.
const box = document.getElementById("event-notices");
if (box) {
  const csrf = () => {
    const input = box.querySelector("input[name=csrfmiddlewaretoken]") || document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
    return cookie ? cookie.slice("csrftoken=".length) : "";
  };
  const shown = new Set([...box.querySelectorAll("[data-notice]")].map((el) => Number(el.dataset.notice)));
  let token = csrf();

  function dismiss(notice, el) {
    fetch(notice.dismiss, { method: "POST", credentials: "same-origin", headers: { Accept: "application/json", "X-CSRFToken": token } })
      .catch(() => {});
    el.remove();
    box.hidden = box.children.length === 0;
  }

  function render(list) {
    box.replaceChildren();
    for (const n of list) {
      const p = document.createElement("div");
      p.className = "notice message event-notice";
      p.dataset.notice = String(n.id);
      p.setAttribute("data-testid", "event-notice");
      const a = document.createElement("a");
      a.href = n.url;
      a.textContent = n.text;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "link";
      b.setAttribute("data-testid", "notice-dismiss");
      b.textContent = box.dataset.dismiss || "×";
      b.addEventListener("click", () => dismiss(n, p));
      p.append(a, " ", b);
      box.appendChild(p);
    }
    box.hidden = list.length === 0;
  }

  box.dataset.dismiss = (box.querySelector("[data-testid=notice-dismiss]") || {}).textContent || "";
  // The server-rendered forms work without this script; with it, dismiss without leaving the page.
  box.querySelectorAll("form").forEach((form) => {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      dismiss({ dismiss: form.action }, form.closest("[data-notice]"));
    });
  });

  async function refresh() {
    try {
      const response = await fetch(box.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const data = await response.json();
      render(data.notices);
      for (const n of data.notices) {
        if (shown.has(n.id)) continue;
        shown.add(n.id);
        if ("Notification" in window && Notification.permission === "granted") {
          try { new Notification(n.text, { tag: "tournament-notice-" + n.id }); } catch (err) { /* mobile: the bar shows it */ }
        }
      }
    } catch (err) { /* offline: the next push or page shows it */ }
  }
  if (!token) token = csrf();
  document.addEventListener("tournament-notice", refresh);
}
