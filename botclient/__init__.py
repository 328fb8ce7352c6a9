"""The reference client of the bot API (docs/bot-api.md): connects a bot with the engine's bot interface
(``engine.bots.base.Bot``: ``choose(view) -> action``) to the site as a BOT account.

- :mod:`botclient.http`: ``Connection(base_url, token)``: ``get_json`` / ``post_json`` (errors as
  ``ApiError(status, code, message, retry_after)``; 429 and connection errors retried), ``stream(path)``
  (the ndjson streams, ``StreamGone`` after 30 s of silence);
- :mod:`botclient.views`: ``view_from_dict``: a state line's ``view`` as the engine's ``PlayerView``;
- :mod:`botclient.runner`: ``Runner(connection, bot_factory, accept=AcceptPolicy(...), max_matches=N)``:
  reads the event stream, answers challenges, plays each match in its own thread; ``stats``;
- ``python -m botclient --help`` (:mod:`botclient.__main__`): the program;
- :mod:`botclient.examples.highest_deadwood`: the tiny bot of issue 27, a few lines over the view.

Only the standard library and the engine (import-linter contract), so it runs from a clone of the
repository without the site's dependencies.
"""
