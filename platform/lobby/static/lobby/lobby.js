// The lobby's live list of open challenges (docs/protocol.md "Lobby socket"): /ws/lobby/ sends the
// whole list as this player sees it ("seeks") on connect and after each change; Accept and Cancel go
// over the socket when it is open (the forms post without it); "go" opens the new table.
import { ReconnectingSocket } from "../web/socket.js";

const table = document.getElementById("seeks");
const body = table.querySelector("tbody");
const empty = document.getElementById("seeks-empty");
const status = document.getElementById("lobby-status");
const strings = JSON.parse(document.getElementById("lobby-strings").textContent);

function cell(row, text, cls, label) {
  const td = document.createElement("td");
  if (cls) td.className = cls;
  if (label) td.dataset.label = label; // the column's name, shown when the rows stack on a phone
  if (text !== null) td.textContent = text;
  row.appendChild(td);
  return td;
}

function button(label, testid, primary) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = primary ? "button small primary" : "button small";
  b.setAttribute("data-testid", testid);
  b.textContent = label;
  return b;
}

let leaving = false; // a "go" came: the page is on its way to the table

function render(seeks) {
  if (leaving) return;
  body.replaceChildren();
  for (const s of seeks) {
    const row = document.createElement("tr");
    row.setAttribute("data-testid", "seek");
    row.dataset.seek = String(s.id);
    if (s.refusal) { row.className = "greyed"; row.title = s.refusal.message; }
    const who = cell(row, null);
    if (s.creator_url) {
      const a = document.createElement("a");
      a.href = s.creator_url;
      a.textContent = s.creator;
      who.appendChild(a);
    } else {
      who.textContent = s.creator + " ";
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = strings.guest;
      who.appendChild(tag);
    }
    const labels = strings.labels;
    cell(row, s.creator_rating === null ? "—" : String(s.creator_rating), "num", labels.rating);
    cell(row, strings.presets[s.preset] || s.preset, null, labels.rules);
    cell(row, String(s.target), "num", labels.target);
    cell(row, s.turn_timer ? s.turn_timer + " s" : "—", null, labels.turn_timer);
    cell(row, s.rated ? strings.rated : strings.casual);
    cell(row, s.range || "—", null, labels.range);
    const action = cell(row, null);
    if (s.mine) {
      const b = button(strings.cancel, "seek-cancel", false);
      b.addEventListener("click", () => socket.send({ type: "cancel", seek: s.id }));
      action.appendChild(b);
    } else if (s.refusal) {
      const why = document.createElement("span");
      why.className = "muted small";
      why.setAttribute("data-testid", "seek-why");
      why.textContent = s.refusal.message;
      action.appendChild(why);
    } else {
      const b = button(strings.accept, "seek-accept", true);
      b.addEventListener("click", () => {
        b.disabled = true;
        if (!socket.send({ type: "accept", seek: s.id })) b.disabled = false;
      });
      action.appendChild(b);
    }
    body.appendChild(row);
  }
  empty.hidden = seeks.length > 0;
  // The create form shows only without an open seek of one's own: redraw the page when that changed
  // (withdrawn, ended by the server, or opened from another tab).
  const mine = seeks.some((s) => s.mine);
  const formShown = !!document.querySelector("[data-testid=seek-form]");
  const mineShown = !!document.querySelector("[data-testid=my-seek]");
  // Not at once: an accepted seek's "go" may be on its way (it is sent with the change), and a reload
  // would cancel its navigation.
  if ((mine && formShown) || (!mine && mineShown)) {
    setTimeout(() => { if (!leaving) window.location.reload(); }, 2000);
  }
}

const socket = new ReconnectingSocket(table.dataset.ws, {
  onMessage(msg) {
    if (msg.type === "seeks") {
      render(msg.seeks);
      table.dataset.live = "1"; // the list is the server's, live from here on (tests wait for it)
      status.textContent = "";
    } else if (msg.type === "go" && typeof msg.url === "string" && msg.url.startsWith("/")) {
      leaving = true;
      window.location.assign(msg.url);
    } else if (msg.type === "error") {
      status.textContent = msg.message; // the sentence only: the code stays in data-code
      status.setAttribute("data-code", msg.code);
      for (const b of body.querySelectorAll("button")) b.disabled = false;
    }
  },
  onStatus(state) {
    if (state === "retrying") status.textContent = strings.reconnecting;
  },
});

// With the socket open the buttons are the socket's; the forms stay for a page without it.
for (const form of body.querySelectorAll("form")) {
  form.addEventListener("submit", (event) => {
    const accept = form.dataset.seekAccept;
    const cancel = form.dataset.seekCancel;
    const sent = accept ? socket.send({ type: "accept", seek: Number(accept) })
      : socket.send({ type: "cancel", seek: Number(cancel) });
    if (sent) event.preventDefault();
  });
}
document.addEventListener("visibilitychange", () => { if (!document.hidden) socket.retryNow(); });
socket.connect();
