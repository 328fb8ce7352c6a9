"""Signals of the games app.

Both are sent by ``games.services.finish.match_finish``, the one place a match ends (every way it ends
goes through it, exactly once per match).

``match_finished``: sent AFTER the commit that finished a match (status ``finished``, never for an
aborted one), once, with ``match_id`` (int) and ``rated`` (bool). Receivers must be quick and must not
raise: ``ratings`` enqueues its rating task here; tournaments may advance a round.

``match_left``: see below (sent inside the transaction, for playbans).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()

match_left = Signal()
"""Sent INSIDE the transaction that ends a match between people because players left it, so that what
receivers write commits or rolls back with the end (``lobby`` records its playbans here; docs/lobby.md
"Playbans"). Arguments: ``match`` (the locked :class:`games.models.Match`, already ended: ``rated``,
``status``, ``result_reason`` set), ``seats`` (list of the seats, 0/1, that left), ``why``
(``"abandoned"``: gone from the table, the opponent claimed or the server ended it; ``"timeouts"``: let
the turn timer play ``TIMEOUT_STRIKES_TO_LOSE`` turns in a row) and ``now`` (the aware datetime of the
end). A receiver that raises rolls the end back: keep them small and well tested."""
