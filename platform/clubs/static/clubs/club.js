// The club page's "Copy link" button (clubs/detail.html): copies the invitation link, or selects it
// where the clipboard is refused (an insecure origin, an old browser).
const input = document.getElementById("club-invite-url");
const button = document.getElementById("club-invite-copy");
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
