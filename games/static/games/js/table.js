// The live table (entry module of games/table.html): keeps the server's latest `state`
// (docs/protocol.md), sends the player's actions and re-renders. Rules are never computed here: legal
// actions, melds and deadwood numbers all come from the server, and nothing is applied until the
// server's next `state` says so. Views: felt_view.js, hand_view.js, side_view.js, result_view.js.
import { ReconnectingSocket } from "../../web/socket.js";
import { cardText } from "./cards.js";
import { QuickChat } from "./chat_view.js";
import { $, fitOverlay, setText, show, store, stored } from "./dom.js";
import { ShuffleChecks } from "./fairness.js";
import { renderActions, renderPiles, renderSeats, renderStatus } from "./felt_view.js";
import { StateFrames } from "./frames.js";
import { enableArrowKeys, renderHand } from "./hand_view.js";
import { has, t, tn } from "./i18n.js";
import { fetchRating, renderRatingLine } from "./rating_view.js";
import { renderRematch } from "./rematch_view.js";
import { renderHandResult, renderMatchEnd } from "./result_view.js";
import { renderSide, updateTimer } from "./side_view.js";
import { Sounds, soundFor } from "./sound.js";
import { errorText, isOver } from "./text.js";

const root = $("table-app");
const baseTitle = document.title;
let state = JSON.parse($("initial-state").textContent);
const ui = {
  sort: stored("localStorage", "gin.sort") || "melds", // "melds" | "suit" | "rank"
  selected: null, // the card picked for discarding (discard phase, own turn)
  hover: null, // the card pointed at
  pending: null, // {msg, on}: sent, not yet answered (controls stay disabled; nothing applied locally);
  // on: the number of the socket (ui.opens) it last went out on, null while it has gone out on none
  opens: 0, // sockets opened so far (the current one's number)
  awaitSeq: null, // after an ack: controls stay disabled until a state with this seq arrives
  justOpened: false, // the socket (re)opened and its first state has not come yet
  newCards: new Set(), // cards that came into the hand with the latest state (marked)
  animateDrawn: false,
  lastTop: undefined, // top of the discard pile at the previous render
  resultKey: null, // the last_hand shown or skipped: `${number}@${ended_at}`
  resultOpen: false,
  resultUntil: 0, // when the result closes by itself (0: stays until closed)
  focusResult: false,
  matchEndShown: false,
  confirmResign: false,
  conn: "connecting",
  loggedOut: false, // the socket was refused for want of a session (not_authenticated, 4401): logged out
  retryIn: 0,
  idCounter: 0,
  rating: null, // this seat's `rating` message (docs/protocol.md), once the rating task has run
  ratingAsked: 0, // GET /ratings/match/<id>.json attempts (for a table opened after the push)
  ratingAsking: false,
  rematch: null, // the latest `rematch` message (friend matches that are over; docs/protocol.md)
  rematchSent: null, // the id of a rematch message sent and not answered yet
  gone: null, // the latest `opponent_gone` message with the opponent gone, and `at` (Date.now() on arrival)
  claimSent: null, // the id of a `claim` sent and not answered yet
};
const frames = new StateFrames(); // what this socket's state frames left out, put back (frames.js)
const checks = new ShuffleChecks(() => render(), root.dataset.verifyUrl);
const sounds = new Sounds();
const clientTag = Math.random().toString(36).slice(2, 8);

// ---- sending ---------------------------------------------------------------------------------------
function legalSet() {
  const h = state.hand;
  // A socket closed for good (logged out, no longer seated) offers no move: none could be sent.
  const can = h && h.your_turn && !ui.pending && ui.awaitSeq === null && ui.conn !== "closed";
  return new Set(can ? h.legal_actions : []);
}

function nextId() {
  ui.idCounter += 1;
  return `c-${clientTag}-${ui.idCounter}`;
}

/** Send one action (canonical string) if the server listed it as legal; render nothing optimistic. */
function act(action) {
  if (!legalSet().has(action)) return;
  const msg = { type: "action", action, seq: state.seq, id: nextId() };
  // If the socket is down it is sent after the reconnect's first state (a move made from the page's
  // own state before the socket is up); sent on the open socket, that first state does not send it again.
  ui.pending = { msg, on: socket.send(msg) ? ui.opens : null };
  ui.selected = null;
  resendLater(msg);
  render();
}

