// The side panel: scores and target, rules and the hand's knock limit, turn timer, the fair-shuffle
// panel, the move log, resign (with confirmation) and the connection state.
import { $, el, setName, setText, show } from "./dom.js";
import { has, t, tn } from "./i18n.js";
import { clock, isOver, moveLines, playerName, seatName } from "./text.js";

/**
 * @param {object} state the latest state
 * @param {object} ui the table's UI state (log, conn, confirmResign, ...)
 * @param {ShuffleChecks} checks
 * @param {{reopenResult: function(): void}} handlers
 */
export function renderSide(state, ui, checks, handlers) {
  const m = state.match;
  const h = state.hand;
  [m.you, 1 - m.you].forEach((seat, i) => {
    setName(`score-name-${i}`, seat === m.you ? t("you") : m.players[seat] ? playerName(m.players[seat]) : t("empty_seat"));
    setText(`score-${i}`, String(m.scores[seat]));
    $(`score-bar-${i}`).style.width = `${Math.min(100, (100 * m.scores[seat]) / m.target)}%`;
  });
  setText("target", tn("target_n", m.target, { n: m.target }));
  setText("rules-name", has("preset_" + m.preset) ? t("preset_" + m.preset) : m.preset);
  // Rated or casual, all through the match (the match-end card says it again).
  setText("rated-kind", m.rated ? t("kind_rated") : t("kind_casual"));
  show("hand-info", !!h);
  if (h) {
    setText("hand-number", t("hand_n", { n: h.number }));
    const limit = h.knock_limit === 0 ? t("knock_limit_gin") : t("knock_limit_n", { n: h.knock_limit });
    setText("knock-limit", limit + (h.multiplier > 1 ? " · " + t("doubled") : ""));
  }
  // The table's setting always (also while it waits for the friend, before any clock runs); the
  // running clock beside it once a move is timed (updateTimer).
  show("timer-row", !isOver(m));
  setText("timer-setting", m.turn_timer_seconds ? t("timer_setting", { n: m.turn_timer_seconds }) : t("timer_none"));
  // How many automatic moves in a row lose the match, and how many the player has so far.
  const lose = m.auto_moves_to_lose;
  const strikes = (m.timeout_strikes || [0, 0])[m.you] || 0;
  show("timer-warning", !!(m.turn_timer_seconds && lose) && !isOver(m));
  if (lose) {
    setText("timer-warning", tn("timer_warning", lose, { n: lose }) + (strikes ? " " + t("timer_strikes", { k: strikes, n: lose }) : ""));
    $("timer-warning").classList.toggle("low", strikes > 0);
  }
  updateTimer(state);

  show("commitment-line", !!(h && h.commitment));
  if (h) {
    setText("commitment", h.commitment || "");
    setText("commitment-hand", t("hand_n", { n: h.number }));
  }
  const lh = state.last_hand;
  const prevBox = $("last-verify");
  prevBox.replaceChildren();
  if (lh) {
    const again = el("button", "linkish", t("show_last_hand"));
    again.type = "button";
    again.addEventListener("click", handlers.reopenResult);
    const p = el("p");
    p.append(t("hand_n", { n: lh.number }) + ": ", checks.label(lh), " ", again);
    prevBox.append(p);
  }

  const log = $("log");
  log.replaceChildren(...moveLines(state).slice(-100).map((text) => el("li", "", text)));
  log.scrollTop = log.scrollHeight;

  const noResign = isOver(m) || m.status === "waiting";
  // What leaving a bot match costs, said before it happens (docs/ratings.md "Bot matches: rated or
  // casual"); a match between people has its own leaving rules (docs/lobby.md), not explained here.
  const opp = m.players[1 - m.you];
  const leave = !noResign && m.you !== null && m.you !== undefined && !!(opp && opp.is_bot);
  show("leave-note", leave);
  if (leave) {
    setText("leave-note", m.rated ? t("leave_rated", { n: m.auto_moves_to_lose || 3 }) : t("leave_casual"));
  }
  show("btn-resign", !noResign && !ui.confirmResign);
  show("resign-confirm", !noResign && ui.confirmResign);
  if (ui.confirmResign) setText("resign-question", resignQuestion(state));

  const conn = $("conn");
  conn.classList.toggle("down", ui.conn !== "open");
  conn.textContent =
    ui.conn === "open" ? t("conn_open")
    : ui.conn === "retrying" ? t("conn_retrying", { s: Math.ceil(ui.retryIn / 1000) })
    : ui.conn === "closed" ? t("conn_closed")
    : t("conn_connecting");
}

