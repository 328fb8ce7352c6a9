// The replay viewer (entry module of replays/replay.html): steps through a verified match, every card
// face up. All the data (each position's hands with their best melds, piles, results) comes from the
// server's re-play of the event log (replays/selectors.py viewer_data); nothing is computed here but
// the position. Cards, hands, the reveal and the shuffle check are drawn by the table's own modules.
// An opened file (data-hands-url) comes with one whole hand and a summary of the others: a hand is
// fetched whole (replays/opened.py) when the viewer goes to it, and the next one just after.
import { cardFace, cardLabel, cardText } from "../../games/js/cards.js";
import { $, badge, el, setText, show } from "../../games/js/dom.js";
import { ShuffleChecks } from "../../games/js/fairness.js";
import { playerBadges, renderLimitCard } from "../../games/js/felt_view.js";
import { renderHand } from "../../games/js/hand_view.js";
import { has, t, tn } from "../../games/js/i18n.js";
import { renderHandResult, renderMatchEnd } from "../../games/js/result_view.js";
import { actionText, endedMidHand, headline, playerName } from "../../games/js/text.js";
import { AnalysisView, markElement } from "./analysis_view.js";

const root = $("replay-app");
const data = JSON.parse($("replay-data").textContent);
const start = JSON.parse($("replay-start").textContent);
// The viewer plays neither seat: `you: null` makes the shared text and result modules name both.
const match = { ...data.match, you: null, status: "finished", result_reason: data.match.reason };
const hands = data.hands;
const handsUrl = root.dataset.handsUrl || null;
const pos = { hand: 0, step: 0 }; // hand index (0-based), step within it (0 = the deal)
let timer = null;
let wanted = 0; // the latest go() that waits for a hand: an older answer arriving later is ignored
const loading = new Map(); // hand index -> its fetch
const checks = new ShuffleChecks(() => render());

const frames = (h = pos.hand) => hands[h].frames;
const loaded = (h) => Array.isArray(hands[h].frames);
const lastStep = (h = pos.hand) => hands[h].steps;
const name = (seat) => playerName(match.players[seat]);
// The computer analysis (stored matches only): its marks join the move list and each step.
const analysis = new AnalysisView({ onChange: () => render(), name });

/** The hand as the result modules expect it (games/selectors.py `last_hand`). */
function lastHand(h) {
  const hand = hands[h];
  const end = hand.frames[hand.frames.length - 1];
  return {
    number: hand.number, dealer: hand.dealer, result: hand.result, deck: hand.deck, salt: hand.salt,
    commitment: hand.commitment, scores_after: hand.scores_after || hand.scores_before,
    final_hands: end.hands.map((i) => hand.arrangements[i].cards),
    arrangements: end.hands.map((i) => hand.arrangements[i]),
  };
}

// ---- position -----------------------------------------------------------------------------------
/** Fetch hand ``h`` whole (an opened file's), once; it replaces its summary in ``hands``. */
function load(h) {
  if (!loading.has(h)) {
    const url = `${handsUrl}${hands[h].number}.json`;
    const request = fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(async (response) => {
        const body = await response.json().catch(() => ({}));
        if (!response.ok) throw new Error(body.message || String(response.status));
        hands[h] = body;
      })
      .catch((error) => {
        loading.delete(h); // a later visit tries again
        throw error;
      });
    loading.set(h, request);
  }
  return loading.get(h);
}

function go(hand, step, options = {}) {
  const h = Math.max(0, Math.min(hands.length - 1, hand));
  const ticket = ++wanted;
  if (!loaded(h)) {
    $("status").replaceChildren(document.createTextNode(t("loading_hand", { n: hands[h].number })));
    load(h).then(
      () => ticket === wanted && go(h, step, options),
      (error) => {
        if (ticket !== wanted) return;
        stop();
        $("status").replaceChildren(document.createTextNode(t("hand_load_failed", { n: hands[h].number, reason: error.message })));
      },
    );
    return;
  }
  const { keepPlaying = false } = options;
  pos.hand = h;
  pos.step = Math.max(0, Math.min(lastStep(h), step));
  if (!keepPlaying) stop();
  const url = new URL(window.location.href);
  url.searchParams.set("hand", String(hands[h].number));
  url.searchParams.set("step", String(pos.step));
  window.history.replaceState(null, "", url);
  shareAt(hands[h].number, pos.step);
  render();
  if (handsUrl && h + 1 < hands.length && !loaded(h + 1)) load(h + 1).catch(() => {}); // the next one, ahead
}

