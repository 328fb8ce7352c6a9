// Sentences about the match, from the viewer's side ("You discarded 7♥." / "Bot 2 took 7♥ ...").
import { cardText } from "./cards.js";
import { has, t, tn } from "./i18n.js";

/** Longest name written inside a sentence (status line, moves, results); labels show the whole
 * name cut by CSS, with the full name as their title. */
export const NAME_IN_TEXT = 24;

/** ``name`` cut to ``NAME_IN_TEXT`` characters with an ellipsis (by code points: no split emoji). */
export function shortName(name) {
  const chars = Array.from(name);
  return chars.length <= NAME_IN_TEXT ? name : chars.slice(0, NAME_IN_TEXT - 1).join("") + "…";
}

/** A player's name as seen by the viewer in a sentence ("You" for the viewer's own seat; a long name
 * cut, see ``shortName``). */
export function seatName(match, seat) {
  if (seat === match.you) return t("you");
  const p = match.players[seat];
  return p ? shortName(playerName(p)) : t("opponent");
}

/** A seated player's name; a house bot's in the page language, with the number an extra bot of
 * its level carries in its public name ("Bot 3 · Standard 4", a tournament field's). */
export function playerName(p) {
  const key = `bot_name_${p.bot_level}`;
  if (!(p.is_bot && has(key))) return p.name;
  const number = /\s(\d+)$/.exec(p.name || "");
  return number ? `${t(key)} ${number[1]}` : t(key);
}

/** Whether the match is over (finished or aborted). */
export function isOver(match) {
  return match.status === "finished" || match.status === "aborted";
}

/** One log line for a hand's ``last_action`` ({seat, action, card}; docs/protocol.md). */
export function actionText(match, la) {
  const who = seatName(match, la.seat);
  const mine = la.seat === match.you;
  const [verb, arg] = la.action.split(" ");
  // `card`: the card taken or drawn when this viewer may see it (the opponent's stock draw only once
  // the hand is over and its moves are revealed).
  const seen = la.card ? cardText(la.card) : "";
  const card = arg && arg.length === 2 ? cardText(arg) : seen;
  const key = (base) => (mine ? base + "_you" : base);
  if (verb === "take") return t(key("log_take"), { name: who, card });
  if (verb === "pass") return t(key("log_pass"), { name: who });
  if (verb === "draw" && arg === "stock") {
    if (!seen) return t(key("log_draw_stock"), { name: who });
    return mine ? t("log_draw_stock_you_card", { card: seen }) : t("log_draw_stock_card", { name: who, card: seen });
  }
  if (verb === "draw") return t(key("log_draw_discard"), { name: who, card });
  if (verb === "discard") return t(key("log_discard"), { name: who, card });
  if (verb === "knock" && arg) return t(key("log_knock"), { name: who, card });
  if (verb === "knock") return t(key("log_big_gin"), { name: who });
  return `${who}: ${la.action}`;
}

/** One log line for a move of ``hand.moves`` / ``last_hand.moves`` ({seat, action, card, auto}):
 * a move the turn timer made for a late player says so. */
export function moveText(match, mv) {
  const text = actionText(match, mv);
  return mv.auto ? `${text} ${t("log_auto")}` : text;
}

/**
 * The Moves list, from the server's state alone (so it survives a reload or a language switch): the
 * previous hand's moves, its ending move included, then "Hand N over: ...", then this hand's moves.
 */
export function moveLines(state) {
  const lines = [];
  const lh = state.last_hand;
  if (lh) {
    for (const mv of lh.moves || []) lines.push(moveText(state.match, mv));
    lines.push(`${t("log_hand_over", { n: lh.number })} ${headline(state.match, lh)}`);
  }
  const h = state.hand;
  if (h) for (const mv of h.moves || []) lines.push(moveText(state.match, mv));
  return lines;
}

/** Why a hand without a result ended the match: a player left the table (the win claimed), the turn
 * timer (a loss on time) or a resignation (all stored as the engine's resignation). */
export function endedMidHand(match) {
  if (match && match.result_reason === "left") return t("result_left");
  if (match && match.result_reason === "timeout") return t("result_timeout");
  return t("result_resigned");
}

/** One sentence for a finished hand's outcome (state.last_hand), from the viewer's side. */
export function headline(match, lh) {
  const r = lh.result;
  if (!r) return endedMidHand(match);
  if (r.kind === "dead") return t("result_dead");
  const mine = r.winner === match.you;
  if (match.you === null || match.you === undefined) {
    // A viewer who plays neither seat (replay, spectator): the winner by name.
    const name = seatName(match, r.winner);
    if (r.kind === "undercut") return tn("result_undercut_spectator", r.points, { name, points: r.points });
    return tn(`result_${r.kind}_them`, r.points, { name, points: r.points });
  }
  const params = { name: seatName(match, 1 - match.you), points: r.points };
  const key = {
    knock: mine ? "result_knock_you" : "result_knock_them",
    gin: mine ? "result_gin_you" : "result_gin_them",
    big_gin: mine ? "result_big_gin_you" : "result_big_gin_them",
    undercut: mine ? "result_undercut_you" : "result_undercut_them",
  }[r.kind];
  return key ? tn(key, r.points, params) : t("result_other", params);
}

/** The translated message for a server ``error`` (docs/protocol.md error codes). */
export function errorText(msg) {
  const key = "error_" + msg.code;
  const text = t(key);
  return text === key ? t("error_generic", { code: msg.code }) : text;
}

/** "m:ss" for a number of milliseconds (never negative). */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
