"""The bot API in the OpenAPI schema (``/api/schema/``; docs/bot-api.md is the guide).

- Request and answer serializers for the bot API's DRF views to name in ``extend_schema`` (they describe,
  they do not validate: the views read their bodies themselves): :class:`ActionRequest` ->
  :class:`ActionAnswer`, :class:`ChallengeRequest` -> :class:`ChallengeAnswer`, :class:`HouseMatchRequest`
  -> :class:`MatchAnswer`, :class:`Account`, :class:`UpgradeAnswer`, :class:`ResignAnswer`, and
  :data:`BOT_ERRORS` (the refusals every bot operation may answer, with :class:`BotError` bodies). Use::

      @extend_schema(operation_id="bot_action", request=ActionRequest, responses=bot_responses(ActionAnswer),
                     tags=["bot"])

- The stream lines (``C``, ``P``, ``M``, ``S``, ``V`` of docs/bot-api.md): :class:`Challenge`,
  :class:`Player`, :class:`MatchStarted`, :class:`State`, :class:`View`, and the line objects.
- :class:`BearerTokenScheme`: ``botapi.auth.BearerToken`` as the ``BotToken`` security scheme (HTTP
  bearer); registered when this module is imported (``BotApiConfig.ready``).
- :func:`add_bot_api`, a postprocessing hook (``SPECTACULAR_SETTINGS``): adds the two ndjson streams (async
  Django views, which drf-spectacular does not see) with ``application/x-ndjson`` answers whose schema is
  ``oneOf`` the stream's line objects, and gives every ``/api/v1/bot/`` operation the ``BotToken``
  requirement and its 401/403 answers.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import serializers
from rest_framework.views import APIView

BOT_PREFIX = "/api/v1/bot/"
SCHEME = "BotToken"
NDJSON = "application/x-ndjson"
MAX_TURN_TIMER = 120
SECURITY_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "bearerFormat": "gin_ + 40 characters",
    "description": "A personal API token (the page API tokens, /accounts/tokens/, from your profile), "
                   "shown once. Scopes: bot:play, challenge:write (docs/bot-api.md).",
}


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """``Authorization: Bearer gin_...`` (``botapi.auth.BearerToken``) as the ``BotToken`` scheme."""

    target_class = "botapi.auth.BearerToken"
    name = SCHEME

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return dict(SECURITY_SCHEME)


# -- bodies of requests and answers ----------------------------------------------------------------


class BotError(serializers.Serializer[Any]):
    """Every refusal of the bot API (the public API's shape)."""

    error = serializers.CharField(help_text="Machine-readable code: out_of_turn, stale_seq, bad_token, ...")
    message = serializers.CharField(help_text="What went wrong, in English.")


class ActionRequest(serializers.Serializer[Any]):
    """``POST match/{id}/action/``."""

    action = serializers.CharField(
        max_length=32, help_text="The engine's notation: take, pass, draw stock, draw discard, discard Kc, "
                                 "knock Kc, knock (big gin). One of the view's legal_actions.")
    seq = serializers.IntegerField(min_value=0, help_text="The seq of the last state read (match stream).")
    id = serializers.CharField(
        max_length=64, required=False,
        help_text="Optional retry key: the same id posted again is answered repeat=true, applied once.")


class ActionAnswer(serializers.Serializer[Any]):
    """The action was applied (or had been: ``repeat``)."""

    seq = serializers.IntegerField(help_text="The seq the action was applied at.")
    last_seq = serializers.IntegerField(help_text="The match's seq after it (wait for that state).")
    repeat = serializers.BooleanField(help_text="True when this id had been applied already (nothing new).")


class ResignAnswer(serializers.Serializer[Any]):
    """``POST match/{id}/resign/``: the match is over, lost by this seat."""

    seq = serializers.IntegerField()
    last_seq = serializers.IntegerField()


class ChallengeRequest(serializers.Serializer[Any]):
    """``POST challenge/{username}/``: every field optional."""

    target = serializers.IntegerField(required=False, min_value=1, help_text="Points to win (default 100).")
    turn_timer = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_TURN_TIMER,
        help_text="Seconds per move (default 30; a match with a BOT account always has a timer).")
    rated = serializers.BooleanField(required=False, help_text="Rated (default false).")
    preset = serializers.CharField(required=False, help_text="A rules preset: classic (default), table, "
                                                             "brazilian, oklahoma, hoyle, two_deck.")


