// The live table: renders the server's `state` (docs/protocol.md) and sends the player's actions.
// Rules are never computed here: legal actions, melds and deadwood numbers all come from the server,
// and nothing is applied until the server's next `state` says so.
import { cardBack, cardFace, cardLabel, cardText } from "./cards.js";
import { t } from "./i18n.js";
import { enableArrowKeys, renderHand } from "./hand_view.js";
import { headline, renderHandResult, renderMatchEnd, seatName } from "./result_view.js";
import { MatchSocket } from "./socket.js";
import { verifyCommitment } from "./sha256.js";

const root = document.getElementById("table-app");
const $ = (id) => document.getElementById(id);

let state = JSON.parse($("initial-state").textContent);
const ui = {
  sort: localStorage.getItem("gin.sort") || "melds",
  selected: null,
  hover: null,
  pending: null, // {msg}: sent, not yet acked (controls stay disabled; nothing applied locally)
  awaitSeq: null, // after an ack: keep controls disabled until a state with this seq arrives
  newCards: new Set(),
  resultKey: null, // last_hand shown (or skipped): `${number}@${ended_at}`
  resultOpen: false,
  resultUntil: 0,
  matchEndShown: false,
  confirmResign: false,
  log: [],
  commitments: new Map(), // hand number -> commitment seen before the hand ended
  verified: new Map(), // `${number}@${commitment}` -> "ok" | "bad" | "pending"
  conn: "connecting",
  retryIn: 0,
  idCounter: 0,
};
const clientTag = Math.random().toString(36).slice(2, 8);

// ---- sending ---------------------------------------------------------------------------------------
function legalSet() {
  const h = state.hand;
  return new Set(h && h.your_turn && !ui.pending && ui.awaitSeq === null ? h.legal_actions : []);
}

function nextId() {
  ui.idCounter += 1;
  return `c-${clientTag}-${ui.idCounter}`;
}

function act(action) {
  if (!legalSet().has(action)) return;
  const msg = { type: "action", action, seq: state.seq, id: nextId() };
  ui.pending = { msg };
  ui.selected = null;
  socket.send(msg); // if the socket is down, the message is resent after the reconnect's first state
  render();
}

function resign() {
  const msg = { type: "resign", id: nextId() };
  ui.confirmResign = false;
  if (!socket.send(msg)) toast(t("not_connected"), true);
  render();
}

// ---- receiving -------------------------------------------------------------------------------------
function onMessage(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "ack") {
    if (ui.pending && msg.id === ui.pending.msg.id) {
      ui.pending = null;
      if (msg.seq > state.seq) ui.awaitSeq = msg.seq;
    }
    render();
  } else if (msg.type === "error") {
    if (ui.pending && msg.id === ui.pending.msg.id) ui.pending = null;
    toast(errorText(msg), true);
    if (msg.code === "stale_seq" || msg.code === "server_error") socket.send({ type: "sync" });
    render();
  }
}

function errorText(msg) {
  const key = "error_" + msg.code;
  const text = t(key);
  return text === key ? t("error_generic", { code: msg.code }) : text;
}

function onState(s) {
  const prev = state;
  const reconnected = ui.justOpened;
  ui.justOpened = false;
  state = s;
  if (ui.awaitSeq !== null && s.seq >= ui.awaitSeq) ui.awaitSeq = null;
  if (ui.pending) {
    // After a reconnect the server may never have seen the message: resend it unchanged if it still
    // applies (a repeat is answered, not applied twice); otherwise the state already tells the truth.
    if (s.seq === ui.pending.msg.seq && reconnected) socket.send(ui.pending.msg);
    else if (s.seq !== ui.pending.msg.seq) ui.pending = null;
  }
  const h = s.hand;
  const ph = prev && prev.hand;
  if (h && ph && h.number === ph.number && h.cards.length > ph.cards.length) {
    ui.newCards = new Set(h.cards.filter((c) => !ph.cards.includes(c)));
    ui.animateDrawn = true;
  } else if (!h || !ph || h.number !== ph.number || h.cards.length < ph.cards.length) {
    ui.newCards = new Set();
  }
  if (ui.selected && !(h && h.your_turn && h.phase === "discard" && h.cards.includes(ui.selected))) {
    ui.selected = null;
  }
  if (h && h.commitment) ui.commitments.set(h.number, h.commitment);
  if (h && h.last_action && prev && s.seq !== prev.seq) addLog(actionText(h.last_action));
  if (prev && s.last_hand && (!prev.last_hand || prev.last_hand.number !== s.last_hand.number ||
      prev.last_hand.ended_at !== s.last_hand.ended_at)) {
    addLog(t("log_hand_over", { n: s.last_hand.number }) + " " + headlineFor(s));
  }
  maybeShowResult(false);
  render();
}

