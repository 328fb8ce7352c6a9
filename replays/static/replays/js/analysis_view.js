// The replay page's computer analysis (replays/_analysis_panel.html; docs/analysis.md). The server
// does all the judging (engine/analysis.py, run by a worker) and pushes its progress over
// ws/analysis/<id>/; this module asks for it (the panel's form, posted with fetch), shows the progress,
// the per-player summary, and hands the replay viewer each move's mark (?!, ?, ??) with the preferred
// move and its cost.
import { cardText } from "../../games/js/cards.js";
import { $, el, setText, show } from "../../games/js/dom.js";
import { t } from "../../games/js/i18n.js";
import { ReconnectingSocket } from "../../web/socket.js";

const MARK_CLASS = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };

/** A number of points in the page language, one decimal ("2.5" / "2,5"). */
export function points(value) {
  const lang = document.documentElement.lang || "en";
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

/** An action ("discard 9h", "knock", "draw stock"...) as the words after "better": "to discard 9♥". */
export function moveWords(action) {
  const [verb, arg] = action.split(" ");
  if (verb === "take") return t("an_act_take");
  if (verb === "pass") return t("an_act_pass");
  if (verb === "draw") return t(arg === "stock" ? "an_act_draw_stock" : "an_act_draw_discard");
  if (verb === "discard") return t("an_act_discard", { card: cardText(arg) });
  if (verb === "knock" && arg) return t("an_act_knock", { card: cardText(arg) });
  if (verb === "knock") return t("an_act_big_gin");
  return action;
}

/** An element for a decision's mark ("?!" with its kind and the better move as the title), or null. */
export function markElement(decision) {
  if (!decision || !decision.mark) return null;
  const mark = el("span", `an-mark ${MARK_CLASS[decision.mark]}`, decision.mark);
  mark.title = t("an_move_title", {
    kind: t(`an_mark_${decision.mark}`), move: moveWords(decision.best), cost: points(decision.cost),
  });
  mark.dataset.mark = decision.mark;
  return mark;
}

/** The sentence shown at a step whose move was analysed. */
export function stepSentence(decision, name) {
  if (decision.mark) {
    return t("an_better", {
      kind: t(`an_mark_${decision.mark}`), move: moveWords(decision.best), cost: points(decision.cost),
    });
  }
  if (decision.best !== decision.chosen) {
    return t("an_close", { move: moveWords(decision.best), cost: points(decision.cost) });
  }
  return t("an_agrees", { name });
}

export class AnalysisView {
  /**
   * @param {{onChange: function(), name: function(number): string}} handlers onChange: the analysis
   *   gained marks (redraw the moves); name: a seat's player name
   */
  constructor(handlers) {
    this.root = $("analysis");
    this.handlers = handlers;
    this.state = this.root ? JSON.parse($("analysis-data").textContent) : null;
    this.byStep = new Map();
    this.socket = null;
    this.index();
    if (!this.root) return;
    $("analyse-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.request();
    });
    if (this.state.status === "queued" || this.state.status === "running") this.listen();
    this.render();
  }

  get available() {
    return !!this.root;
  }

  /** The decision judged at ``step`` of hand number ``hand`` (or undefined). */
  decision(hand, step) {
    return this.byStep.get(`${hand}:${step}`);
  }

  index() {
    this.byStep.clear();
    const result = this.state && this.state.result;
    if (!result) return;
    for (const d of result.decisions) this.byStep.set(`${d.hand}:${d.step}`, d);
  }

  /** Open the socket (once): it sends the current state, then each progress report. */
  listen() {
    if (this.socket) return Promise.resolve();
    return new Promise((resolve) => {
      let first = true;
      this.socket = new ReconnectingSocket(this.root.dataset.wsPath, {
        onMessage: (msg) => {
          if (msg.type === "analysis") this.update(msg);
          else if (msg.type === "error") this.refused(msg.message);
          if (first) {
            first = false;
            resolve();
          }
        },
        onStatus: (status) => {
          if (status === "closed" && first) {
            first = false;
            resolve();
          }
        },
      });
      this.socket.connect();
    });
  }

  /** "Analyse": open the socket first (so the progress has somewhere to go), then ask the server. */
  async request() {
    $("btn-analyse").disabled = true;
    show("analysis-error", false);
    await this.listen();
    const form = $("analyse-form");
    let answer;
    try {
      const response = await fetch(form.action, {
        method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      answer = await response.json();
    } catch {
      answer = { error: "network", message: t("an_network") };
    }
    $("btn-analyse").disabled = false;
    if (answer.error) this.refused(answer.message);
    else if (answer.status === "done") this.socket.send({ type: "sync" }); // the result comes over the socket
    // the answer is the row as the request left it ("queued"): the socket, open since before the request,
    // may have brought the run's progress (or its end) already, and that is newer
    else if (this.state.status === "none" || this.state.status === "failed") this.update(answer);
  }

  refused(message) {
    setText("analysis-error", t("an_refused", { reason: message }));
    show("analysis-error", true);
  }

  update(msg) {
    const hadResult = !!(this.state && this.state.result);
    this.state = { ...this.state, ...msg };
    if (msg.status === "done" && !msg.result && !hadResult) {
      this.socket && this.socket.send({ type: "sync" });
    }
    this.index();
    if (this.state.result && this.socket) {
      this.socket.stopped = true; // nothing more will come
      if (this.socket.ws) this.socket.ws.close();
    }
    this.render();
    if (this.state.result && !hadResult) this.handlers.onChange();
  }

  render() {
    const s = this.state;
    this.root.dataset.status = s.status;
    const busy = s.status === "queued" || s.status === "running";
    show("btn-analyse", s.status === "none" || s.status === "failed");
    $("btn-analyse").textContent = s.status === "failed" ? t("an_again") : $("btn-analyse").textContent;
    show("analysis-progress", busy);
    if (busy) {
      const bar = $("analysis-bar");
      bar.max = Math.max(1, s.total);
      bar.value = s.done;
      setText("analysis-count", s.status === "queued" || !s.total ? t("an_queued")
        : t("an_running", { done: s.done, total: s.total }));
    }
    if (s.status === "failed") {
      setText("analysis-error", t("an_failed", { reason: s.error }));
      show("analysis-error", true);
    }
    const result = s.status === "done" ? s.result : null;
    show("analysis-summary", !!result);
    if (!result) return;
    for (const p of result.summary) {
      const name = this.handlers.name(p.seat);
      setText(`an-name-${p.seat}`, name);
      $(`an-name-${p.seat}`).title = name;
      setText(`an-decisions-${p.seat}`, String(p.decisions));
      for (const [mark, kind] of Object.entries(MARK_CLASS)) setText(`an-${kind}-${p.seat}`, String(p.marks[mark]));
      setText(`an-average-${p.seat}`, points(p.average_cost));
    }
    setText("analysis-count", t("an_done", { n: result.decisions.length }));
  }

  /** The step's sentence under the panel (hidden when the step's move was not analysed). */
  renderStep(hand, step, name) {
    if (!this.root) return;
    const d = this.decision(hand, step);
    show("analysis-step", !!d);
    const box = $("analysis-step");
    box.replaceChildren();
    if (!d) return;
    const mark = markElement(d);
    box.className = "analysis-step" + (d.mark ? ` ${MARK_CLASS[d.mark]}` : "");
    box.append(document.createTextNode(stepSentence(d, name)));
    box.dataset.mark = d.mark || "";
    if (mark) box.prepend(mark, document.createTextNode(" "));
  }
}
