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
