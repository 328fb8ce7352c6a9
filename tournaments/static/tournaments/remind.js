// "Remind me" buttons (docs/tournaments.md "Calendar and reminders"). A click first asks for the browser's
// notification permission (Notification.requestPermission(): only ever after this click, never on page
// load; a refusal still sets the on-site reminder), then toggles the reminder with a POST answered in
// JSON. Without this script the form posts and the page reloads with a message.
function csrf(form) {
  const input = form.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function ask() {
  if (!("Notification" in window) || Notification.permission !== "default") return;
  try { await Notification.requestPermission(); } catch (err) { /* an old browser: the callback form */ }
}

document.querySelectorAll("form[data-remind]").forEach(function (form) {
  const button = form.querySelector("button");
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    button.disabled = true;
    const setting = button.getAttribute("aria-pressed") !== "true";
    if (setting) await ask();
    try {
      const response = await fetch(form.action, {
        method: "POST", credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrf(form) },
        body: new FormData(form),
      });
      const data = await response.json();
      if (response.ok) {
        button.setAttribute("aria-pressed", data.reminded ? "true" : "false");
        button.classList.toggle("on", data.reminded);
        button.textContent = data.label;
      }
      button.title = data.text || "";
    } catch (err) {
      form.submit(); // offline or an unexpected answer: the plain form says why
      return;
    }
    button.disabled = false;
  });
});
