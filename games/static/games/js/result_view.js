// After a hand: both hands face up with melds, layoffs and the points; after the match: the final
// score. Everything shown comes from state.last_hand (HandResult.to_dict()) and state.match.
import { byRank, cardFace, cardText } from "./cards.js";
import { el } from "./dom.js";
import { meldKind } from "./hand_view.js";
import { t, tn } from "./i18n.js";
import { headline, playerName, seatName } from "./text.js";

function group(cards, label, cls, marks = new Set()) {
  const g = el("div", "group " + (cls || ""));
  const row = el("div", "group-cards");
  for (const c of cards) {
    const face = cardFace(c);
    if (marks.has(c)) face.classList.add("layoff");
    row.append(face);
  }
  g.append(row);
  if (label) g.append(el("span", "group-label", label));
  return g;
}

function knockerRow(match, lh) {
  const r = lh.result;
  const row = el("div", "reveal-row");
  const k = r.knocker;
  const title = t(r.kind === "gin" || r.kind === "big_gin" ? "reveal_gin_hand" : "reveal_knocker_hand", {
    name: seatName(match, k),
  });
  row.append(el("h3", "", `${title} — ${t("deadwood_n", { n: r.knocker_deadwood })}`));
  const groups = el("div", "reveal-groups");
  // Laid-off cards are drawn inside the knocker's meld they extend, outlined.
  const laid = new Map();
  for (const x of r.layoffs || []) {
    if (!laid.has(x.meld)) laid.set(x.meld, []);
    laid.get(x.meld).push(x.card);
  }
  const layoffCards = new Set((r.layoffs || []).map((x) => x.card));
  r.knocker_melds.forEach((m, i) => {
    const extra = laid.get(i) || [];
    const cards = meldKind(m) === "run" ? byRank([...m, ...extra]) : [...m, ...extra];
    groups.append(group(cards, t(meldKind(m) === "set" ? "meld_set" : "meld_run"), `meld meld-${i % 4}`, layoffCards));
  });
  if (r.knocker_unmatched.length) groups.append(group(r.knocker_unmatched, t("group_deadwood"), "deadwood"));
  row.append(groups);
  return row;
}

function defenderRow(match, lh) {
  const r = lh.result;
  const d = 1 - r.knocker;
  const row = el("div", "reveal-row");
  row.append(el("h3", "", `${t("reveal_defender_hand", { name: seatName(match, d) })} — ${t("deadwood_n", { n: r.defender_deadwood })}`));
  const groups = el("div", "reveal-groups");
  r.defender_melds.forEach((m, i) =>
    groups.append(group(m, t(meldKind(m) === "set" ? "meld_set" : "meld_run"), `meld meld-${(i + 2) % 4}`)),
  );
  if (r.defender_unmatched.length) groups.append(group(r.defender_unmatched, t("group_deadwood"), "deadwood"));
  row.append(groups);
  if ((r.layoffs || []).length) {
    row.append(el("p", "layoff-note", t("laid_off", { cards: r.layoffs.map((x) => cardText(x.card)).join(" ") })));
  }
  return row;
}

/** A hand without a knocker (dead hand, resignation): arranged into melds and deadwood when the
 * server sent ``arrangements`` (docs/protocol.md ``last_hand``), else one row by rank. */
function plainRow(match, lh, seat) {
  const row = el("div", "reveal-row");
  const arr = (lh.arrangements || [])[seat];
  const name = t("reveal_plain_hand", { name: seatName(match, seat) });
  row.append(el("h3", "", arr ? `${name} — ${t("deadwood_n", { n: arr.deadwood })}` : name));
  const groups = el("div", "reveal-groups");
  if (arr) {
    arr.melds.forEach((m, i) =>
      groups.append(group(m, t(meldKind(m) === "set" ? "meld_set" : "meld_run"), `meld meld-${i % 4}`)),
    );
    if (arr.deadwood_cards.length) groups.append(group(arr.deadwood_cards, t("group_deadwood"), "deadwood"));
  } else {
    groups.append(group(byRank(lh.final_hands[seat] || []), "", ""));
  }
  row.append(groups);
  return row;
}

