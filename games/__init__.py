"""Matches, live play over WebSockets and the append-only match event log (docs/protocol.md)."""