// The private link box follows the position too (its token kept), so a shared link opens here.
function shareAt(handNumber, step) {
  const box = document.getElementById("share-url");
  if (!box) return;
  const link = new URL(box.value);
  link.searchParams.set("hand", String(handNumber));
  link.searchParams.set("step", String(step));
  box.value = link.toString();
}

function next() {
  if (pos.step < lastStep()) go(pos.hand, pos.step + 1, { keepPlaying: true });
  else if (pos.hand < hands.length - 1) go(pos.hand + 1, 0, { keepPlaying: true });
  else return false;
  return true;
}

function prev() {
  if (pos.step > 0) go(pos.hand, pos.step - 1);
  else if (pos.hand > 0) go(pos.hand - 1, lastStep(pos.hand - 1));
}

function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

function togglePlay() {
  if (timer !== null) {
    stop();
    render();
    return;
  }
  if (pos.hand === hands.length - 1 && pos.step === lastStep()) go(0, 0);
  timer = setInterval(() => {
    if (!next()) {
      stop();
      render();
    }
  }, Number($("speed").value) || 1000);
  render();
}

// ---- drawing ------------------------------------------------------------------------------------
function renderSeat(seat, frame) {
  const dealer = hands[pos.hand].dealer;
  setText(`name-${seat}`, name(seat));
  const b = $(`badges-${seat}`);
  b.replaceChildren();
  const p = match.players[seat];
  b.append(...playerBadges(p));
  if (dealer === seat) b.append(badge(t("dealer")));
  if (frame.to_act === seat) b.append(badge(t("to_play"), "turn"));
  $(`seat-${seat}`).classList.toggle("to-act", frame.to_act === seat);
  const hand = hands[pos.hand].arrangements[frame.hands[seat]];
  const fresh = frame.seat === seat && frame.card ? new Set([frame.card]) : new Set();
  renderHand($(`hand-${seat}`), { ...hand, taken_card: frame.seat === seat ? frame.taken_card : null }, {
    mode: "melds", selected: null, newCards: fresh, animate: false, myDiscardTurn: false, legal: new Set(),
    readOnly: true, onPick() {}, onHover() {},
  });
  $(`hand-${seat}`).setAttribute("aria-label", `${name(seat)}: ${hand.cards.map(cardLabel).join(", ")}`);
  setText(`deadwood-${seat}`, String(hand.deadwood));
}

// The stock folded into a strip (games/_felt.html fold_stock): "Stock: 31 cards ▸" opens the whole
// stock in order under the piles and closes it again; it stays as chosen while stepping.
const stockToggle = document.getElementById("stock-toggle");
let stockOpen = false;

function renderStockStrip(stock) {
  if (!stockToggle) return;
  const arrow = el("span", "strip-arrow", stockOpen ? "▾" : "▸");
  arrow.setAttribute("aria-hidden", "true");
  stockToggle.replaceChildren(document.createTextNode(tn("stock_strip", stock.length, { n: stock.length }) + " "), arrow);
  stockToggle.setAttribute("aria-expanded", stockOpen ? "true" : "false");
  stockToggle.title = stockOpen ? t("stock_fold") : t("stock_unfold");
  show("stock-row", stockOpen);
  setText("stock-label", stock.length ? t("stock_next_is", { card: cardText(stock[0]) }) : "");
}

function renderPiles(frame) {
  const hand = hands[pos.hand];
  const stock = frame.stock_size ? hand.deck.slice(52 - frame.stock_size) : [];
  const row = $("stock-row");
  row.replaceChildren(...stock.map((card, i) => {
    const face = cardFace(card, { small: true });
    face.classList.add("stock-card");
    if (i === 0) {
      face.classList.add("next-card");
      face.dataset.next = t("next_card");
    }
    return face;
  }));
  row.setAttribute("aria-label", stock.length ? t("stock_order", { n: stock.length, card: cardLabel(stock[0]) }) : t("stock_n", { n: 0 }));
  if (stockToggle) renderStockStrip(stock);
  else setText("stock-label", t("stock_next", { n: stock.length }));
  const pile = frame.discard_pile;
  const fan = $("discard-fan");
  fan.replaceChildren();
  pile.slice(-8).forEach((card, i, shown) => {
    const face = cardFace(card);
    face.classList.add(i < shown.length - 1 ? "under" : "top");
    fan.append(face);
  });
  if (!pile.length) fan.append(el("span", "empty-slot"));
  fan.title = pile.map(cardText).join(" ");
  setText("discard-label", t("discard_n", { n: pile.length }));
  renderLimitCard(hand);
}

