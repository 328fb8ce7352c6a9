// The player's own hand: grouping (melds / suit / rank), card buttons and their marks. Which cards
// form melds, the deadwood and the per-discard numbers all come from the server's state; this module
// only arranges and labels them.
import { bySuit, byRank, cardFace, cardLabel, SUITS } from "./cards.js";
import { t } from "./i18n.js";

/** "set" when all cards share a rank, else "run" (display label only; the server chose the melds). */
export function meldKind(cards) {
  return cards.every((c) => c[0] === cards[0][0]) ? "set" : "run";
}

/**
 * The groups to draw for ``hand`` in ``mode``.
 * @returns {Array<{cards: string[], label: string, cls: string}>}
 */
export function handGroups(hand, mode) {
  if (mode === "suit") {
    return SUITS.split("")
      .map((s) => ({ cards: bySuit(hand.cards.filter((c) => c[1] === s)), label: t("suit_plural_" + s), cls: "" }))
      .filter((g) => g.cards.length);
  }
  if (mode === "rank") return [{ cards: byRank(hand.cards), label: "", cls: "" }];
  const groups = hand.melds.map((m, i) => ({
    cards: m,
    label: t(meldKind(m) === "set" ? "meld_set" : "meld_run"),
    cls: `meld meld-${i % 4}`,
  }));
  if (hand.deadwood_cards.length) {
    groups.push({ cards: byRank(hand.deadwood_cards), label: t("group_deadwood"), cls: "deadwood" });
  }
  return groups;
}

/**
 * Draw the hand into ``container``.
 * @param {object} hand state.hand (or any {cards, melds, deadwood_cards, taken_card}: a replay frame)
 * @param {object} opts {mode, selected, newCards: Set, animate: bool (slide the new cards in),
 *   myDiscardTurn: bool, legal: Set, onPick(card), onHover(card|null), readOnly: bool (cards are
 *   pictures, not buttons: replay and spectator views)}
 */
export function renderHand(container, hand, opts) {
  // The hand is re-drawn on every state: keep the keyboard focus on the same card.
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.card : null;
  container.replaceChildren();
  if (!hand) return;
  const meldOf = new Map();
  hand.melds.forEach((m, i) => m.forEach((c) => meldOf.set(c, i)));
  const after = hand.deadwood_if_discarded || {};
  for (const group of handGroups(hand, opts.mode)) {
    const g = document.createElement("div");
    g.className = "group " + group.cls;
    const row = document.createElement("div");
    row.className = "group-cards";
    for (const card of group.cards) {
      const el = cardFace(card, { button: !opts.readOnly });
      const canDiscard = opts.legal.has("discard " + card);
      const canKnock = opts.legal.has("knock " + card);
      let label = cardLabel(card);
      if (opts.mode !== "melds" && meldOf.has(card)) el.classList.add("in-meld", `meld-${meldOf.get(card) % 4}`);
      if (opts.myDiscardTurn && (canDiscard || canKnock)) el.classList.add("playable");
      if (canKnock) {
        el.classList.add("knockable");
        label += ". " + t("can_knock_with");
      }
      if (card === hand.taken_card) {
        el.classList.add("locked");
        el.dataset.lock = t("just_taken_short");
        label += ". " + t("just_taken");
      }
      if (opts.newCards.has(card)) {
        el.classList.add("drawn");
        if (opts.animate) el.classList.add("arrive");
        label += ". " + t("just_drawn");
      }
      if (card === opts.selected) {
        el.classList.add("selected");
        el.setAttribute("aria-pressed", "true");
      } else if (opts.myDiscardTurn) {
        el.setAttribute("aria-pressed", "false");
      }
      if (opts.myDiscardTurn && card in after) {
        const tip = document.createElement("span");
        tip.className = "dw-tip";
        tip.textContent = t("tip_after", { n: after[card] });
        tip.setAttribute("aria-hidden", "true");
        el.append(tip);
        el.dataset.after = String(after[card]);
        label += ". " + t("deadwood_if_discarded", { n: after[card] });
      }
      el.setAttribute("aria-label", label);
      if (opts.readOnly) {
        row.append(el);
        continue;
      }
      el.addEventListener("click", () => opts.onPick(card));
      el.addEventListener("mouseenter", () => opts.onHover(card));
      el.addEventListener("mouseleave", () => opts.onHover(null));
      el.addEventListener("focus", () => opts.onHover(card));
      el.addEventListener("blur", () => opts.onHover(null));
      row.append(el);
    }
    g.append(row);
    if (group.label) {
      const label = document.createElement("span");
      label.className = "group-label";
      label.textContent = group.label;
      g.append(label);
    }
    container.append(g);
  }
  const again = focused && container.querySelector(`[data-card="${focused}"]`);
  if (again) again.focus({ preventScroll: true });
}

/** Arrow keys move the focus along the hand's card buttons. */
export function enableArrowKeys(container) {
  container.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const buttons = [...container.querySelectorAll("button.card")];
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    const next = buttons[i + (event.key === "ArrowRight" ? 1 : -1)];
    if (next) {
      next.focus();
      event.preventDefault();
    }
  });
}
