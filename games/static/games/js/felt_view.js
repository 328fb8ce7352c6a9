// The felt: both seats, the stock and discard pile, the status line and the action buttons. Pure
// rendering of (state, ui, legal actions); clicks are wired once in table.js.
import { cardBack, cardFace, cardLabel, cardText } from "./cards.js";
import { $, badge, el, setName, setText, show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { actionText, isOver, playerName, seatName } from "./text.js";

const OFFER = new Set(["offer_nondealer", "offer_dealer"]);

/** Who a player is, as badges after their name: a house bot's level, "BOT" for a BOT account (a program
 * playing through the bot API: class bot-badge, its explanation in the title), "guest". The table, the
 * watch page and the replay all mark players through this one function.
 * @param {object|null} p a player of ``match.players`` (games.payloads.player)
 * @param {{guest?: boolean}} opts ``guest``: mark a guest too (the table's opponent) */
export function playerBadges(p, { guest = false } = {}) {
  const out = [];
  if (!p) return out;
  if (p.is_bot) out.push(badge(t("bot_level", { n: p.bot_level })));
  if (p.bot_account) {
    const b = badge(t("bot_account"), "bot-badge");
    b.title = t("bot_account_title");
    out.push(b);
  }
  if (guest && p.is_guest) out.push(badge(t("guest")));
  return out;
}

/** @param {object} state @param {boolean} cut the table's socket is closed for good: nobody's turn is
 * shown as the player's own */
export function renderSeats(state, cut = false) {
  const m = state.match;
  const h = state.hand;
  const opp = 1 - m.you;
  const op = m.players[opp];
  setName("opp-name", op ? playerName(op) : t("empty_seat"));
  const ob = $("opp-badges");
  ob.replaceChildren();
  ob.append(...playerBadges(op, { guest: true }));
  if (h && h.dealer === opp) ob.append(badge(t("dealer")));
  if (h && h.to_act === opp && h.phase !== "ended") ob.append(badge(t("their_turn"), "turn"));
  $("opp-seat").classList.toggle("to-act", !!(h && h.to_act === opp));
  const oh = $("opp-hand");
  const n = h ? h.opponent_card_count : 0;
  if (oh.childElementCount !== n) oh.replaceChildren(...Array.from({ length: n }, () => cardBack()));
  oh.setAttribute("aria-label", tn("opp_cards", n, { name: op ? playerName(op) : "", n }));
  setText("opp-count", h ? tn("n_cards", n, { n }) : "");
  show("opp-count", !!h);

  const me = m.players[m.you];
  setName("my-name", me ? playerName(me) : "");
  const mb = $("my-badges");
  mb.replaceChildren();
  if (me && me.bot_account) mb.append(...playerBadges({ bot_account: true }));
  if (h && h.dealer === m.you) mb.append(badge(t("dealer")));
  if (h && h.your_turn && h.phase !== "ended" && !cut) mb.append(badge(t("your_turn"), "turn"));
  $("my-seat").classList.toggle("to-act", !!(h && h.your_turn && !cut));
}

export function renderPiles(state, ui, legal) {
  const h = state.hand;
  const count = h ? h.stock_count : 0;
  const stack = $("stock-stack");
  stack.replaceChildren();
  if (h && count > 0) {
    for (let i = Math.min(3, count) - 1; i >= 0; i--) {
      const back = cardBack();
      back.style.transform = `translate(${-i * 2}px, ${-i * 2}px)`;
      stack.append(back);
    }
  } else {
    stack.append(el("span", "empty-slot"));
  }
  const countBadge = el("span", "stock-count", String(count));
  countBadge.dataset.testid = "stock-count";
  stack.append(countBadge);
  const canStock = legal.has("draw stock");
  const stockBtn = $("stock-button");
  stockBtn.disabled = !canStock;
  stockBtn.classList.toggle("can-act", canStock);
  stockBtn.setAttribute("aria-label", tn(canStock ? "stock_draw_label" : "stock_label", count, { n: count }));
  setText("stock-label", t("stock_n", { n: count }));

  const pile = h ? h.discard_pile : [];
  const fan = $("discard-fan");
  fan.replaceChildren();
  const shown = pile.slice(-6); // the top card and a fan of the five below; the label counts them all
  shown.forEach((card, i) => {
    const face = cardFace(card);
    face.setAttribute("aria-hidden", "true");
    if (i < shown.length - 1) face.classList.add("under");
    else {
      face.classList.add("top");
      // A new top card (someone just discarded) slides in, once.
      if (ui.lastTop !== undefined && ui.lastTop !== card) face.classList.add("fresh");
    }
    fan.append(face);
  });
  if (!pile.length) fan.append(el("span", "empty-slot"));
  ui.lastTop = pile.length ? pile[pile.length - 1] : null;
  const canTake = legal.has("take");
  const canDraw = legal.has("draw discard");
  const discBtn = $("discard-button");
  discBtn.disabled = !(canTake || canDraw);
  discBtn.classList.toggle("can-act", canTake || canDraw);
  const top = h && h.upcard;
  let label = top ? tn("discard_top_label", pile.length, { card: cardLabel(top), n: pile.length }) : t("discard_empty");
  if (canTake) label = t("take_upcard_label", { card: cardLabel(top) });
  else if (canDraw) label = t("draw_discard_label", { card: cardLabel(top) });
  discBtn.setAttribute("aria-label", label);
  setText("discard-label", t("discard_n", { n: pile.length }));
  $("discard-button").title = pile.map(cardText).join(" ");
  renderLimitCard(h);
}

/**
 * Two-deck rules: the card turned from the second deck, face up beside the piles, with the knock limit
 * it sets; hidden under other rules (and on pages without a ``limit-pile`` element).
 * @param {{limit_card?: string|null, knock_limit: number}|null} hand the hand (state.hand, a spectator's
 *   hand, a replay's hand)
 */
export function renderLimitCard(hand) {
  const pile = $("limit-pile");
  if (!pile) return;
  const card = hand ? hand.limit_card : null;
  pile.hidden = !card;
  if (!card) return;
  const box = $("limit-card");
  if (box.dataset.card !== card) {
    const face = cardFace(card, { small: true });
    face.setAttribute("aria-hidden", "true");
    box.replaceChildren(face);
    box.dataset.card = card;
  }
  const limit = hand.knock_limit === 0 ? t("knock_limit_gin") : t("knock_limit_n", { n: hand.knock_limit });
  setText("limit-label", limit);
  const label = t("limit_card_label", { card: cardLabel(card), n: hand.knock_limit });
  if (pile.getAttribute("aria-label") !== label) pile.setAttribute("aria-label", label);
  pile.title = label;
}

export function renderActions(state, ui, legal) {
  const h = state.hand;
  const mine = !!(h && h.your_turn && ui.conn !== "closed");
  const offer = !!(h && OFFER.has(h.phase) && mine);
  show("btn-take", offer);
  show("btn-pass", offer);
  $("btn-take").disabled = !legal.has("take");
  $("btn-pass").disabled = !legal.has("pass");
  if (h && h.upcard) setText("btn-take", t("take_card", { card: cardText(h.upcard) }));

  const discarding = !!(h && h.phase === "discard" && mine);
  const sel = ui.selected;
  show("btn-discard", discarding);
  show("btn-knock", discarding);
  $("btn-discard").disabled = !(sel && legal.has("discard " + sel));
  setText("btn-discard", sel ? t("discard_card", { card: cardText(sel) }) : t("discard"));
  // Active ONLY when the server lists "knock <selected card>" as legal; "Gin!" when it leaves 0.
  const knockOk = !!(sel && legal.has("knock " + sel));
  $("btn-knock").disabled = !knockOk;
  const gin = knockOk && h.deadwood_if_discarded && h.deadwood_if_discarded[sel] === 0;
  setText("btn-knock", gin ? t("gin") : t("knock"));
  $("btn-knock").classList.toggle("knock", knockOk);
  show("btn-big-gin", discarding && legal.has("knock"));
  $("btn-big-gin").disabled = !legal.has("knock");
}

function discardHint(h, legal) {
  if (legal.has("knock")) return t("status_can_big_gin");
  if (!h.can_knock) return "";
  const after = h.deadwood_if_discarded || {};
  const knocks = h.legal_actions.filter((a) => a.startsWith("knock ")).map((a) => after[a.slice(6)]);
  return Math.min(...knocks) === 0 ? t("status_can_gin") : t("status_can_knock");
}

export function renderStatus(state, ui, legal) {
  const m = state.match;
  const h = state.hand;
  let main = "";
  let sub = "";
  if (ui.conn === "closed") main = ui.loggedOut ? t("logged_out") : t("conn_closed");
  else if (m.status === "waiting") main = t("status_waiting");
  else if (isOver(m)) main = t("status_over");
  else if (!h) main = "";
  else if (ui.pending || ui.awaitSeq !== null) main = t("status_sending");
  else if (h.your_turn && OFFER.has(h.phase)) main = t("status_offer", { card: cardText(h.upcard) });
  else if (h.your_turn && h.phase === "draw") {
    main = legal.has("draw discard") ? t("status_draw") : t("status_draw_stock_only");
  } else if (h.your_turn && h.phase === "discard") {
    // A card picked (click, tap, or Enter on a focused card) is named with its deadwood, in the same
    // words whichever way it was picked; the line is a polite live region, so it is read out.
    const after = h.deadwood_if_discarded || {};
    const picked = ui.selected && ui.selected in after;
    main = picked ? t("status_picked", { card: cardText(ui.selected), n: after[ui.selected] }) : t("status_discard");
    sub = [discardHint(h, legal), h.taken_card ? t("status_taken", { card: cardText(h.taken_card) }) : ""]
      .filter(Boolean)
      .join(" ");
  } else if (OFFER.has(h.phase)) main = t("status_opp_offer", { name: seatName(m, 1 - m.you) });
  else main = t("status_opp_turn", { name: seatName(m, 1 - m.you) });
  if (!sub && h && h.last_action && h.last_action.seat !== m.you && ui.conn !== "closed") {
    sub = actionText(m, h.last_action);
  }
  const status = $("status");
  // Re-drawn only when its words change: a live region re-filled with the same words on every state
  // would be read out again.
  const words = `${main}\n${sub}`;
  if (status.dataset.words === words) return;
  status.dataset.words = words;
  status.replaceChildren(document.createTextNode(main));
  if (sub) status.append(el("span", "sub", sub));
}
