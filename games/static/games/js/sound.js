// Short table sounds made with WebAudio (no files, no CDN): your turn, a draw, a discard, a knock, gin
// and the hand result. Off by default; the toggle is remembered in localStorage ("gin.sound" = "1").
// The AudioContext is created on the first toggle click (browsers only allow sound after a gesture).
import { store, stored } from "./dom.js";

const KEY = "gin.sound";

// name -> notes [frequency Hz, start s, length s, wave]
const TUNES = {
  turn: [[660, 0, 0.09, "sine"], [880, 0.11, 0.12, "sine"]],
  draw: [[320, 0, 0.05, "triangle"]],
  discard: [[220, 0, 0.07, "triangle"], [180, 0.05, 0.05, "triangle"]],
  knock: [[150, 0, 0.06, "square"], [150, 0.12, 0.06, "square"], [150, 0.24, 0.06, "square"]],
  gin: [[523, 0, 0.1, "sine"], [659, 0.1, 0.1, "sine"], [784, 0.2, 0.18, "sine"]],
  result: [[440, 0, 0.12, "sine"], [330, 0.14, 0.18, "sine"]],
};

export class Sounds {
  constructor() {
    this.enabled = stored("localStorage", KEY) === "1";
    this.ctx = null;
  }

  /** Switch sound on or off (remembered); returns the new setting. Call from a click handler. */
  toggle() {
    this.enabled = !this.enabled;
    store("localStorage", KEY, this.enabled ? "1" : "0");
    if (this.enabled) this._context();
    return this.enabled;
  }

  _context() {
    if (this.ctx === null) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return null;
      this.ctx = new Ctx();
    }
    if (this.ctx.state === "suspended") this.ctx.resume();
    return this.ctx;
  }

  /** Play the tune ``name`` (a key of TUNES) if sound is on. The last one is noted on <html
   * data-last-sound> (for tests and for people checking what they heard). */
  play(name) {
    if (!this.enabled || !TUNES[name]) return;
    document.documentElement.dataset.lastSound = name;
    const ctx = this._context();
    if (!ctx) return;
    const now = ctx.currentTime;
    for (const [freq, start, length, wave] of TUNES[name]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.18, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  }
}

/**
 * The sound for the step from state ``prev`` to ``next`` (docs/protocol.md ``state``), or null: a hand
 * that just ended (knock / gin / result), else the latest move (draw / discard), else the player's turn.
 */
export function soundFor(prev, next) {
  const lh = next.last_hand;
  const plh = prev.last_hand;
  if (lh && (!plh || plh.number !== lh.number || plh.ended_at !== lh.ended_at)) {
    const kind = lh.result && lh.result.kind;
    if (kind === "gin" || kind === "big_gin") return "gin";
    if (kind === "knock" || kind === "undercut") return "knock";
    return "result";
  }
  const h = next.hand;
  const ph = prev.hand;
  if (!h) return null;
  const la = h.last_action;
  const pla = ph && ph.number === h.number ? ph.last_action : null;
  const moved = la && JSON.stringify(la) !== JSON.stringify(pla);
  if (h.your_turn && !(ph && ph.your_turn && ph.number === h.number)) return "turn";
  if (moved) {
    const verb = la.action.split(" ")[0];
    if (verb === "draw" || verb === "take") return "draw";
    if (verb === "discard" || verb === "pass") return "discard";
  }
  return null;
}