class HouseMatchRequest(serializers.Serializer[Any]):
    """``POST match/house/``: play a house bot now."""

    level = serializers.IntegerField(min_value=1, max_value=5)
    target = serializers.IntegerField(required=False, min_value=1, help_text="50 or 100 (default 100).")
    rated = serializers.BooleanField(required=False, help_text="Rated (default true).")
    turn_timer = serializers.IntegerField(required=False, min_value=15, max_value=MAX_TURN_TIMER,
                                          help_text="Seconds per move (default 30).")
    preset = serializers.CharField(required=False, help_text="A rules preset (default classic).")


class ResignRequest(serializers.Serializer[Any]):
    """``POST match/{id}/resign/``: the body may be empty."""

    id = serializers.CharField(max_length=64, required=False, help_text="Optional retry key.")


class ChallengeEnded(serializers.Serializer[Any]):
    """``POST challenge/{id}/decline/`` and ``cancel/``: the challenge is closed."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["declined", "cancelled"])


@extend_schema_serializer(component_name="BotPlayer")
class Player(serializers.Serializer[Any]):
    """``P`` (``botapi.players.player_object``)."""

    username = serializers.CharField(allow_null=True, help_text="Null for a guest.")
    name = serializers.CharField(help_text="The public name.")
    bot_account = serializers.BooleanField(help_text="A BOT account (plays through this API).")
    house_bot_level = serializers.IntegerField(allow_null=True, min_value=1, max_value=5,
                                               help_text="1..5 for a house bot, else null.")
    rating = serializers.IntegerField(allow_null=True, help_text="Whole rating points; null for a guest.")


@extend_schema_serializer(component_name="BotChallenge")
class Challenge(serializers.Serializer[Any]):
    """``C``: a challenge to this account (``in``) or by it (``out``); unanswered, it expires."""

    id = serializers.IntegerField()
    direction = serializers.ChoiceField(choices=["in", "out"])
    challenger = Player()
    challenged = Player()
    preset = serializers.CharField()
    target = serializers.IntegerField()
    turn_timer = serializers.IntegerField()
    rated = serializers.BooleanField()
    expires_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="BotMatch")
class MatchStarted(serializers.Serializer[Any]):
    """``M``: a match of this account that started."""

    id = serializers.IntegerField(help_text="Open GET /api/v1/bot/match/{id}/stream/.")
    seat = serializers.IntegerField(min_value=0, max_value=1)
    opponent = Player()
    rated = serializers.BooleanField()
    target = serializers.IntegerField()
    turn_timer = serializers.IntegerField()


@extend_schema_serializer(component_name="BotMatchFinished")
class MatchFinished(serializers.Serializer[Any]):
    """A match of this account that ended."""

    id = serializers.IntegerField()
    seat = serializers.IntegerField(min_value=0, max_value=1)
    status = serializers.ChoiceField(choices=["finished", "aborted"])
    winner = serializers.IntegerField(allow_null=True, min_value=0, max_value=1, help_text="A seat, or null.")
    result_reason = serializers.CharField(allow_null=True, help_text="target, resign, timeout, aborted, "
                                                                     "abandoned, left.")
    scores = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)


@extend_schema_serializer(component_name="BotAccount")
class Account(serializers.Serializer[Any]):
    """``GET account/``."""

    username = serializers.CharField()
    name = serializers.CharField()
    bot = serializers.BooleanField(help_text="A BOT account.")
    paused_until = serializers.DateTimeField(allow_null=True, help_text="Paused for timeouts until then.")
    rating = serializers.IntegerField()
    provisional = serializers.BooleanField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=["bot:play", "challenge:write"]))


class UpgradeAnswer(serializers.Serializer[Any]):
    """``POST account/upgrade/``: the account is a BOT account (again: the same answer)."""

    username = serializers.CharField()
    bot = serializers.BooleanField()


@extend_schema_serializer(component_name="BotMatchAnswer")
class MatchAnswer(serializers.Serializer[Any]):
    """A match that started (house bot, an accepted challenge)."""

    match = MatchStarted()


@extend_schema_serializer(component_name="BotChallengeAnswer")
class ChallengeAnswer(serializers.Serializer[Any]):
    challenge = Challenge()


@extend_schema_serializer(component_name="BotHistoryItem")
class HistoryItem(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=0, max_value=1)
    action = serializers.CharField(help_text="The engine's notation.")
    card = serializers.CharField(allow_null=True, help_text="The card drawn, when this seat may know it.")


@extend_schema_serializer(component_name="BotView")
class View(serializers.Serializer[Any]):
    """``V``: the current hand as this seat sees it, ``engine.view.PlayerView.to_dict()`` (docs/engine.md).
    Never a concealed card: the opponent's hand only once the hand is over (``opponent_hand``)."""

    player = serializers.IntegerField(min_value=0, max_value=1)
    rules = serializers.DictField(help_text="engine.rules.RuleSet.to_dict()")
    phase = serializers.ChoiceField(choices=["offer_nondealer", "offer_dealer", "draw", "discard", "ended"])
    current_player = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField()
    hand = serializers.ListField(child=serializers.CharField())
    discard_pile = serializers.ListField(child=serializers.CharField(), help_text="Bottom to top.")
    upcard = serializers.CharField(allow_null=True)
    first_upcard = serializers.CharField(allow_null=True)
    stock_size = serializers.IntegerField()
    opponent_hand_size = serializers.IntegerField()
    opponent_known = serializers.ListField(child=serializers.CharField(),
                                           help_text="Cards the opponent took from the pile and holds.")
    knock_limit = serializers.IntegerField()
    multiplier = serializers.IntegerField()
    taken_card = serializers.CharField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    hand_number = serializers.IntegerField()
    history = HistoryItem(many=True)
    legal_actions = serializers.ListField(
        child=serializers.CharField(), help_text="What the engine accepts now (empty: not this seat's turn).")
    result = serializers.DictField(allow_null=True, help_text="HandResult.to_dict() once the hand ended.")
    opponent_hand = serializers.ListField(child=serializers.CharField(), allow_null=True)


