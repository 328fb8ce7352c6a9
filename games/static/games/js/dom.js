// Small DOM helpers shared by the table's views.

/** The element with id ``id`` (the table page's fixed skeleton, see games/table.html). */
export const $ = (id) => document.getElementById(id);

/** A new element with a class and text. */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Set an element's text only when it changed (keeps screen readers and selections calm). */
export function setText(id, text) {
  const e = $(id);
  if (e.textContent !== text) e.textContent = text;
}

/** Set a player's name: the text (cut by CSS with an ellipsis when long) and the full name as its
 * title, so a 150-character username never widens the table. */
export function setName(id, name) {
  setText(id, name);
  const e = $(id);
  if (e.title !== name) e.title = name;
}

/** Show or hide the element with id ``id``. */
export function show(id, visible) {
  $(id).hidden = !visible;
}

/** A pill label. */
export function badge(text, cls = "") {
  return el("span", "badge " + cls, text);
}

/**
 * ``window[storage].getItem(key)`` (storage: "localStorage" | "sessionStorage"), or null when storage is
 * unavailable (private modes, blocked cookies: even reading ``window.localStorage`` may throw).
 */
export function stored(storage, key) {
  try {
    return window[storage].getItem(key);
  } catch {
    return null;
  }
}

/** ``window[storage].setItem(key, value)``, silently skipped when storage is unavailable. */
export function store(storage, key, value) {
  try {
    window[storage].setItem(key, value);
  } catch {
    // a preference that is not kept is not worth an error
  }
}

/**
 * Keep the card of an open overlay (hand result, match end: absolute over the whole felt) inside the
 * part of the felt that is on screen: a phone shows the felt below the header, so a card centred on
 * the whole felt had its buttons below the screen's edge. The overlay's padding is set to the parts of
 * the felt above and below the screen, so the card (max-height 100%) is centred in what is visible
 * and scrolls inside itself when taller, its buttons pinned at its foot (table.css). An overlay just
 * opened (``opened``) with under ``MIN_ROOM`` px of the felt on screen (the page scrolled up to the
 * header) is scrolled into view first; later fits (on scroll) never move the page.
 * @param {HTMLElement} overlay
 * @param {boolean} opened the overlay has just been shown
 */
export function fitOverlay(overlay, opened = false) {
  if (overlay.hidden) return;
  const MIN_ROOM = 260;
  let box = overlay.getBoundingClientRect();
  const room = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
  if (opened && room < Math.min(MIN_ROOM, box.height)) {
    overlay.scrollIntoView({ block: "nearest" });
    box = overlay.getBoundingClientRect();
  }
  const above = Math.max(0, -box.top);
  const below = Math.max(0, box.bottom - window.innerHeight);
  const pad = (px) => `${Math.round(px) + 6}px`;
  if (overlay.style.paddingTop !== pad(above)) overlay.style.paddingTop = pad(above);
  if (overlay.style.paddingBottom !== pad(below)) overlay.style.paddingBottom = pad(below);
}
