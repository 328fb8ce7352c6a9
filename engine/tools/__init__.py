"""The engine's tools: programs and helpers built on the rules library, never imported by it.

- ``arena``: bot-vs-bot matches in duplicate pairs (``python -m engine.tools.arena``);
- ``roundrobin``: every pair of bot levels, fitted to Elo (``python -m engine.tools.roundrobin``),
  which writes the file the rating system reads (``data/bot_elo.json``);
- ``bench``, ``botbench``: timings of the meld search, scoring, playouts and the bots' decisions;
- ``playout``: seeded random matches and hands (the property tests, the benches);
- ``cli``: ``python -m engine deadwood|score --jsonl`` and ``python -m engine replay verify FILE``.

The library (every other module of ``engine``) imports nothing from here (an import-linter contract in
pyproject.toml); the site imports nothing from here either.
"""
