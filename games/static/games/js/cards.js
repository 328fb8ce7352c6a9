// Card notation and card elements. A card is its poker-notation string ("7h", "Td"): rank
// A23456789TJQK + suit cdhs, exactly as the server sends it. Display only: no rules live here.
import { t } from "./i18n.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "cdhs";
const SUIT_SYMBOLS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANK_LABELS = { T: "10" };

/** Rank index 0 (ace) .. 12 (king) of a card string. */
export function rankIndex(card) {
  return RANKS.indexOf(card[0]);
}

/** Suit index 0..3 (c d h s) of a card string. */
export function suitIndex(card) {
  return SUITS.indexOf(card[1]);
}

/** Cards by suit (c d h s) then rank: the "sort by suit" order. */
export function bySuit(cards) {
  return [...cards].sort((a, b) => suitIndex(a) - suitIndex(b) || rankIndex(a) - rankIndex(b));
}

/** Cards by rank (A..K) then suit: the "sort by rank" order. */
export function byRank(cards) {
  return [...cards].sort((a, b) => rankIndex(a) - rankIndex(b) || suitIndex(a) - suitIndex(b));
}

/** The spoken name of a card in the page language: "7 of hearts" / "7 de copas". */
export function cardLabel(card) {
  return t("card_name", {
    rank: t("rank_" + card[0]),
    suit: t("suit_" + card[1]),
  });
}

/** Short visible text of a card: "10♥". */
export function cardText(card) {
  return (RANK_LABELS[card[0]] || card[0]) + SUIT_SYMBOLS[card[1]];
}

/**
 * A face-up card element.
 * @param {string} card poker notation
 * @param {{button?: boolean, small?: boolean}} opts button: a focusable <button> (own hand, clickable)
 */
export function cardFace(card, opts = {}) {
  const el = document.createElement(opts.button ? "button" : "span"); // span: allowed inside a button
  if (opts.button) el.type = "button";
  else el.setAttribute("role", "img");
  const suit = card[1];
  el.className = `card face suit-${suit}` + (opts.small ? " small" : "");
  el.dataset.card = card;
  el.setAttribute("aria-label", cardLabel(card));
  const rank = RANK_LABELS[card[0]] || card[0];
  const symbol = SUIT_SYMBOLS[suit];
  const corner = (cls) => {
    const c = document.createElement("span");
    c.className = `corner ${cls}`;
    c.setAttribute("aria-hidden", "true");
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = rank;
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = symbol;
    c.append(r, s);
    return c;
  };
  const court = COURT.includes(card[0]);
  if (court) el.classList.add("court");
  el.append(corner("top"), court ? courtFigure(card) : pip(symbol), corner("bottom"));
  return el;
}

const COURT = "JQK";
/** Where the court figures are: games/static/games/cards/court/<card>.svg (public-domain art, see the
 * NOTICE.txt there), beside this module's folder, so every page that imports it finds them. */
const COURT_DIR = new URL("../cards/court/", import.meta.url);

function pip(text, cls = "pip") {
  const p = document.createElement("span");
  p.className = cls;
  p.setAttribute("aria-hidden", "true");
  p.textContent = text;
  return p;
}

/** A jack's, queen's or king's figure (the card's corners keep the large index); if the image cannot
 * be loaded, the boxed letter instead. */
function courtFigure(card) {
  const img = document.createElement("img");
  img.className = "court-figure";
  img.src = new URL(`${card}.svg`, COURT_DIR).href;
  img.alt = "";
  img.setAttribute("aria-hidden", "true");
  img.draggable = false;
  img.decoding = "sync"; // a re-drawn hand shows the cached figure at once, without a blank frame
  img.addEventListener("error", () => img.replaceWith(pip(card[0], "pip court")), { once: true });
  return img;
}

/** A face-down card element (decorative: counts are announced by the surrounding label). */
export function cardBack(opts = {}) {
  const el = document.createElement("span");
  el.className = "card back" + (opts.small ? " small" : "");
  el.setAttribute("aria-hidden", "true");
  return el;
}