/** The turn clock (side panel and felt); called every 250 ms. Deadline from state.match. */
export function updateTimer(state) {
  const m = state.match;
  const h = state.hand;
  const side = $("timer");
  const felt = $("felt-timer");
  if (!m.turn_timer_seconds || !m.turn_deadline || isOver(m)) {
    side.textContent = "";
    $("timer-clock").hidden = true;
    felt.hidden = true;
    $("timer-reveal").hidden = true;
    return;
  }
  // At a hand's start the deadline also holds the reveal of the hand that just ended (about 8 s): the
  // clock shows the move's own time, frozen at the full per-move time until the reveal is over, and
  // the reveal's seconds are shown apart.
  const left = Date.parse(m.turn_deadline) - Date.now();
  const perMove = m.turn_timer_seconds * 1000;
  const reveal = left - perMove;
  const text = `${h && h.your_turn ? t("you") : seatName(m, 1 - m.you)}: ${clock(Math.min(left, perMove))}`;
  const low = left < 6000 && !!(h && h.your_turn);
  for (const e of [side, felt]) {
    e.textContent = text;
    e.classList.toggle("low", low);
  }
  felt.hidden = false;
  $("timer-clock").hidden = false;
  const after = $("timer-reveal");
  const afterText = reveal > 0 ? t("timer_after_reveal", { s: Math.ceil(reveal / 1000) }) : "";
  if (after.textContent !== afterText) after.textContent = afterText;
  after.hidden = !afterText;
}

/**
 * What the resign confirmation says: what resigning now costs (docs/ratings.md "Aborts"). A rated match
 * resigned before both players have made a move of their own (the timer's automatic moves do not
 * count) is aborted, free while the player has free aborts left in the last 24 hours (the page's
 * ``data-free-aborts-left``, counted when it was served); after them it is a resignation and a rated
 * loss. The server decides the same way when the resignation arrives. Between people, a rated match
 * resigned before each seat made ``data-rated-min-moves`` moves is finished unrated. Otherwise: a rated
 * loss for a rated match, nothing to the rating for a casual one.
 * @param {object} state the latest state
 * @returns {string}
 */
export function resignQuestion(state) {
  const m = state.match;
  const box = $("resign-confirm");
  const left = box.dataset.freeAbortsLeft;
  const moves = (state.hand && state.hand.moves) || [];
  const bothMoved = [0, 1].every((seat) => moves.some((mv) => mv.seat === seat && !mv.auto));
  const early = m.rated && m.status === "active" && (m.hand_number || 0) <= 1 && !bothMoved;
  if (!early || left === undefined || left === "") {
    // Between people, a resignation before each seat made ``data-rated-min-moves`` moves of its own
    // finishes the match unrated (docs/fairplay.md "Limits that make farming slow"; hand 1 only: the
    // count covers the whole match, and by hand 2 both have played).
    const need = Number(box.dataset.ratedMinMoves || 0);
    const people = (m.players || []).every((p) => p && !p.is_bot);
    const own = (seat) => moves.filter((mv) => mv.seat === seat && !mv.auto).length;
    if (m.rated && m.status === "active" && people && (m.hand_number || 0) <= 1
        && [0, 1].some((seat) => own(seat) < need)) return t("resign_early_unrated", { n: need });
    return m.rated ? t("resign_rated") : t("resign_casual");
  }
  const n = box.dataset.freeAborts;
  if (Number(left) <= 0) return t("resign_abort_spent", { n });
  // a tournament board: the event still scores the abort as the aborter's loss (docs/tournaments.md)
  return t(box.dataset.eventBoard === "1" ? "resign_abort_event" : "resign_abort_free", { left, n });
}