/** No answer after a while: send the same message again (a repeated id is answered, never replayed). */
function resendLater(msg) {
  setTimeout(() => {
    if (ui.pending && ui.pending.msg === msg) {
      if (socket.send(msg)) ui.pending.on = ui.opens;
      resendLater(msg);
    }
  }, 6000);
}

/** Offer, cancel, accept or decline a rematch (``kind``: offer | cancel | accept | decline). */
function sendRematch(kind) {
  const id = nextId();
  if (!socket.send({ type: `rematch_${kind}`, id })) {
    toast(t("not_connected"), true);
    return;
  }
  ui.rematchSent = id;
  render();
}

/** A `rematch` message: keep it; when the rematch was made while this page is open, go to it (both
 * players land on the new table). A page opened later shows a link instead. */
function onRematch(msg) {
  if (msg.match_id !== state.match.id) return;
  const before = ui.rematch;
  ui.rematch = msg;
  ui.rematchSent = null;
  const theirs = (r) => !!(r && r.offer && r.offer.status === "open" && r.offer.by !== state.match.you);
  if (theirs(msg) && !theirs(before)) sounds.play("turn"); // an offer just came in
  if (msg.new_match && before && !before.new_match) {
    window.location.assign(msg.new_match.url);
    return;
  }
  render();
}

/** Claim the match of an opponent who left (`claim`, docs/protocol.md "Leaving"). */
function claim() {
  const id = nextId();
  if (!socket.send({ type: "claim", id })) {
    toast(t("not_connected"), true);
    return;
  }
  ui.claimSent = id;
  render();
}

/** The "opponent gone" box: a countdown until a claim is allowed, then the claim button (the server
 * decides; the countdown only runs from the seconds it sent). */
function renderGone() {
  const g = ui.gone;
  const elapsed = g ? (Date.now() - g.at) / 1000 : 0;
  // (the server tells only once the opponent has been gone 10 s: a reload is no leave)
  const visible = !!g && state.match.status === "active";
  show("opponent-gone", visible);
  if (!visible) return;
  const left = Math.max(0, Math.ceil(g.claim_in - elapsed));
  const win = g.claim === "win";
  const waiting = tn(win ? "opponent_gone_wait_win" : "opponent_gone_wait_end", left, { s: left });
  setText("opponent-gone-text", left > 0 ? waiting : t(win ? "opponent_gone_claim_win" : "opponent_gone_claim_end"));
  const btn = $("btn-claim");
  btn.hidden = left > 0;
  btn.textContent = t(win ? "claim_win" : "claim_end");
  btn.disabled = ui.claimSent !== null || ui.conn !== "open";
}

function resign() {
  ui.confirmResign = false;
  if (!socket.send({ type: "resign", id: nextId() })) toast(t("not_connected"), true);
  render();
}

// ---- receiving -------------------------------------------------------------------------------------
function onMessage(msg) {
  if (msg.type === "state") onFrame(msg);
  else if (msg.type === "spectators") showSpectators(msg.count);
  else if (msg.type === "rematch") onRematch(msg);
  else if (msg.type === "chat") quickChat.receive(msg, $("opp-name").textContent);
  else if (msg.type === "opponent_gone") {
    if (msg.match_id !== state.match.id) return;
    ui.gone = msg.gone ? { ...msg, at: Date.now() } : null;
    render();
  }
  else if (msg.type === "rating") {
    if (msg.match_id === state.match.id) ui.rating = msg;
    render();
  } else if (msg.type === "ack") {
    if (msg.id && msg.id === ui.claimSent) ui.claimSent = null;
    if (ui.pending && msg.id === ui.pending.msg.id) {
      ui.pending = null;
      if (msg.seq > state.seq) ui.awaitSeq = msg.seq;
    }
    render();
  } else if (msg.type === "error") {
    if (ui.pending && msg.id === ui.pending.msg.id) ui.pending = null;
    if (msg.id && msg.id === ui.rematchSent) ui.rematchSent = null;
    if (msg.id && msg.id === ui.claimSent) ui.claimSent = null;
    if (msg.code === "opponent_present") ui.gone = null;
    toast(errorText(msg), true, `error:${msg.code}`);
    if (msg.code === "stale_seq") socket.send({ type: "sync" });
    else if (msg.code === "server_error" || msg.code === "server_unavailable") retrySync();
    render();
  }
}

