"""Garbage-collector settings of a Daphne process: short pauses under live play (issue 9).

Why: CPython's cyclic collector stops the whole process (every socket of it) while it runs. With the
default thresholds ``(700, 10, 10)`` a Daphne of the production profile ran a full (generation 2)
collection every 10-15 s under ``scripts/loadtest 50`` (think 1-3 s), each one walking the 150,000-190,000
objects of Django, the apps and the engine loaded at start-up: 85-150 ms a time (measured with a
``gc.callbacks`` timer), while each action's own work is about 10 ms. Those pauses were the p99 of the
run's action -> ack latency.

What :func:`tune_for_live_play` does, once the application is loaded:

- ``gc.freeze()``: every object that exists then (modules, classes, settings, URL patterns, templates'
  loaders, ...) moves to the permanent generation, which no collection walks again. They live as long as
  the process anyway, so nothing that could be freed is kept;
- ``gc.set_threshold(*GC_THRESHOLDS)``: a young collection after 50,000 net container allocations
  instead of 700 (a move allocates a few thousand: the ORM rows, the engine's clone, the JSON), an
  older one after 20 young ones, a full one after 100 older ones (CPython also waits until the objects
  awaiting their first full collection are over a quarter of those that survived the last one).
  Cyclic garbage is still collected, in fewer and larger young collections; reference counting frees
  everything else at once as before.

Same 50-match run with both (A/B on a 2-core machine, 2 Daphne processes): no full collection in 40 s;
p99 ack 34-78 ms in six of eight runs against 109-203 ms without. The other two runs (223 and 892 ms)
hit PostgreSQL commits of 70-110 ms, the rest of the tail on that machine. Source: the ``gc`` module's
documentation of ``freeze`` and ``set_threshold``. ``freeze`` was added for pre-fork servers
(CPython bpo-31558, from Instagram), to keep the start-up heap out of collections.
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (50_000, 20, 100)
"""``gc.set_threshold`` arguments: young, older, full generation (CPython's defaults: 700, 10, 10)."""


def tune_for_live_play() -> None:
    """Freeze the heap as it is now (call it after the ASGI application is built) and raise the
    collector's thresholds to :data:`GC_THRESHOLDS`. Idempotent: a second call only freezes what was
    allocated since."""
    gc.collect()  # free start-up garbage first: what is frozen is never freed
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
