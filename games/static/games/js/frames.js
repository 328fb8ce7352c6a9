// The table socket's `state` frames (docs/protocol.md "state", protocol 2): a frame leaves out what
// this socket was sent already, and this module puts it back. Left out, per socket, by the server:
// `match.rules` after the socket's first state (fixed for the match); `last_hand` when the socket holds
// the one numbered `last_hand_no` (an ended hand never changes); of `hand.moves`, the moves of that
// hand it holds (then `hand.moves_from` is the index of the first one sent). A socket's first state and
// every answer to `sync` are whole. What is held is per socket: a new socket starts with nothing (its
// first state is whole), so a frame missed while reconnecting never leaves a stale last hand.

export const PROTOCOL_VERSION = 2;

export class StateFrames {
  constructor() {
    this.held = null; // the latest whole state merged from THIS socket's frames (null: nothing yet)
  }

  /** A new socket: nothing it is sent relies on what an earlier socket got. */
  reset() {
    this.held = null;
  }

  /**
   * The whole state for ``frame`` (a `state` message as received), or null when the frame leaves out
   * something this socket does not hold: then the caller sends `sync` (answered with a whole state)
   * and shows nothing from this frame. A frame without `v` (protocol 1) is whole.
   */
  merge(frame) {
    const prev = this.held;
    let match = frame.match;
    if (!("rules" in match)) {
      if (!prev) return null;
      match = { ...match, rules: prev.match.rules };
    }
    let lastHand;
    if ("last_hand" in frame) lastHand = frame.last_hand;
    else if (prev && prev.last_hand && frame.last_hand_no != null && prev.last_hand.number === frame.last_hand_no) {
      lastHand = prev.last_hand;
    } else return null;
    let hand = frame.hand;
    if (hand && "moves_from" in hand) {
      const ph = prev && prev.hand;
      const from = hand.moves_from;
      if (!ph || ph.number !== hand.number || !Number.isInteger(from) || ph.moves.length < from) return null;
      hand = { ...hand, moves: ph.moves.slice(0, from).concat(hand.moves) };
      delete hand.moves_from;
    }
    const whole = { ...frame, match, hand, last_hand: lastHand };
    this.held = whole;
    return whole;
  }
}
