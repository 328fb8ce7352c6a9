// The watch page (entry module of replays/watch.html): a public match live, as a third party sees it.
// The server's `watch` messages (replays/watch.py) never carry a concealed card: each player's hand is
// drawn as backs plus the cards they took from the discard pile; the piles are drawn by the table's own
// felt_view.renderPiles. When the match ends the page turns into its replay.
import { cardBack, cardFace } from "../../games/js/cards.js";
import { $, badge, el, setText, show } from "../../games/js/dom.js";
import { playerBadges, renderPiles } from "../../games/js/felt_view.js";
import { has, t, tn } from "../../games/js/i18n.js";
import { renderHandResult } from "../../games/js/result_view.js";
import { ReconnectingSocket } from "../../web/socket.js";
import { actionText, headline, playerName } from "../../games/js/text.js";

const root = $("watch-app");
let state = JSON.parse($("initial-state").textContent);
const ui = { lastTop: undefined, conn: "connecting", refused: null, limit: 0 };
// Refusals of a full audience (docs/protocol.md "Spectators"): shown, and the socket keeps retrying.
const REFUSALS = new Set(["watch_ip_limit", "watch_full"]);
const NOTHING = new Set(); // a spectator has no legal action

const name = (seat) => {
  const p = state.match.players[seat];
  return p ? playerName(p) : t("empty_seat");
};

function renderSeat(seat) {
  const h = state.hand;
  setText(`name-${seat}`, name(seat));
  const b = $(`badges-${seat}`);
  b.replaceChildren();
  const p = state.match.players[seat];
  b.append(...playerBadges(p));
  if (h && h.dealer === seat) b.append(badge(t("dealer")));
  if (h && h.to_act === seat) b.append(badge(t("to_play"), "turn"));
  const known = h ? h.known[seat] : [];
  const count = h ? h.card_counts[seat] : 0;
  const hidden = $(`hidden-${seat}`);
  hidden.replaceChildren(...Array.from({ length: Math.max(0, count - known.length) }, () => cardBack()));
  hidden.setAttribute("aria-label", t("hidden_cards", { name: name(seat), n: count }));
  $(`known-${seat}`).replaceChildren(...known.map((c) => cardFace(c, { small: true })));
}

function renderReveal() {
  const lh = state.last_hand;
  show("reveal", !!lh);
  if (!lh) return;
  const card = el("div", "result-card");
  const body = el("div");
  renderHandResult(body, state, lh, null);
  card.append(body);
  $("reveal").replaceChildren(card);
}

function render() {
  const m = state.match;
  const h = state.hand;
  root.dataset.seq = String(state.seq);
  root.dataset.status = m.status;
  setText("live-badge", m.status === "active" ? t("watch_live") : "");
  renderSeat(0);
  renderSeat(1);
  renderPiles({ ...state, hand: h }, ui, NOTHING);
  const status = $("status");
  if (m.status === "finished") status.textContent = t("watch_over");
  else if (h && h.to_act !== null) status.textContent = t("to_act", { name: name(h.to_act) });
  else status.textContent = "";
  [0, 1].forEach((seat) => {
    setText(`score-name-${seat}`, name(seat));
    setText(`score-${seat}`, String(m.scores[seat]));
  });
  setText("target", tn("target_n", m.target, { n: m.target }));
  setText("rules-name", has("preset_" + m.preset) ? t("preset_" + m.preset) : m.preset);
  setText("hand-number", h ? t("hand_n", { n: h.number }) : "");
  setText("spectators", t("spectators_n", { n: m.spectators }));
  setText("conn", ui.conn === "open" ? t("conn_open") : t("watch_conn_lost"));
  const refused = $("watch-refused");
  refused.hidden = !ui.refused;
  refused.textContent = ui.refused ? t(ui.refused, { n: ui.limit }) : "";
  const lines = [];
  const lh = state.last_hand;
  if (lh) lines.push(`${t("log_hand_over", { n: lh.number })} ${headline(m, lh)}`);
  for (const mv of h ? h.moves : []) lines.push(actionText(m, mv));
  $("log").replaceChildren(...lines.map((text) => el("li", "", text)));
  renderReveal();
}

const socket = new ReconnectingSocket(root.dataset.wsPath, {
  onMessage(msg) {
    if (msg.type === "watch") {
      ui.refused = null;
      state = msg;
      render();
      if (msg.match.status === "finished") {
        socket.stopped = true;
        setTimeout(() => window.location.assign(root.dataset.replayUrl), 1500);
      }
    } else if (msg.type === "spectators") {
      state.match.spectators = msg.count;
      render();
    } else if (msg.type === "error" && REFUSALS.has(msg.code)) {
      ui.refused = msg.code;
      ui.limit = msg.limit;
      render();
    }
  },
  onStatus(status) {
    ui.conn = status;
    render();
  },
});
render();
socket.connect();