function stepText(frame) {
  if (frame.step === 0) return t("dealt", { n: hands[pos.hand].number, name: name(hands[pos.hand].dealer) });
  const text = actionText(match, { seat: frame.seat, action: frame.action, card: frame.card });
  return frame.auto ? `${text} ${t("log_auto")}` : text;
}

function renderStatus(frame) {
  const status = $("status");
  status.replaceChildren(document.createTextNode(stepText(frame)));
  if (frame.to_act !== null && frame.to_act !== undefined) status.append(el("span", "sub", t("to_act", { name: name(frame.to_act) })));
  const h = hands[pos.hand];
  setText("position", t("position", { hand: pos.hand + 1, hands: hands.length, step: pos.step, steps: lastStep() }));
  const scrub = $("scrubber");
  scrub.max = String(lastStep());
  scrub.value = String(pos.step);
  scrub.setAttribute("aria-valuetext", stepText(frame));
  $("btn-play").textContent = timer !== null ? t("pause") : t("play");
  $("btn-play").setAttribute("aria-pressed", timer !== null ? "true" : "false");
  $("btn-prev").disabled = pos.hand === 0 && pos.step === 0;
  $("btn-first").disabled = $("btn-prev").disabled;
  $("btn-next").disabled = pos.hand === hands.length - 1 && pos.step === lastStep();
  $("btn-last").disabled = $("btn-next").disabled;
  $("btn-prev-hand").disabled = pos.hand === 0;
  $("btn-next-hand").disabled = pos.hand === hands.length - 1;
  root.dataset.hand = String(h.number);
  root.dataset.step = String(pos.step);
  root.dataset.playing = timer !== null ? "1" : "0";
}

// The hand list is built once (its lines never change; an opened file can have 2,000 hands), then
// only its current entry moves.
let handButtons = null;
function renderHandList() {
  if (handButtons === null) {
    handButtons = hands.map((hand, i) => {
      const b = el("button", "linkish", t("hand_item", { n: hand.number, what: hand.result ? headline(match, { result: hand.result }) : endedMidHand(match) }));
      b.type = "button";
      b.addEventListener("click", () => go(i, 0));
      return b;
    });
    $("hand-list").replaceChildren(...handButtons.map((b) => {
      const li = el("li");
      li.append(b);
      return li;
    }));
  }
  handButtons.forEach((b, i) => {
    if (i === pos.hand) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
  });
}

/** Scroll the move list (only the list, never the page) so its current row sits in the middle of
 * the list's part that is on screen (all of it beside the felt; on a phone, under the felt, maybe only
 * its top rows). Called last in render(): on a phone what is drawn after the list (the analysis's
 * sentence, the hand's result) changes the felt's height and so where the list is on screen; measured
 * before that, a row centred for the old place ended up to a line below it, off the screen (1.25 px
 * past an 844 px screen in a test). The offset is rounded up (scroll offsets are whole pixels, the
 * boxes not): the row may sit a fraction of a pixel above the middle, never below it. */
function followCurrent(moves) {
  const current = moves.querySelector("li.current");
  if (!current) return;
  const list = moves.getBoundingClientRect();
  const row = current.getBoundingClientRect();
  const top = Math.max(list.top, 0);
  const bottom = Math.min(list.top + moves.clientHeight, window.innerHeight);
  const middle = bottom - top >= row.height ? (top + bottom) / 2 : list.top + moves.clientHeight / 2;
  moves.scrollTop += Math.ceil(row.top + row.height / 2 - middle);
}

