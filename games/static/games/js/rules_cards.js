// The rules page: every <span data-cards="7h 8h 9h"> becomes small card faces drawn by the table's own
// card module (cards.js), so the pictures look like the table's cards. Card names come from the page's
// table strings (games/_table_strings.html), as on the table.
import { cardFace } from "./cards.js";

for (const box of document.querySelectorAll("[data-cards]")) {
  const marked = new Set((box.dataset.mark || "").split(" ").filter(Boolean));
  const row = document.createElement("span");
  row.className = "rule-cards";
  for (const card of box.dataset.cards.split(" ").filter(Boolean)) {
    const face = cardFace(card);
    if (marked.has(card)) face.classList.add("layoff");
    row.append(face);
  }
  box.replaceChildren(row);
}
