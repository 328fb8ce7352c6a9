// Copy buttons of the organiser's share link (tournaments/_share_link.html): a button with
// data-copy="<input id>" copies that input's value and says so (data-copied), or selects the text where
// the clipboard is refused (an insecure origin, an old browser), so it can be copied by hand.
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  const input = document.getElementById(button.dataset.copy);
  if (!input) return;
  button.addEventListener("click", async function () {
    try {
      await navigator.clipboard.writeText(input.value);
      button.textContent = button.dataset.copied;
    } catch {
      input.select();
    }
  });
});
