// The table's WebSocket: one connection to /ws/match/<id>/, reopened with exponential backoff (and
// jitter) whenever it drops. The server sends a whole `state` on every (re)connect, so nothing but the
// socket itself is kept here (the table merges a socket's later frames: frames.js). Protocol:
// docs/protocol.md.

const FATAL_CLOSE_CODES = new Set([4401, 4403, 4404]);

export class MatchSocket {
  /**
   * @param {string} path the ws path, e.g. "/ws/match/12/"
   * @param {{onMessage: function(object), onStatus: function(string, number=)}} handlers
   *   onStatus receives "connecting" | "open" | "retrying" (with the delay in ms) | "closed" (fatal,
   *   with the close code: 4401 no session, 4403 not seated, 4404 no such match; docs/protocol.md).
   */
  constructor(path, handlers) {
    this.url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    this.handlers = handlers;
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
      // The backoff restarts once the server really serves this socket, not when it merely opens: a
      // socket refused after its handshake (server_unavailable then close 4503 while the database is
      // down, docs/protocol.md) opens every time, and must still wait longer and longer.
      if (msg.type !== "error") this.attempt = 0;
      this.handlers.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (FATAL_CLOSE_CODES.has(event.code) || this.stopped) {
        this.stopped = true;
        this.handlers.onStatus("closed", event.code);
        return;
      }
      // 0.5 s, 1 s, 2 s ... capped at 15 s, with +-25% jitter so many clients do not reconnect in step.
      const base = Math.min(15000, 500 * 2 ** this.attempt);
      const delay = Math.round(base * (0.75 + Math.random() * 0.5));
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
