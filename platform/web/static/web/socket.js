// The site's reconnecting WebSocket, used by every page with a live part (the table, the watch page,
// the replay's analysis, the lobby, pools, challenge notices, the home page, tournaments and their
// banner). One connection to a same-origin ws path, reopened with exponential backoff (and jitter)
// whenever it drops, until a fatal close code or `stopped`. Each server sends what a page needs on
// every (re)connect, so nothing but the socket itself is kept here. Frames: docs/protocol.md.

/** The table's, lobby's and home page's backoff: 0.5 s doubling to 15 s, +-25 % jitter, restarted by
 * the first non-error message; 4401 no session, 4403 not seated, 4404 no such match are final. */
const DEFAULTS = {
  minDelay: 500,
  maxDelay: 15000,
  jitter: 0.25,
  fatalCodes: [4401, 4403, 4404],
  resetOn: "message",
};

export class ReconnectingSocket {
  /**
   * @param {string} path the ws path, e.g. "/ws/match/12/"
   * @param {{onMessage: function(object), onStatus: function(string, number=)}} handlers
   *   onMessage receives each JSON object the server sends (anything else is dropped); onStatus receives
   *   "connecting" | "open" | "retrying" (with the delay in ms) | "closed" (final, with the close code).
   * @param {{minDelay?: number, maxDelay?: number, jitter?: number, fatalCodes?: number[],
   *   resetOn?: "message" | "open"}} options the backoff (ms): the n-th retry in a row waits
   *   min(maxDelay, minDelay * 2^n), times 1 +- jitter; the close codes that end the socket; whether
   *   the backoff restarts on open or only on the first non-error message (see connect). Defaults:
   *   DEFAULTS above.
   */
  constructor(path, handlers, options = {}) {
    this.url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    this.handlers = handlers;
    this.options = { ...DEFAULTS, ...options };
    this.fatalCodes = new Set(this.options.fatalCodes);
    this.attempt = 0;
    this.ws = null;
    this.stopped = false;
    this.retryTimer = null;
  }

  connect() {
    if (this.stopped) return;
    this.handlers.onStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.options.resetOn === "open") this.attempt = 0;
      this.handlers.onStatus("open");
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else rather than crash the page
      }
      if (!msg || typeof msg !== "object") return;
      // By default the backoff restarts once the server really serves this socket, not when it merely
      // opens: a socket refused after its handshake (server_unavailable then close 4503 while the
      // database is down, docs/protocol.md) opens every time, and must still wait longer and longer.
      if (msg.type !== "error") this.attempt = 0;
      this.handlers.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.fatalCodes.has(event.code) || this.stopped) {
        this.stopped = true;
        this.handlers.onStatus("closed", event.code);
        return;
      }
      // Jitter so that many clients dropped together do not all reconnect in step.
      const { minDelay, maxDelay, jitter } = this.options;
      const base = Math.min(maxDelay, minDelay * 2 ** this.attempt);
      const delay = Math.round(base * (1 - jitter + Math.random() * 2 * jitter));
      this.attempt += 1;
      this.handlers.onStatus("retrying", delay);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  /** Reconnect now (e.g. the tab became visible again) instead of waiting out the backoff. */
  retryNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Send one JSON message; false when the socket is not open (the caller keeps it to resend). */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }
}