function headlineFor(s) {
  return s.last_hand ? headline(s.match, s.last_hand) : "";
}

// ---- text ------------------------------------------------------------------------------------------
function nameOf(seat) {
  return seatName(state.match, seat);
}

function actionText(la) {
  const who = nameOf(la.seat);
  const mine = la.seat === state.match.you;
  const [verb, arg] = la.action.split(" ");
  // `card`: the card taken or drawn when this viewer may see it (docs/protocol.md, last_action).
  const seen = la.card ? cardText(la.card) : "";
  const card = arg && arg.length === 2 ? cardText(arg) : seen;
  const key = (base) => (mine ? base + "_you" : base);
  if (verb === "take") return t(key("log_take"), { name: who, card });
  if (verb === "pass") return t(key("log_pass"), { name: who });
  if (verb === "draw" && arg === "stock") {
    return seen ? t("log_draw_stock_you_card", { card: seen }) : t(key("log_draw_stock"), { name: who });
  }
  if (verb === "draw") return t(key("log_draw_discard"), { name: who, card });
  if (verb === "discard") return t(key("log_discard"), { name: who, card });
  if (verb === "knock" && arg) return t(key("log_knock"), { name: who, card });
  if (verb === "knock") return t(key("log_big_gin"), { name: who });
  return `${who}: ${la.action}`;
}

function addLog(text) {
  ui.log.push(text);
  if (ui.log.length > 60) ui.log.shift();
}

// ---- toasts ----------------------------------------------------------------------------------------
function toast(text, isError = false) {
  const box = $("toasts");
  const item = document.createElement("div");
  item.className = "toast" + (isError ? " error" : "");
  item.setAttribute("role", isError ? "alert" : "status");
  item.dataset.testid = "toast";
  item.textContent = text;
  box.append(item);
  setTimeout(() => item.remove(), 4000);
}

// ---- hand result and match end ---------------------------------------------------------------------
function resultKeyOf(lh) {
  return `${lh.number}@${lh.ended_at}`;
}

function maybeShowResult(initial) {
  const lh = state.last_hand;
  if (lh && resultKeyOf(lh) !== ui.resultKey) {
    ui.resultKey = resultKeyOf(lh);
    // A result the player already closed stays closed across a reload.
    if (initial && sessionStorage.getItem(dismissedKey()) === ui.resultKey) initial = "dismissed";
    // Shown about 8 s (the server's pause): the length comes from the server's own two timestamps so a
    // wrong client clock cannot shorten it; on a page load the remaining time is what is left of it.
    let ms = Date.parse(lh.show_until) - Date.parse(lh.ended_at);
    if (!(ms > 0 && ms < 60000)) ms = 8000;
    if (initial) ms = Math.min(ms, Date.parse(lh.show_until) - Date.now());
    if (initial === "dismissed") ms = 0;
    if (!lh.result) ms = 0; // a resignation mid-hand: straight to the match-end screen
    verify(lh);
    if (ms > 300) {
      ui.resultOpen = true;
      ui.resultUntil = Date.now() + ms;
      $("result-continue").focus({ preventScroll: true });
    }
  }
  if (!ui.resultOpen && isOver() && !ui.matchEndShown) ui.matchEndShown = true;
}

function isOver() {
  return state.match.status === "finished" || state.match.status === "aborted";
}

function dismissedKey() {
  return `gin.result-closed.${state.match.id}`;
}

