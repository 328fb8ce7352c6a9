// Translated strings for the table. The template renders every string through Django's i18n into
// <span data-key="..."> elements inside #table-i18n (one source of truth: the .po files), and this
// module reads them once; pages that add strings of their own (replay, watch) put them in more
// elements of class "i18n-strings". Placeholders are written {name}.
let strings = null;

function load() {
  strings = {};
  for (const root of document.querySelectorAll("#table-i18n, .i18n-strings")) {
    for (const el of root.querySelectorAll("[data-key]")) strings[el.dataset.key] = el.textContent;
  }
}

/**
 * The translated string for ``key`` with ``{name}`` placeholders filled from ``params``.
 * An unknown key returns the key itself (visible, so a missing string is noticed, never a crash).
 */
export function t(key, params = {}) {
  if (strings === null) load();
  const template = Object.prototype.hasOwnProperty.call(strings, key) ? strings[key] : key;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Whether a translated string exists for ``key``. */
export function has(key) {
  if (strings === null) load();
  return Object.prototype.hasOwnProperty.call(strings, key);
}
