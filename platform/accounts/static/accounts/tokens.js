// The API tokens page (accounts/tokens.html): the new token's "Copy" button (or the text selected where
// the clipboard is refused), and a confirmation before a revoke or an upgrade is posted
// (forms with data-confirm: the site's CSP allows no inline script).
const input = document.getElementById("new-token-text");
const button = document.getElementById("new-token-copy");
if (input && button) {
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      button.textContent = button.dataset.copied;
    } catch {
      input.select();
    }
  });
}
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
