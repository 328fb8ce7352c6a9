// Translated strings for the table. The template renders every string through Django's i18n into
// <span data-key="..."> elements inside #table-i18n (one source of truth: the .po files), and this
// module reads them once; pages that add strings of their own (replay, watch) put them in more
// elements of class "i18n-strings". Placeholders are written {name}.
let strings = null;

function load() {
  strings = {};
  for (const root of document.querySelectorAll("#table-i18n, .i18n-strings")) {
    for (const el of root.querySelectorAll("[data-key]")) {
      strings[el.dataset.form ? `${el.dataset.key}|${el.dataset.form}` : el.dataset.key] = el.textContent;
    }
  }
}

let pluralRules = null;

/** The plural form ("one" / "other") of ``count`` in the page language. Intl's CLDR rules agree with
 * the catalogs' gettext Plural-Forms for both languages: English n != 1, pt-BR n > 1 (0 is "one"). */
export function pluralForm(count) {
  if (pluralRules === null) pluralRules = new Intl.PluralRules(document.documentElement.lang || "en");
  return pluralRules.select(count) === "one" ? "one" : "other";
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

/**
 * The translated count sentence ``key`` in the plural form for ``count`` (the template renders each
 * such key's forms through Django's ngettext), placeholders filled from ``params``.
 */
export function tn(key, count, params = {}) {
  if (strings === null) load();
  const form = `${key}|${pluralForm(count)}`;
  return t(Object.prototype.hasOwnProperty.call(strings, form) ? form : `${key}|other`, params);
}

/** Whether a translated string exists for ``key``. */
export function has(key) {
  if (strings === null) load();
  return Object.prototype.hasOwnProperty.call(strings, key);
}