// A sync after server_error / server_unavailable waits, doubling from SYNC_RETRY_FIRST_MS up to
// SYNC_RETRY_MAX_MS, until a state arrives (then it starts again from the first): while the database is
// down each sync fails too, and an immediate retry answered every failure at once (~2 syncs per second
// from every open table, issue 14).
const SYNC_RETRY_FIRST_MS = 500;
const SYNC_RETRY_MAX_MS = 15000;
let syncRetryMs = 0;
let syncTimer = null;

function retrySync() {
  if (syncTimer !== null) return; // one retry pending at a time
  syncRetryMs = syncRetryMs ? Math.min(syncRetryMs * 2, SYNC_RETRY_MAX_MS) : SYNC_RETRY_FIRST_MS;
  syncTimer = setTimeout(() => {
    syncTimer = null;
    socket.send({ type: "sync" });
  }, syncRetryMs);
}

/** How many people watch this match live (replays' spectator sockets; hidden at 0). */
function showSpectators(count) {
  const box = $("spectators");
  if (!box || !Number.isInteger(count)) return;
  box.hidden = count <= 0;
  box.textContent = t("spectators_n", { n: count });
}

/** A `state` frame: the whole state it stands for (frames.js), or a `sync` when it leaves out something
 * this socket does not hold (the whole state answers; this frame shows nothing meanwhile). */
function onFrame(frame) {
  const whole = frames.merge(frame);
  if (whole) onState(whole);
  else socket.send({ type: "sync" });
}

function onState(s) {
  // A match's seq only grows, so a state older than the one shown is a late duplicate (a reconnect's
  // own state read after a commit whose broadcast is still queued, or two writers' broadcasts crossing
  // on their way): showing it would take the table back in time. Equal seqs still apply (the same
  // position, perhaps with news such as presence).
  if (Number.isInteger(s.seq) && s.seq < state.seq) return;
  syncRetryMs = 0; // the server answers again: the next failure's retry starts from the first delay
  const prev = state;
  const reconnected = ui.justOpened;
  ui.justOpened = false;
  state = s;
  if (ui.awaitSeq !== null && s.seq >= ui.awaitSeq) ui.awaitSeq = null;
  if (ui.pending) {
    // After a reconnect the server may never have seen the message: resend it unchanged if it still
    // applies (a repeated id is answered, not applied twice); otherwise the state tells the truth. A
    // message already sent on this socket (the move made between its open and its first state) is
    // not sent twice: the server answers it on this socket.
    if (s.seq === ui.pending.msg.seq) {
      if (reconnected && ui.pending.on !== ui.opens && socket.send(ui.pending.msg)) ui.pending.on = ui.opens;
    } else ui.pending = null;
  }
  const h = s.hand;
  const ph = prev.hand;
  if (h && ph && h.number === ph.number && h.cards.length > ph.cards.length) {
    ui.newCards = new Set(h.cards.filter((c) => !ph.cards.includes(c)));
    ui.animateDrawn = true;
  } else if (!h || !ph || h.number !== ph.number || h.cards.length < ph.cards.length) {
    ui.newCards = new Set();
  }
  if (ui.selected && !(h && h.your_turn && h.phase === "discard" && h.cards.includes(ui.selected))) {
    ui.selected = null;
  }
  checks.note(h);
  const tune = soundFor(prev, s);
  if (tune) sounds.play(tune);
  maybeShowResult(false);
  render();
}

const TOAST_MS = 4000;
const toastsShown = new Map(); // key -> {item, timer}: the toasts on screen

/** Show ``text`` for TOAST_MS. One toast per ``key`` (an error's code; by default the text): the same
 * again while it shows refreshes that one (its text, its time) instead of stacking another, so a burst
 * of refusals (say chat_rate_limited after quick clicks) shows one toast. */
function toast(text, isError = false, key = text) {
  let shown = toastsShown.get(key);
  if (shown) {
    clearTimeout(shown.timer);
  } else {
    const item = document.createElement("div");
    item.className = "toast" + (isError ? " error" : "");
    item.setAttribute("role", isError ? "alert" : "status");
    item.dataset.testid = "toast";
    $("toasts").append(item);
    shown = { item, timer: null };
    toastsShown.set(key, shown);
  }
  shown.item.textContent = text;
  shown.timer = setTimeout(() => {
    shown.item.remove();
    toastsShown.delete(key);
  }, TOAST_MS);
}