/**
 * Fill ``box`` with the hand result card.
 * @param {object} state the latest state (match names/scores)
 * @param {object} lh state.last_hand
 * @param {HTMLElement} verifyEl the shuffle-check element to place in the card
 */
export function renderHandResult(box, state, lh, verifyEl) {
  const match = state.match;
  box.replaceChildren();
  const title = el("h2", "", t("hand_over_title", { n: lh.number }));
  title.id = "result-title";
  box.append(title);
  const head = el("p", "headline");
  head.append(el("strong", "", headline(match, lh)));
  box.append(head);
  const r = lh.result;
  const me = viewerSeat(match);
  if (!r || r.kind === "dead" || r.knocker === null || r.knocker === undefined) {
    box.append(plainRow(match, lh, me), plainRow(match, lh, 1 - me));
  } else {
    box.append(knockerRow(match, lh), defenderRow(match, lh));
  }
  const extra = [];
  if (r && r.bonus) extra.push(tn("bonus_n", r.bonus, { n: r.bonus }));
  if (r && r.multiplier && r.multiplier > 1) {
    // Oklahoma: the points before doubling, then the doubled total ("13 × 2 = 26").
    extra.push(tn("doubled_calc", r.points, { before: r.points / r.multiplier, m: r.multiplier, points: r.points }));
  }
  if (extra.length) box.append(el("p", "meta", extra.join(" · ")));
  const sc = lh.scores_after || match.scores;
  if (isSpectator(match)) {
    box.append(el("p", "meta", t("score_line_both", {
      a: seatName(match, 0), x: sc[0], b: seatName(match, 1), y: sc[1], target: match.target,
    })));
  } else {
    box.append(
      el("p", "meta", t("score_line", {
        you: sc[match.you], name: seatName(match, 1 - match.you), them: sc[1 - match.you], target: match.target,
      })),
    );
  }
  if (verifyEl) box.append(verifyEl);
}

/** A viewer who plays neither seat (``match.you`` null: replay, spectator). */
function isSpectator(match) {
  return match.you === null || match.you === undefined;
}

/** The seat drawn first: the viewer's own, or seat 0 for a spectator. */
function viewerSeat(match) {
  return isSpectator(match) ? 0 : match.you;
}

