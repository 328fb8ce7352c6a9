"""Who plays whom in one quick-pairing wave (docs/lobby.md "Pairing"), framework-free.

Filled in by the pools work: a weighted matching over the players waiting in one pool.
"""

from __future__ import annotations