function renderSide() {
  const h = hands[pos.hand];
  const atEnd = pos.step === lastStep() && h.result;
  const scores = atEnd ? h.scores_after : h.scores_before;
  [0, 1].forEach((seat) => {
    setText(`score-name-${seat}`, name(seat));
    setText(`score-${seat}`, String(scores[seat]));
  });
  setText("target", tn("target_n", match.target, { n: match.target }));
  setText("rules-name", has("preset_" + match.preset) ? t("preset_" + match.preset) : match.preset);
  setText("hand-number", t("hand_n", { n: h.number }));
  const limit = h.knock_limit === 0 ? t("knock_limit_gin") : t("knock_limit_n", { n: h.knock_limit });
  setText("knock-limit", limit + (h.multiplier > 1 ? " · " + t("doubled") : ""));

  renderHandList();

  // One numbering: row k is move k (0 = the deal), the number the counter shows ("move k of n").
  const moves = $("move-list");
  moves.replaceChildren(...frames().map((frame, k) => {
    const li = el("li");
    li.value = k;
    const b = el("button", "linkish", stepText(frame));
    b.type = "button";
    b.dataset.step = String(k);
    if (k === pos.step) {
      b.setAttribute("aria-current", "step");
      li.classList.add("current");
    }
    b.addEventListener("click", () => go(pos.hand, k));
    li.append(b);
    const mark = markElement(analysis.decision(hands[pos.hand].number, k));
    if (mark) li.append(" ", mark);
    return li;
  }));

  const lh = lastHand(pos.hand);
  checks.check(lh);
  $("fair-check").replaceChildren(checks.element(lh));
}

function renderReveal() {
  const h = hands[pos.hand];
  const box = $("reveal");
  const atEnd = pos.step === lastStep();
  const isLast = pos.hand === hands.length - 1;
  show("reveal", atEnd);
  if (!atEnd) return;
  box.replaceChildren();
  const lh = lastHand(pos.hand);
  const state = { match: { ...match, scores: h.scores_after || h.scores_before }, last_hand: lh };
  const card = el("div", "result-card");
  const body = el("div");
  renderHandResult(body, state, lh, null);
  card.append(body);
  if (isLast) {
    const end = el("div", "match-end");
    renderMatchEnd(end, { match: { ...match, scores: match.scores }, last_hand: lh });
    card.append(end);
  }
  box.append(card);
}

function render() {
  const frame = frames()[pos.step];
  renderSeat(0, frame);
  renderSeat(1, frame);
  renderPiles(frame);
  renderStatus(frame);
  renderSide();
  renderReveal();
  analysis.renderStep(hands[pos.hand].number, pos.step, frame.seat === null ? "" : name(frame.seat));
  followCurrent($("move-list")); // last: once everything above the list has its final height
}

// ---- wiring -------------------------------------------------------------------------------------
$("btn-first").addEventListener("click", () => go(0, 0));
$("btn-last").addEventListener("click", () => go(hands.length - 1, lastStep(hands.length - 1)));
$("btn-prev").addEventListener("click", prev);
$("btn-next").addEventListener("click", () => {
  stop();
  next();
});
$("btn-prev-hand").addEventListener("click", () => go(pos.hand - 1, 0));
$("btn-next-hand").addEventListener("click", () => go(pos.hand + 1, 0));
$("btn-play").addEventListener("click", togglePlay);
if (stockToggle) {
  stockToggle.addEventListener("click", () => {
    stockOpen = !stockOpen;
    render();
  });
}
$("speed").addEventListener("change", () => {
  if (timer !== null) {
    stop();
    togglePlay();
  }
});
$("scrubber").addEventListener("input", (e) => go(pos.hand, Number(e.target.value)));
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest && event.target.closest("input:not([type=range]), textarea, select")) return;
  const k = event.key;
  if (k === "ArrowRight") {
    stop();
    next();
  } else if (k === "ArrowLeft") prev();
  else if (k === "ArrowDown") go(pos.hand + 1, 0);
  else if (k === "ArrowUp") go(pos.hand - 1, 0);
  else if (k === "Home") go(0, 0);
  else if (k === "End") go(hands.length - 1, lastStep(hands.length - 1));
  else if (k === " " && !(event.target.closest && event.target.closest("button"))) togglePlay();
  else return;
  event.preventDefault();
});

// Each name is cut with an ellipsis (full name in its title): a 150-character username must not widen
// the page.
const nameTag = (seat) => {
  const tag = el("span", "player-name", name(seat));
  tag.title = name(seat);
  return tag;
};
$("replay-players").replaceChildren(
  nameTag(0), " – ", nameTag(1), ` · ${match.scores[0]}–${match.scores[1]}`,
);
if (match.result_reason === "left" && match.winner !== null && match.winner !== undefined) {
  // A claimed win over a player who left is stored as a resignation: the header says what happened.
  const note = el("span", "end-note", ` · ${t("reason_left_watch", { name: name(1 - match.winner), winner: name(match.winner) })}`);
  note.dataset.testid = "replay-end";
  $("replay-players").append(note);
}
const startHand = hands.findIndex((h) => h.number === start.hand);
go(startHand < 0 ? 0 : startHand, start.step);
