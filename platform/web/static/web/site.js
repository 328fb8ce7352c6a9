// Site-wide behaviour, loaded by web/base.html on every page. Kept out of the HTML: the production
// Content-Security-Policy allows scripts from this origin's static files only (no inline handlers).

// The language picker submits its form as soon as a language is chosen (a "Go" button without JS).
const languageSelect = document.getElementById("lang-select");
if (languageSelect) {
  languageSelect.addEventListener("change", () => languageSelect.form.submit());
}