@extend_schema_serializer(component_name="BotLastHand")
class LastHand(serializers.Serializer[Any]):
    """``H``: the hand that ended last, both hands shown."""

    number = serializers.IntegerField()
    result = serializers.DictField()
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))


@extend_schema_serializer(component_name="BotState")
class State(serializers.Serializer[Any]):
    """``S``: the match as this seat sees it after a change."""

    seq = serializers.IntegerField(help_text="Increasing; post actions with the last one read.")
    status = serializers.ChoiceField(choices=["active", "finished", "aborted"])
    scores = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)
    hand_number = serializers.IntegerField()
    to_move = serializers.IntegerField(allow_null=True, min_value=0, max_value=1)
    turn_deadline = serializers.DateTimeField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True, min_value=0, max_value=1)
    result_reason = serializers.CharField(allow_null=True)
    view = View(allow_null=True)
    last_hand = LastHand(allow_null=True)


class ChallengeLine(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=["challenge"])
    challenge = Challenge()


class ChallengeClosedLine(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=["challengeClosed"])
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["accepted", "declined", "cancelled", "expired"])


class MatchStartLine(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=["matchStart"])
    match = MatchStarted()


class MatchFinishLine(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=["matchFinish"])
    match = MatchFinished()


class MatchFull(serializers.Serializer[Any]):
    """The match stream's first line."""

    type = serializers.ChoiceField(choices=["matchFull"])
    v = serializers.ChoiceField(choices=[1], help_text="The protocol's version.")
    id = serializers.IntegerField()
    seat = serializers.IntegerField(min_value=0, max_value=1)
    players = Player(many=True)
    rated = serializers.BooleanField()
    target = serializers.IntegerField()
    turn_timer = serializers.IntegerField()
    rules = serializers.DictField(help_text="engine.rules.RuleSet.to_dict()")
    state = State()


@extend_schema_serializer(component_name="StateLine")
class StateLine(State):
    """Every later line of the match stream: ``{"type": "state", ...S}``."""

    type = serializers.ChoiceField(choices=["state"])


EVENT_LINES: list[type[serializers.Serializer[Any]]] = [ChallengeLine, ChallengeClosedLine, MatchStartLine,
                                                         MatchFinishLine]
MATCH_LINES: list[type[serializers.Serializer[Any]]] = [MatchFull, StateLine]

BOT_ERRORS: dict[int, str] = {
    401: "`not_authenticated` (no token), `bad_token` (unknown or revoked).",
    403: "`missing_scope`, `not_bot` (upgrade first), `not_seated`, `bot_paused`.",
}
"""The refusals of the token and the account, on every bot operation (besides the common 400/404/429)."""


def bot_responses(ok: Any, status: int = 200) -> dict[int, Any]:
    """``responses=`` of a bot operation: ``ok`` at ``status``, and :data:`BOT_ERRORS`."""
    refusals = {code: OpenApiResponse(BotError, description=text) for code, text in BOT_ERRORS.items()}
    return {status: ok, **refusals}


# -- the postprocessing hook -----------------------------------------------------------------------

