"""The reference client of the bot API (docs/bot-api.md): connects a bot with the engine's bot interface
(``engine.bots.base.Bot``: ``choose(view) -> action``) to the site as a BOT account."""
