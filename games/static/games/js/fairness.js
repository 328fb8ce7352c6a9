// The fair-shuffle check: each hand's SHA-256 commitment is noted while the hand is played; when the
// hand ends and the server reveals deck order and salt, the page recomputes the hash
// (engine/deck.py deck_commitment) and compares it with the commitment it was shown.
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { verifyCommitment } from "./sha256.js";

export class ShuffleChecks {
  /**
   * @param {function(): void} onChange called when a check finishes (to re-render)
   * @param {string} verifyUrl the server's verify.json URL of hand 999999 (the number is replaced)
   */
  constructor(onChange, verifyUrl = "") {
    this.onChange = onChange;
    this.verifyUrl = verifyUrl;
    this.announced = new Map(); // hand number -> commitment shown during the hand
    this.results = new Map(); // `${number}@${commitment}` -> "pending" | "ok" | "bad" | "missing"
  }

  /** Remember the commitment shown for a hand in play (state.hand). */
  note(hand) {
    if (hand && hand.commitment) this.announced.set(hand.number, hand.commitment);
  }

  static key(lh) {
    return `${lh.number}@${lh.commitment}`;
  }

  /** Start checking a revealed hand (state.last_hand); idempotent. */
  async check(lh) {
    const key = ShuffleChecks.key(lh);
    if (this.results.has(key)) return;
    if (!Array.isArray(lh.deck) || lh.deck.length !== 52 || !lh.salt || !lh.commitment) {
      this.results.set(key, "missing");
      this.onChange();
      return;
    }
    this.results.set(key, "pending");
    let ok = false;
    try {
      ok = await verifyCommitment(lh.deck, lh.salt, lh.commitment);
      const shown = this.announced.get(lh.number);
      // The revealed commitment must also be the one this page showed before the hand (if it saw it).
      if (shown && shown !== lh.commitment) ok = false;
    } catch {
      ok = false;
    }
    this.results.set(key, ok ? "ok" : "bad");
    this.onChange();
  }

  /** "pending" | "ok" | "bad" | "missing" for a revealed hand. */
  status(lh) {
    return this.results.get(ShuffleChecks.key(lh)) || "pending";
  }

  /** A "verified ✓" / "verification FAILED ✗" label for a revealed hand. */
  label(lh, testid) {
    const status = this.status(lh);
    const text = { ok: "verified", bad: "verify_failed", missing: "verify_missing" }[status] || "verifying";
    const v = el("span", "verify " + (status === "ok" ? "ok" : status === "pending" ? "" : "bad"), t(text));
    if (testid) v.dataset.testid = testid;
    return v;
  }

  /** The check with the revealed deck order, salt and how to verify by hand (for the hand result). */
  element(lh) {
    const box = el("div", "shuffle-check");
    const line = el("p");
    line.append(el("span", "", t("shuffle_check") + ": "), this.label(lh, "verify-status"));
    const details = el("details");
    details.append(
      el("summary", "", t("show_deck")),
      el("p", "hash", `${t("commitment")}: ${lh.commitment}`),
      el("p", "hash", `${t("salt")}: ${lh.salt}`),
      el("p", "hash", `${t("deck_order")}: ${(lh.deck || []).join(" ")}`),
      el("p", "meta", t("verify_how")),
    );
    if (this.verifyUrl && lh.number) {
      const link = el("a", "", t("verify_json"));
      link.href = this.verifyUrl.replace("999999", String(lh.number));
      link.target = "_blank";
      link.rel = "noopener";
      details.append(link);
    }
    box.append(line, details);
    return box;
  }
}