_STREAMS: dict[str, dict[str, Any]] = {
    "/api/v1/bot/stream/events/": {
        "operationId": "bot_stream_events",
        "summary": "The account's event stream (ndjson)",
        "description": (
            "One JSON object per line, `application/x-ndjson`, for as long as the client reads. On connect: "
            "a "
            "`matchStart` for every match the account is playing and a `challenge` for every open challenge; "
            "then `challenge`, `challengeClosed`, `matchStart`, `matchFinish` as they happen. A blank line "
            "every 7 s keeps the connection alive (skip it); no line for 30 s: reconnect. At most 2 streams "
            "per account (`429 too_many_streams`). Scope `bot:play`; BOT accounts only."),
        "lines": EVENT_LINES,
        "parameters": [],
    },
    "/api/v1/bot/match/{id}/stream/": {
        "operationId": "bot_stream_match",
        "summary": "One match as this seat sees it (ndjson)",
        "description": (
            "`matchFull` first (the rules, the players, the state), then a `state` after every change of the "
            "match (`seq` increasing); the last `state` has status `finished` or `aborted` and the stream "
            "ends. A blank line every 7 s keeps the connection alive. Never a concealed card: the "
            "opponent's cards only once a hand ended, never the stock's order. Only a BOT seated in the "
            "match (`403 not_seated`, `404 no_such_match`)."),
        "lines": MATCH_LINES,
        "parameters": [{"in": "path", "name": "id", "required": True,
                        "schema": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
                        "description": "The match's id (from `matchStart`)."}],
    },
}


def _components(serializer_classes: list[type[serializers.Serializer[Any]]]) -> tuple[list[dict[str, str]],
                                                                                      dict[str, Any]]:
    """The ``$ref`` of each serializer and the component schemas they need, as drf-spectacular builds them
    for a view's answer."""
    auto = AutoSchema()
    auto.registry = ComponentRegistry()
    auto.method = "GET"
    auto.path = BOT_PREFIX
    auto.view = APIView()
    auto.view.request = None  # type: ignore[assignment]  # no request: build_serializer_context reads it
    refs = [auto.resolve_serializer(cls, "response").ref for cls in serializer_classes]
    return refs, auto.registry.build({})


def _without_enum_ids(schema: Any) -> Any:
    """``schema`` without drf-spectacular's ``x-spec-enum-id`` marks (its enum hook, which removes them,
    ran before this one: the line objects' one-value enums stay inline)."""
    if isinstance(schema, dict):
        return {key: _without_enum_ids(value) for key, value in schema.items() if key != "x-spec-enum-id"}
    if isinstance(schema, list):
        return [_without_enum_ids(value) for value in schema]
    return schema


def _line_type(cls: type[serializers.Serializer[Any]]) -> str:
    """The ``type`` of a line object (its one choice)."""
    field = cls().fields["type"]
    assert isinstance(field, serializers.ChoiceField)
    return str(next(iter(field.choices)))


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BotError"}}}}


def add_bot_api(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Adds the two stream operations (answers ``application/x-ndjson``: ``oneOf`` the line objects,
    told apart by ``type``), the ``BotToken`` scheme, and on every ``/api/v1/bot/`` operation the
    ``BotToken`` requirement (only: a session cookie never authenticates a bot) and the 401/403 answers."""
    paths = result.setdefault("paths", {})
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for path, stream in _STREAMS.items():
        refs, components = _components([*stream["lines"], BotError])
        for name, schema in components.get("schemas", {}).items():
            schemas.setdefault(name, _without_enum_ids(schema))
        line_refs = refs[:-1]
        mapping = {_line_type(cls): ref["$ref"] for cls, ref in zip(stream["lines"], line_refs, strict=True)}
        paths[path] = {"get": {
            "operationId": stream["operationId"],
            "summary": stream["summary"],
            "description": stream["description"],
            "tags": ["bot"],
            "parameters": stream["parameters"],
            "responses": {"200": {
                "description": "ndjson: one of these objects per line (blank lines: keep-alive).",
                "content": {NDJSON: {"schema": {
                    "oneOf": line_refs, "discriminator": {"propertyName": "type", "mapping": mapping}}}},
            }},
        }}
    _, components = _components([BotError])
    schemas.setdefault("BotError", components["schemas"]["BotError"])
    result["components"].setdefault("securitySchemes", {})[SCHEME] = dict(SECURITY_SCHEME)
    for path, item in paths.items():
        if not path.startswith(BOT_PREFIX):
            continue
        for operation in item.values():
            operation["security"] = [{SCHEME: []}]
            responses = operation.setdefault("responses", {})
            for status, text in BOT_ERRORS.items():
                responses.setdefault(str(status), _error(text))
    return result