function closeResult() {
  ui.resultOpen = false;
  if (ui.resultKey) sessionStorage.setItem(dismissedKey(), ui.resultKey);
  if (isOver()) ui.matchEndShown = true;
  render();
}

// ---- fair shuffle ----------------------------------------------------------------------------------
function verifyKey(lh) {
  return `${lh.number}@${lh.commitment}`;
}

async function verify(lh) {
  const key = verifyKey(lh);
  if (ui.verified.has(key) || !lh.deck || !lh.salt) return;
  ui.verified.set(key, "pending");
  let ok = false;
  try {
    ok = await verifyCommitment(lh.deck, lh.salt, lh.commitment);
    const announced = ui.commitments.get(lh.number);
    // The hash shown during the hand must be the one revealed (when this page saw it).
    if (announced && announced !== lh.commitment) ok = false;
  } catch {
    ok = false;
  }
  ui.verified.set(key, ok ? "ok" : "bad");
  render();
}

function verifyElement(lh) {
  const box = document.createElement("div");
  box.className = "shuffle-check";
  const status = ui.verified.get(verifyKey(lh)) || "pending";
  const line = document.createElement("p");
  const label = document.createElement("span");
  label.textContent = t("shuffle_check") + ": ";
  const v = document.createElement("span");
  v.className = "verify " + (status === "ok" ? "ok" : status === "bad" ? "bad" : "");
  v.dataset.testid = "verify-status";
  v.textContent = t(status === "ok" ? "verified" : status === "bad" ? "verify_failed" : "verifying");
  line.append(label, v);
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = t("show_deck");
  const dl = document.createElement("p");
  dl.className = "hash";
  dl.textContent = `${t("commitment")}: ${lh.commitment}\n`;
  const salt = document.createElement("p");
  salt.className = "hash";
  salt.textContent = `${t("salt")}: ${lh.salt}`;
  const deck = document.createElement("p");
  deck.className = "hash";
  deck.textContent = `${t("deck_order")}: ${(lh.deck || []).join(" ")}`;
  const how = document.createElement("p");
  how.className = "meta";
  how.textContent = t("verify_how");
  details.append(summary, dl, salt, deck, how);
  box.append(line, details);
  return box;
}

