// The match-end screen's rating line (docs/ratings.md): "Rating: 1512 → 1527 (+15)" once the rating
// task has run. The change arrives as a `rating` message on the table's socket (docs/protocol.md); a
// table opened after it was sent asks GET /ratings/match/<id>.json instead.
import { el } from "./dom.js";
import { t } from "./i18n.js";

/**
 * Append to the match-end card ``box`` whether the match was rated or casual, then the rating line of a
 * rated match (its change, or "updating" while the rating task runs).
 * @param {HTMLElement} box the match-end card body (already filled by renderMatchEnd)
 * @param {object} match state.match
 * @param {object|null} rating the `rating` message for this seat, or null while pending
 */
export function renderRatingLine(box, match, rating) {
  // Which it was, rated or casual (a rated match's change follows; a casual one changed nobody's rating).
  // A rated match resigned or left too early to count (docs/fairplay.md): says so, rather than "casual".
  const unrated = { early_resign: "end_unrated_early", early_left: "end_unrated_left" }[match.unrated_why];
  const kind = el("p", "meta match-kind",
                  unrated ? t(unrated) : match.rated ? t("end_rated") : t("end_casual"));
  kind.dataset.testid = "match-kind";
  box.append(kind);
  if (match.status === "aborted" && match.result_reason === "aborted") {
    box.append(el("p", "meta rating-line", t("rating_aborted")));
    return;
  }
  if (!match.rated || match.status !== "finished") return;
  const line = el("p", "rating-line");
  line.dataset.testid = "rating-change";
  if (rating) {
    const cls = rating.change.startsWith("+") ? "up" : rating.change.startsWith("-") ? "down" : "";
    line.append(el("strong", cls, t("rating_change", { before: rating.before, after: rating.after, change: rating.change })));
  } else {
    line.classList.add("pending");
    line.append(t("rating_pending"));
  }
  box.append(line);
}

/** Ask the server for this seat's rating change (null until the task has run). */
export async function fetchRating(matchId) {
  try {
    const response = await fetch(`/ratings/match/${matchId}.json`, { credentials: "same-origin" });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}