// ---- hand result and match end ---------------------------------------------------------------------
function dismissedKey() {
  return `gin.result-closed.${state.match.id}`;
}

/** Open the hand result when a new last_hand arrives, for about 8 s (the server's own pause). */
function maybeShowResult(initial) {
  const lh = state.last_hand;
  if (lh && `${lh.number}@${lh.ended_at}` !== ui.resultKey) {
    ui.resultKey = `${lh.number}@${lh.ended_at}`;
    checks.check(lh);
    // The length comes from the server's two timestamps, so a wrong client clock cannot shorten it;
    // on a page load only what is left of it, and nothing if the player already closed it.
    let ms = Date.parse(lh.show_until) - Date.parse(lh.ended_at);
    if (!(ms > 0 && ms < 60000)) ms = 8000;
    if (initial) ms = Math.min(ms, Date.parse(lh.show_until) - Date.now());
    if (initial && stored("sessionStorage", dismissedKey()) === ui.resultKey) ms = 0;
    if (!lh.result) ms = 0; // a resignation mid-hand: straight to the match-end screen
    if (ms > 300) {
      ui.resultOpen = true;
      ui.resultUntil = Date.now() + ms;
      ui.focusResult = true;
    }
  }
  if (!ui.resultOpen && isOver(state.match)) ui.matchEndShown = true;
}

/** Seconds before each GET of the rating (about 2 minutes in all: a slow worker); the line says
 * "rating pending" meanwhile. The server's consumer also sends the `rating` message when it finds it. */
const RATING_ASK_DELAYS = [1.5, 3, 3, 5, 5, 10, 10, 15, 15, 20, 30];

/** A rated match is over but no `rating` message came (the table opened after it was pushed, or the
 * push cannot reach this server): ask, with backoff, for about 2 minutes; a message still wins if it
 * comes first. */
function askRating() {
  const m = state.match;
  if (!m.rated || m.status !== "finished" || ui.rating || ui.ratingAsking) return;
  if (ui.ratingAsked >= RATING_ASK_DELAYS.length) return;
  ui.ratingAsking = true;
  setTimeout(async () => {
    ui.ratingAsked += 1;
    const got = await fetchRating(m.id);
    ui.ratingAsking = false;
    if (got && !ui.rating) ui.rating = got;
    render();
  }, RATING_ASK_DELAYS[ui.ratingAsked] * 1000);
}

function closeResult() {
  ui.resultOpen = false;
  if (ui.resultKey) store("sessionStorage", dismissedKey(), ui.resultKey);
  if (isOver(state.match)) ui.matchEndShown = true;
  render();
}

function reopenResult() {
  ui.resultOpen = true;
  ui.resultUntil = 0; // opened by hand: stays until closed
  ui.focusResult = true;
  render();
}

const OVERLAYS = ["hand-result", "match-end", "waiting", "logged-out-box"];

function renderOverlays() {
  const wasHidden = OVERLAYS.map((id) => $(id).hidden);
  const m = state.match;
  const lh = state.last_hand;
  const resultVisible = ui.resultOpen && !!lh;
  show("hand-result", resultVisible);
  if (resultVisible) {
    renderHandResult($("result-body"), state, lh, checks.element(lh));
    setText("result-continue", isOver(m) ? t("see_final_score") : state.hand ? t("continue") : t("close"));
    updateCountdown();
    if (ui.focusResult) $("result-continue").focus({ preventScroll: true });
  }
  ui.focusResult = false;
  const over = isOver(m) && ui.matchEndShown && !resultVisible;
  show("match-end", over);
  if (over) {
    renderMatchEnd($("match-end-body"), state);
    renderRatingLine($("match-end-body"), m, ui.rating);
    askRating();
    const opp = m.players[1 - m.you];
    // A tournament pairing's match: back to its tournament, never an ordinary "Play again".
    const tour = m.tournament || null;
    const bot = !!(opp && opp.is_bot) && !tour;
    const back = $("back-to-tournament");
    back.hidden = !tour;
    if (tour) back.href = tour.url;
    const again = $("play-again-form");
    again.hidden = !bot;
    if (bot) {
      again.elements.level.value = String(opp.bot_level);
      again.elements.preset.value = m.preset;
      again.elements.target.value = String(m.target);
      again.elements.rated.value = m.rated ? "true" : "false"; // rated or casual, like this match
    }
    show("play-again-friend", !bot && !tour);
    renderRematch(state, ui.rematch, ui.rematchSent !== null);
    // "Last hand" reopens a finished hand's result: none when the match ended before any hand did (a
    // resignation in hand 1).
    show("end-last-hand", !!lh && (m.hands || []).length > 0);
    // "Play again" keeps the bot, the rules and the target: say so.
    show("play-again-note", bot);
    if (bot) {
      const rules = has("preset_" + m.preset) ? t("preset_" + m.preset) : m.preset;
      setText("play-again-note", t("play_again_same", { n: opp.bot_level, rules, target: m.target }) + " "
        + (m.rated ? t("play_again_rated") : t("play_again_casual")));
    }
    const replay = $("replay-link");
    if (replay) replay.hidden = m.status !== "finished"; // a finished match has a replay (/replay/<id>/)
    const report = $("report-link"); // fairplay's report_tags: a player is reported once the match is over
    if (report) report.hidden = m.status !== "finished";
  }
  show("waiting", m.status === "waiting");
  if (m.status === "waiting") $("invite-url").value = m.invite_url || root.dataset.inviteUrl || "";
  OVERLAYS.forEach((id, i) => fitOverlay($(id), wasHidden[i]));
}