// ---- rendering -------------------------------------------------------------------------------------
function setText(id, text) {
  const e = $(id);
  if (e.textContent !== text) e.textContent = text;
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function render() {
  const m = state.match;
  const h = state.hand;
  const legal = legalSet();
  root.dataset.seq = String(state.seq);
  root.dataset.phase = h ? h.phase : m.status;
  root.dataset.yourTurn = h && h.your_turn && !ui.pending && ui.awaitSeq === null ? "1" : "0";
  root.dataset.status = m.status;
  root.dataset.busy = ui.pending || ui.awaitSeq !== null ? "1" : "0";
  renderSeats(m, h);
  renderPiles(h, legal);
  renderMyHand(h, legal);
  renderActions(h, legal);
  renderStatus(m, h, legal);
  renderSide(m, h);
  renderOverlays(m);
}

function badge(text, cls = "") {
  const b = document.createElement("span");
  b.className = "badge " + cls;
  b.textContent = text;
  return b;
}

function renderSeats(m, h) {
  const opp = 1 - m.you;
  const op = m.players[opp];
  setText("opp-name", op ? op.name : t("empty_seat"));
  const ob = $("opp-badges");
  ob.replaceChildren();
  if (op && op.is_bot) ob.append(badge(t("bot_level", { n: op.bot_level })));
  if (op && op.is_guest) ob.append(badge(t("guest")));
  if (h && h.dealer === opp) ob.append(badge(t("dealer")));
  if (h && h.to_act === opp && h.phase !== "ended") ob.append(badge(t("their_turn"), "turn"));
  $("opp-seat").classList.toggle("to-act", !!(h && h.to_act === opp));
  const oh = $("opp-hand");
  const n = h ? h.opponent_card_count : 0;
  if (oh.childElementCount !== n) {
    oh.replaceChildren(...Array.from({ length: n }, () => cardBack()));
  }
  oh.setAttribute("aria-label", t("opp_cards", { name: op ? op.name : "", n }));
  setText("opp-count", h ? t("n_cards", { n }) : "");
  $("opp-count").hidden = !h;

  const me = m.players[m.you];
  setText("my-name", me ? me.name : "");
  const mb = $("my-badges");
  mb.replaceChildren();
  if (h && h.dealer === m.you) mb.append(badge(t("dealer")));
  if (h && h.your_turn && h.phase !== "ended") mb.append(badge(t("your_turn"), "turn"));
  $("my-seat").classList.toggle("to-act", !!(h && h.your_turn));
}

function renderPiles(h, legal) {
  const stockBtn = $("stock-button");
  const stack = $("stock-stack");
  const count = h ? h.stock_count : 0;
  stack.replaceChildren();
  if (h && count > 0) {
    for (let i = Math.min(3, count) - 1; i >= 0; i--) {
      const b = cardBack();
      b.style.transform = `translate(${-i * 2}px, ${-i * 2}px)`;
      stack.append(b);
    }
  } else {
    stack.append(Object.assign(document.createElement("div"), { className: "empty-slot" }));
  }
  const badgeEl = document.createElement("span");
  badgeEl.className = "stock-count";
  badgeEl.dataset.testid = "stock-count";
  badgeEl.textContent = String(count);
  stack.append(badgeEl);
  const canStock = legal.has("draw stock");
  stockBtn.disabled = !canStock;
  stockBtn.classList.toggle("can-act", canStock);
  stockBtn.setAttribute("aria-label", t(canStock ? "stock_draw_label" : "stock_label", { n: count }));
  setText("stock-label", t("stock_n", { n: count }));

  const discBtn = $("discard-button");
  const fan = $("discard-fan");
  const pile = h ? h.discard_pile : [];
  fan.replaceChildren();
  if (pile.length) {
    const shown = pile.slice(-6);
    shown.forEach((c, i) => {
      const face = cardFace(c);
      if (i < shown.length - 1) face.classList.add("under");
      else {
        face.classList.add("top");
        // A new top card (someone just discarded) arrives with a short slide, once.
        if (ui.lastTop !== undefined && ui.lastTop !== c) face.classList.add("fresh");
      }
      face.setAttribute("aria-hidden", "true");
      fan.append(face);
    });
  } else {
    fan.append(Object.assign(document.createElement("div"), { className: "empty-slot" }));
  }
  ui.lastTop = pile.length ? pile[pile.length - 1] : null;
  const canTake = legal.has("take");
  const canDrawDiscard = legal.has("draw discard");
  discBtn.disabled = !(canTake || canDrawDiscard);
  discBtn.classList.toggle("can-act", canTake || canDrawDiscard);
  const top = h && h.upcard;
  let label = top ? t("discard_top_label", { card: cardLabel(top), n: pile.length }) : t("discard_empty");
  if (canTake) label = t("take_upcard_label", { card: cardLabel(top) });
  else if (canDrawDiscard) label = t("draw_discard_label", { card: cardLabel(top) });
  discBtn.setAttribute("aria-label", label);
  setText("discard-label", t("discard_n", { n: pile.length }));
}

function myDiscardTurn(h, legal) {
  return !!(h && h.phase === "discard" && h.your_turn && legal.size > 0);
}

function renderMyHand(h, legal) {
  const container = $("my-hand");
  renderHand(container, h, {
    mode: ui.sort,
    selected: ui.selected,
    newCards: ui.newCards,
    animate: !!ui.animateDrawn,
    myDiscardTurn: myDiscardTurn(h, legal),
    legal,
    onPick: pickCard,
    onHover: (card) => {
      ui.hover = card;
      renderHint();
    },
  });
  ui.animateDrawn = false;
  const meter = $("deadwood-meter");
  meter.hidden = !h;
  if (h) {
    setText("deadwood-count", String(h.deadwood));
    meter.classList.toggle("can-knock", !!h.can_knock);
  }
  for (const b of document.querySelectorAll("[data-sort]")) {
    b.setAttribute("aria-pressed", b.dataset.sort === ui.sort ? "true" : "false");
  }
  renderHint();
}

function renderHint() {
  const h = state.hand;
  const card = ui.hover || ui.selected;
  const after = h && h.deadwood_if_discarded;
  let text = "";
  if (h && card && after && card in after) text = t("hint_after", { card: cardText(card), n: after[card] });
  else if (h && card && card === h.taken_card && h.phase === "discard") text = t("just_taken");
  setText("hover-hint", text);
}

function pickCard(card) {
  const h = state.hand;
  const legal = legalSet();
  if (!myDiscardTurn(h, legal)) {
    if (h && h.your_turn && h.phase === "draw") toast(t("draw_first"));
    return;
  }
  if (card === h.taken_card) {
    toast(t("just_taken"), true);
    return;
  }
  if (!legal.has("discard " + card) && !legal.has("knock " + card)) return;
  if (ui.selected === card && legal.has("discard " + card)) {
    act("discard " + card);
    return;
  }
  ui.selected = card;
  render();
  // Keep the keyboard focus on the card that was just picked (the hand was re-drawn).
  const again = $("my-hand").querySelector(`[data-card="${card}"]`);
  if (again) again.focus({ preventScroll: true });
}

function renderActions(h, legal) {
  const offer = !!(h && (h.phase === "offer_nondealer" || h.phase === "offer_dealer") && h.your_turn);
  show("btn-take", offer);
  show("btn-pass", offer);
  $("btn-take").disabled = !legal.has("take");
  $("btn-pass").disabled = !legal.has("pass");
  if (h && h.upcard) setText("btn-take", t("take_card", { card: cardText(h.upcard) }));

  const discarding = !!(h && h.phase === "discard" && h.your_turn);
  const sel = ui.selected;
  show("btn-discard", discarding);
  show("btn-knock", discarding);
  $("btn-discard").disabled = !(sel && legal.has("discard " + sel));
  setText("btn-discard", sel ? t("discard_card", { card: cardText(sel) }) : t("discard"));
  const knockOk = !!(sel && legal.has("knock " + sel));
  $("btn-knock").disabled = !knockOk;
  const gin = knockOk && h.deadwood_if_discarded && h.deadwood_if_discarded[sel] === 0;
  setText("btn-knock", gin ? t("gin") : t("knock"));
  $("btn-knock").classList.toggle("knock", knockOk);
  show("btn-big-gin", discarding && legal.has("knock"));
  $("btn-big-gin").disabled = !legal.has("knock");
}

function renderStatus(m, h, legal) {
  let main = "";
  let sub = "";
  const opp = nameOf(1 - m.you);
  if (m.status === "waiting") main = t("status_waiting");
  else if (isOver()) main = t("status_over");
  else if (!h) main = "";
  else if (ui.pending || ui.awaitSeq !== null) main = t("status_sending");
  else if (h.your_turn) {
    if (h.phase === "offer_nondealer" || h.phase === "offer_dealer") {
      main = t("status_offer", { card: cardText(h.upcard) });
    } else if (h.phase === "draw") {
      main = legal.has("draw discard") ? t("status_draw") : t("status_draw_stock_only");
    } else if (h.phase === "discard") {
      main = t("status_discard");
      if (legal.has("knock")) sub = t("status_can_big_gin");
      else if (h.can_knock) {
        const after = h.deadwood_if_discarded || {};
        const best = Math.min(...h.legal_actions.filter((a) => a.startsWith("knock ")).map((a) => after[a.slice(6)]));
        sub = best === 0 ? t("status_can_gin") : t("status_can_knock");
      }
      if (h.taken_card) sub = (sub ? sub + " " : "") + t("status_taken", { card: cardText(h.taken_card) });
    }
  } else if (h.phase === "offer_nondealer" || h.phase === "offer_dealer") {
    main = t("status_opp_offer", { name: opp });
  } else {
    main = t("status_opp_turn", { name: opp });
  }
  if (!sub && h && h.last_action && h.last_action.seat !== m.you) sub = actionText(h.last_action);
  const status = $("status");
  status.replaceChildren(document.createTextNode(main));
  if (sub) {
    const s = document.createElement("span");
    s.className = "sub";
    s.textContent = sub;
    status.append(s);
  }
}

function fmtClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function renderSide(m, h) {
  const you = m.you;
  const rows = [you, 1 - you];
  rows.forEach((seat, i) => {
    setText(`score-name-${i}`, seat === you ? t("you") : (m.players[seat] ? m.players[seat].name : t("empty_seat")));
    setText(`score-${i}`, String(m.scores[seat]));
    $(`score-bar-${i}`).style.width = `${Math.min(100, (100 * m.scores[seat]) / m.target)}%`;
  });
  setText("target", t("target_n", { n: m.target }));
  setText("rules-name", t("preset_" + m.preset));
  setText("hand-number", h ? t("hand_n", { n: h.number }) : "");
  const limit = h ? h.knock_limit : null;
  setText("knock-limit", h ? (limit === 0 ? t("knock_limit_gin") : t("knock_limit_n", { n: limit })) +
    (h.multiplier > 1 ? " · " + t("doubled") : "") : "");
  $("hand-info").hidden = !h;
  $("commitment-line").hidden = !(h && h.commitment);
  const timerRow = $("timer-row");
  timerRow.hidden = !m.turn_timer_seconds || isOver();
  if (m.turn_timer_seconds) setText("timer-seconds", t("timer_per_move", { n: m.turn_timer_seconds }));
  updateTimer();

  // fair shuffle
  setText("commitment", h && h.commitment ? h.commitment : "—");
  setText("commitment-hand", h ? t("hand_n", { n: h.number }) : "");
  const lh = state.last_hand;
  const prevBox = $("last-verify");
  prevBox.replaceChildren();
  if (lh) {
    const p = document.createElement("p");
    const status = ui.verified.get(verifyKey(lh)) || "pending";
    p.append(document.createTextNode(t("hand_n", { n: lh.number }) + ": "));
    const v = document.createElement("span");
    v.className = "verify " + (status === "ok" ? "ok" : status === "bad" ? "bad" : "");
    v.textContent = t(status === "ok" ? "verified" : status === "bad" ? "verify_failed" : "verifying");
    p.append(v, " ");
    const again = document.createElement("button");
    again.type = "button";
    again.className = "linkish";
    again.textContent = t("show_last_hand");
    again.addEventListener("click", () => {
      ui.resultOpen = true;
      ui.resultUntil = 0; // reopened by hand: stays until closed
      render();
    });
    p.append(again);
    prevBox.append(p);
  }

  // log
  const log = $("log");
  log.replaceChildren(...ui.log.slice(-30).map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  log.scrollTop = log.scrollHeight;

  // resign
  const over = isOver() || m.status === "waiting";
  $("btn-resign").hidden = over || ui.confirmResign;
  $("resign-confirm").hidden = over || !ui.confirmResign;

  const conn = $("conn");
  conn.classList.toggle("down", ui.conn !== "open");
  conn.textContent =
    ui.conn === "open" ? t("conn_open") :
    ui.conn === "retrying" ? t("conn_retrying", { s: Math.ceil(ui.retryIn / 1000) }) :
    ui.conn === "closed" ? t("conn_closed") : t("conn_connecting");
}

function updateTimer() {
  const m = state.match;
  const el = $("timer");
  const felt = $("felt-timer");
  if (!m.turn_timer_seconds || !m.turn_deadline || isOver()) {
    el.textContent = "";
    felt.hidden = true;
    return;
  }
  const left = Date.parse(m.turn_deadline) - Date.now();
  const h = state.hand;
  const whose = h && h.your_turn ? t("you") : nameOf(1 - m.you);
  el.textContent = `${whose}: ${fmtClock(left)}`;
  const low = left < 6000 && !!(h && h.your_turn);
  el.classList.toggle("low", low);
  felt.hidden = false;
  felt.textContent = `${whose}: ${fmtClock(left)}`;
  felt.classList.toggle("low", low);
}

function renderOverlays(m) {
  const lh = state.last_hand;
  const resultVisible = ui.resultOpen && !!lh;
  show("hand-result", resultVisible);
  if (resultVisible) {
    renderHandResult($("result-body"), state, lh, verifyElement(lh));
    setText("result-continue", isOver() ? t("see_final_score") : (state.hand ? t("continue") : t("close")));
    updateCountdown();
  }
  const over = isOver() && ui.matchEndShown && !resultVisible;
  show("match-end", over);
  if (over) {
    renderMatchEnd($("match-end-body"), state);
    const again = $("play-again-form");
    const bot = m.players[1 - m.you];
    if (again) {
      again.hidden = !(bot && bot.is_bot);
      if (bot && bot.is_bot) {
        again.elements.level.value = String(bot.bot_level);
        again.elements.preset.value = m.preset;
        again.elements.target.value = String(m.target);
      }
    }
    $("play-again-friend").hidden = !!(bot && bot.is_bot);
    $("end-last-hand").hidden = !state.last_hand;
  }
  show("waiting", m.status === "waiting");
  if (m.status === "waiting") {
    const url = m.invite_url || root.dataset.inviteUrl || "";
    $("invite-url").value = url;
  }
}

function updateCountdown() {
  const cd = $("result-countdown");
  if (!ui.resultOpen || !ui.resultUntil) {
    cd.textContent = "";
    return;
  }
  const left = ui.resultUntil - Date.now();
  if (left <= 0) {
    closeResult();
    return;
  }
  cd.textContent = isOver()
    ? t("final_in", { s: Math.ceil(left / 1000) })
    : t("next_hand_in", { s: Math.ceil(left / 1000) });
}

// ---- wiring ----------------------------------------------------------------------------------------

$("stock-button").addEventListener("click", () => act("draw stock"));
$("discard-button").addEventListener("click", () => {
  const legal = legalSet();
  if (legal.has("take")) act("take");
  else act("draw discard");
});
$("btn-take").addEventListener("click", () => act("take"));
$("btn-pass").addEventListener("click", () => act("pass"));
$("btn-discard").addEventListener("click", () => ui.selected && act("discard " + ui.selected));
$("btn-knock").addEventListener("click", () => ui.selected && act("knock " + ui.selected));
$("btn-big-gin").addEventListener("click", () => act("knock"));
$("btn-resign").addEventListener("click", () => {
  ui.confirmResign = true;
  render();
  $("btn-resign-yes").focus();
});
$("btn-resign-yes").addEventListener("click", resign);
$("btn-resign-no").addEventListener("click", () => {
  ui.confirmResign = false;
  render();
});
$("result-continue").addEventListener("click", closeResult);
$("end-last-hand").addEventListener("click", () => {
  ui.resultOpen = true;
  ui.resultUntil = 0;
  render();
});
for (const b of document.querySelectorAll("[data-sort]")) {
  b.addEventListener("click", () => {
    ui.sort = b.dataset.sort;
    localStorage.setItem("gin.sort", ui.sort);
    render();
  });
}
const copyBtn = $("invite-copy");
if (copyBtn) {
  copyBtn.addEventListener("click", async () => {
    const input = $("invite-url");
    try {
      await navigator.clipboard.writeText(input.value);
      toast(t("copied"));
    } catch {
      input.select();
    }
  });
}
enableArrowKeys($("my-hand"));
document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  if (event.key === "Escape") {
    if (ui.resultOpen) closeResult();
    else if (ui.selected) {
      ui.selected = null;
      render();
    }
  }
});

const socket = new MatchSocket(root.dataset.wsPath, {
  onMessage,
  onStatus(status, arg) {
    ui.conn = status;
    if (status === "open") ui.justOpened = true;
    if (status === "retrying") ui.retryIn = arg;
    if (status === "closed") toast(t("conn_closed"), true);
    render();
  },
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") socket.retryNow();
});
window.addEventListener("online", () => socket.retryNow());

setInterval(() => {
  updateTimer();
  if (ui.resultOpen) updateCountdown();
}, 250);

maybeShowResult(true);
if (state.hand && state.hand.commitment) ui.commitments.set(state.hand.number, state.hand.commitment);
render();
socket.connect();
