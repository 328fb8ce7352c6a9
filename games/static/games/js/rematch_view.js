// The match-end card's rematch box of a friend match (docs/protocol.md "Rematch"): offer, cancel,
// accept or decline, from the server's `rematch` message alone (who offered, its status, whether the
// opponent is still at the table, the new match once made). Sending is table.js's (sendRematch).
import { $, setText, show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { seatName } from "./text.js";

const BUTTONS = ["btn-rematch", "btn-rematch-cancel", "btn-rematch-accept", "btn-rematch-decline"];

/** What the box says and offers for ``r`` (a `rematch` message) seen by ``match.you``. */
function view(match, r) {
  const name = seatName(match, 1 - match.you);
  const offer = r.offer;
  const mine = !!offer && offer.by === match.you;
  const open = !!offer && offer.status === "open";
  const away = r.opponent_present === false;
  const v = { text: "", buttons: [], note: "" };
  if (r.new_match) {
    v.text = t("rematch_ready", { name });
    v.go = r.new_match.url;
    return v;
  }
  if (open && mine) {
    v.text = away ? t("rematch_sent_away", { name }) : t("rematch_sent", { name });
    v.buttons = ["btn-rematch-cancel"];
    return v;
  }
  if (open) {
    // Accepting deals the new match at once: the offerer has to be at the table (the server says so).
    v.text = away ? t("rematch_received_away", { name }) : t("rematch_received", { name });
    v.buttons = away ? ["btn-rematch-decline"] : ["btn-rematch-accept", "btn-rematch-decline"];
  } else {
    if (offer && offer.status === "declined") {
      v.text = mine ? t("rematch_declined_them", { name }) : t("rematch_declined_you");
    } else if (offer && offer.status === "cancelled" && !mine) {
      v.text = t("rematch_cancelled_them", { name });
    }
    if (away) v.text = [v.text, t("rematch_away", { name })].filter(Boolean).join(" ");
  }
  if (r.can_offer && !open) v.buttons = ["btn-rematch"];
  // No offer button any more: say so, and why (docs/protocol.md "Rematch": a declined player may not
  // offer again after that match; 3 offers each), instead of leaving the player to look for one.
  if (!r.can_offer && !open && offer) {
    if (r.offers_left === 0) v.note = t("rematch_final_limit");
    else if (offer.status === "declined" && mine) v.note = t("rematch_final_declined", { name });
    else if (offer.status === "declined") v.note = t("rematch_final_both");
  }
  if (v.buttons.includes("btn-rematch") || v.buttons.includes("btn-rematch-accept")) {
    const who = r.first_dealer === null ? "rematch_terms_cut"
      : r.first_dealer === match.you ? "rematch_terms_you" : "rematch_terms_them";
    v.note = t(who, { name });
    // Offers are limited (a cancelled one counts): say how many are left once one was made.
    if (v.buttons.includes("btn-rematch") && r.offers_left < 3) {
      v.note += " " + tn("rematch_offers_left", r.offers_left, { n: r.offers_left });
    }
  }
  return v;
}

/**
 * Fill the rematch box of the match-end card; hidden for a match without one (no `rematch` message:
 * bot and tournament matches).
 * @param {object} state the latest state
 * @param {object|null} r the latest `rematch` message of this match, or null
 * @param {boolean} busy a rematch message was sent and not answered yet (buttons disabled)
 */
export function renderRematch(state, r, busy) {
  const m = state.match;
  const here = !!r && r.match_id === m.id;
  show("rematch-box", here);
  if (!here) return;
  const v = view(m, r);
  setText("rematch-text", v.text);
  show("rematch-text", !!v.text);
  setText("rematch-note", v.note);
  show("rematch-note", !!v.note);
  for (const id of BUTTONS) {
    show(id, v.buttons.includes(id));
    $(id).disabled = busy;
  }
  const go = $("rematch-go");
  go.hidden = !v.go;
  if (v.go) go.href = v.go;
}