/** Each open overlay's card within the part of the felt on screen (dom.js fitOverlay). */
function fitOverlays() {
  for (const id of OVERLAYS) fitOverlay($(id));
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
  const s = Math.ceil(left / 1000);
  cd.textContent = isOver(state.match) ? t("final_in", { s }) : t("next_hand_in", { s });
}

// ---- own hand --------------------------------------------------------------------------------------
function myDiscardTurn(legal) {
  const h = state.hand;
  return !!(h && h.phase === "discard" && h.your_turn && legal.size > 0);
}

/** A click (or Enter) on a card: pick it; on the picked card again: discard it. */
function pickCard(card) {
  const h = state.hand;
  const legal = legalSet();
  if (!myDiscardTurn(legal)) {
    if (h && h.your_turn && h.phase === "draw" && ui.conn !== "closed") toast(t("draw_first"));
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
  render(); // the focus stays on the picked card (hand_view keeps it)
}

function renderHint() {
  const h = state.hand;
  const inHand = (c) => !!(c && h && h.cards.includes(c)); // a re-drawn hand may leave a stale pointer
  const card = inHand(ui.hover) ? ui.hover : inHand(ui.selected) ? ui.selected : null;
  const after = h && h.deadwood_if_discarded;
  let text = "";
  // The card just taken may not be discarded: say so, never a deadwood number for it.
  if (card && card === h.taken_card && h.phase === "discard") text = t("just_taken");
  else if (card && after && card in after) text = t("hint_after", { card: cardText(card), n: after[card] });
  setText("hover-hint", text);
}

function renderMyHand(legal) {
  const h = state.hand;
  renderHand($("my-hand"), h, {
    mode: ui.sort,
    selected: ui.selected,
    newCards: ui.newCards,
    animate: ui.animateDrawn,
    myDiscardTurn: myDiscardTurn(legal),
    legal,
    onPick: pickCard,
    onHover: (card) => {
      ui.hover = card;
      renderHint();
    },
  });
  ui.animateDrawn = false;
  show("deadwood-meter", !!h);
  if (h) {
    setText("deadwood-count", String(h.deadwood));
    $("deadwood-meter").classList.toggle("can-knock", !!h.can_knock);
  }
  for (const b of document.querySelectorAll("[data-sort]")) {
    b.setAttribute("aria-pressed", b.dataset.sort === ui.sort ? "true" : "false");
  }
  renderHint();
}

// ---- rendering -------------------------------------------------------------------------------------
function render() {
  const h = state.hand;
  const legal = legalSet();
  const busy = !!ui.pending || ui.awaitSeq !== null;
  // Hooks for tests and styles: the seq and phase on screen, whether the player may act now.
  root.dataset.seq = String(state.seq);
  root.dataset.phase = h ? h.phase : state.match.status;
  root.dataset.status = state.match.status;
  const cut = ui.conn === "closed";
  root.dataset.yourTurn = h && h.your_turn && !busy && !cut ? "1" : "0";
  root.dataset.busy = busy ? "1" : "0";
  root.dataset.conn = ui.conn;
  const mine = h && h.your_turn && !isOver(state.match) && !cut;
  document.title = mine ? `(${t("your_turn")}) ${baseTitle}` : baseTitle;
  show("logged-out-box", ui.loggedOut);
  renderSeats(state, cut);
  renderPiles(state, ui, legal);
  renderMyHand(legal);
  renderActions(state, ui, legal);
  renderStatus(state, ui, legal);
  renderSide(state, ui, checks, { reopenResult });
  renderGone();
  renderOverlays();
}

// ---- wiring ----------------------------------------------------------------------------------------
function drawFromDiscard() {
  act(legalSet().has("take") ? "take" : "draw discard");
}

$("stock-button").addEventListener("click", () => act("draw stock"));
$("discard-button").addEventListener("click", drawFromDiscard);
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
$("btn-claim").addEventListener("click", claim);
$("btn-rematch").addEventListener("click", () => sendRematch("offer"));
$("btn-rematch-cancel").addEventListener("click", () => sendRematch("cancel"));
$("btn-rematch-accept").addEventListener("click", () => sendRematch("accept"));
$("btn-rematch-decline").addEventListener("click", () => sendRematch("decline"));
$("btn-resign-no").addEventListener("click", () => {
  ui.confirmResign = false;
  render();
  $("btn-resign").focus();
});
$("result-continue").addEventListener("click", closeResult);
function renderSound() {
  const b = $("btn-sound");
  b.setAttribute("aria-pressed", sounds.enabled ? "true" : "false");
  b.textContent = t(sounds.enabled ? "sound_on" : "sound_off");
}
$("btn-sound").addEventListener("click", () => {
  sounds.toggle();
  renderSound();
});
renderSound();
const quickChat = new QuickChat((msg) => {
  if (socket.send(msg)) return true;
  toast(t("not_connected"), true);
  return false;
}, Number(root.dataset.seat), nextId);
$("end-last-hand").addEventListener("click", reopenResult);
for (const b of document.querySelectorAll("[data-sort]")) {
  b.addEventListener("click", () => {
    ui.sort = b.dataset.sort;
    store("localStorage", "gin.sort", ui.sort);
    render();
  });
}
$("invite-copy").addEventListener("click", async () => {
  const input = $("invite-url");
  try {
    await navigator.clipboard.writeText(input.value);
    toast(t("copied"));
  } catch {
    input.select();
  }
});
enableArrowKeys($("my-hand"));
// Keys: S stock, D discard pile (or take the upcard), P pass, K knock with the picked card, G big gin,
// Esc closes the hand result or drops the picked card. Cards: Tab/arrows and Enter.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  const key = event.key.toLowerCase();
  if (key === "escape") {
    if (ui.resultOpen) closeResult();
    else if (ui.selected) {
      ui.selected = null;
      render();
    }
  } else if (key === "s") act("draw stock");
  else if (key === "d") drawFromDiscard();
  else if (key === "p") act("pass");
  else if (key === "k" && ui.selected) act("knock " + ui.selected);
  else if (key === "g") act("knock");
});