/** Fill ``box`` with the match-end card: winner, reason, final scores with end bonuses. */
export function renderMatchEnd(box, state) {
  const match = state.match;
  box.replaceChildren();
  // A spectator reads it from the winner's side: "<loser> resigned", the winner's row first.
  const you = isSpectator(match) ? match.winner : match.you;
  let title;
  const abandoned = match.status === "aborted" && match.result_reason === "abandoned";
  if (abandoned) title = t("match_abandoned");
  else if (match.status === "aborted") title = t("match_aborted");
  else if (isSpectator(match)) title = t("match_lost", { name: seatName(match, match.winner) });
  else if (match.winner === you) title = t("match_won");
  else title = t("match_lost", { name: seatName(match, 1 - you) });
  const heading = el("h2", "", title);
  heading.id = "match-end-title";
  box.append(heading);
  const reason = match.result_reason;
  if (abandoned) {
    const bot = (match.players || []).some((p) => p && p.is_bot);
    const why = match.abandon ? match.abandon.why : null;
    let text;
    if (why === "left") {
      // claimed by the player who stayed: seat is the one who left
      text = match.abandon.seat === you ? t("reason_abandoned_left_you") : t("reason_abandoned_left_them", { name: seatName(match, match.abandon.seat) });
    } else if (why === "gone") text = t("reason_abandoned_gone");
    else text = t(bot ? "reason_abandoned_bot" : "reason_abandoned_away");
    box.append(el("p", "headline", text));
  } else if (reason === "left") {
    let text;
    if (isSpectator(match)) text = t("reason_left_watch", { name: seatName(match, 1 - match.winner), winner: seatName(match, match.winner) });
    else text = match.winner === you ? t("reason_left_them", { name: seatName(match, 1 - you) }) : t("reason_left_you");
    box.append(el("p", "headline", text));
  } else if (reason === "resign") {
    box.append(el("p", "headline", match.winner === you ? t("reason_resign_them", { name: seatName(match, 1 - you) }) : t("reason_resign_you")));
  } else if (reason === "timeout") {
    box.append(el("p", "headline", match.winner === you ? t("reason_timeout_them", { name: seatName(match, 1 - you) }) : t("reason_timeout_you")));
  } else if (reason === "target") {
    box.append(el("p", "headline", tn("reason_target", match.target, { target: match.target })));
  }
  const table = el("table", "final-scores");
  const thead = el("thead");
  const hr = el("tr");
  for (const [text, cls] of [[t("player"), ""], [t("hands_won"), "num"], [t("hand_points"), "num"], [t("end_bonuses"), "num"], [t("total"), "num"]]) {
    const th = el("th", cls, text);
    th.scope = "col";
    hr.append(th);
  }
  thead.append(hr);
  table.append(thead);
  const tbody = el("tbody");
  const handPoints = reason === "target" && state.last_hand ? state.last_hand.scores_after : match.scores;
  for (const seat of [you, 1 - you]) {
    const tr = el("tr");
    const bonus = match.scores[seat] - handPoints[seat];
    const name = el("span", "player-name", seatName(match, seat));
    const p = match.players[seat];
    if (seat !== you && p) name.title = playerName(p);
    const nameCell = el("td", "name");
    nameCell.append(name);
    tr.append(
      nameCell,
      el("td", "num", String((match.hands_won || [0, 0])[seat])),
      el("td", "num", String(handPoints[seat])),
      el("td", "num", bonus ? "+" + bonus : "0"),
      el("td", "num", String(match.scores[seat])),
    );
    if (seat === match.winner) {
      const w = el("span", "badge turn", t("winner"));
      tr.querySelector("td").append(" ", w);
    }
    tbody.append(tr);
  }
  table.append(tbody);
  box.append(table);
  box.append(handsSummary(match));
}

/** The match-end per-hand summary (state.match.hands: hand, kind, winner, points, scores after it):
 * who won each hand, how, its points and the running total (the viewer's first). */
function handsSummary(match) {
  const hands = match.hands || [];
  const wrap = el("div", "hands-summary");
  wrap.append(el("h3", "", t("hands_summary")));
  if (!hands.length) {
    wrap.append(el("p", "meta", t("no_hand_finished")));
    return wrap;
  }
  const table = el("table", "final-scores hands");
  table.dataset.testid = "hands-summary";
  const hr = el("tr");
  const cols = [["col_hand", "num"], ["col_winner", ""], ["col_how", ""], ["col_points", "num"], ["col_running", "num"]];
  for (const [key, cls] of cols) {
    const th = el("th", cls, t(key));
    th.scope = "col";
    hr.append(th);
  }
  const thead = el("thead");
  thead.append(hr);
  const tbody = el("tbody");
  const me = match.you === null || match.you === undefined ? 0 : match.you;
  for (const h of hands) {
    const tr = el("tr");
    const who = h.winner === null || h.winner === undefined ? "—" : seatName(match, h.winner);
    tr.append(
      el("td", "num", String(h.hand)),
      el("td", "", who),
      el("td", "", t("kind_" + h.kind)),
      el("td", "num", String(h.points)),
      el("td", "num", `${h.scores[me]}–${h.scores[1 - me]}`),
    );
    tbody.append(tr);
  }
  table.append(thead, tbody);
  wrap.append(table);
  return wrap;
}