const socket = new ReconnectingSocket(root.dataset.wsPath, {
  onMessage,
  onStatus(status, arg) {
    ui.conn = status;
    if (status === "open") {
      frames.reset(); // a new socket: its first state is whole, nothing is kept from the last one
      ui.opens += 1;
      ui.justOpened = true;
      ui.gone = null; // the server tells again on connect if the opponent is still gone
    }
    if (status === "retrying") ui.retryIn = arg;
    // 4401: the socket found no session. After a logout (here or in another tab: the server closes
    // the socket with 4001 and the reconnect lands here) the table says so, with a way back in.
    if (status === "closed") ui.loggedOut = arg === 4401;
    if (status === "closed" && !ui.loggedOut) toast(t("conn_closed"), true);
    if (ui.loggedOut) ui.selected = null;
    render();
  },
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") socket.retryNow();
});
window.addEventListener("online", () => socket.retryNow());
let fitQueued = false;
for (const event of ["scroll", "resize"]) {
  window.addEventListener(event, () => {
    if (fitQueued) return;
    fitQueued = true;
    requestAnimationFrame(() => {
      fitQueued = false;
      fitOverlays();
    });
  }, { passive: true });
}
setInterval(() => {
  updateTimer(state);
  if (ui.gone) renderGone();
  if (ui.resultOpen) updateCountdown();
}, 250);

showSpectators(Number(root.dataset.spectators || 0));
checks.note(state.hand);
maybeShowResult(true);
render();
socket.connect();
