"""Admin: matches (editable status only through services; shown read-only) and their event log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import ChatMessage, Match, MatchEvent, RematchOffer


class MatchEventInline(admin.TabularInline):
    """The log, read-only (append-only rows)."""

    model = MatchEvent
    extra = 0
    can_delete = False
    fields = ("seq", "type", "seat", "auto", "msg_id", "payload", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RematchOfferInline(admin.TabularInline):
    """Rematch offers made after the match (games.rematch), read-only: they change through the socket."""

    model = RematchOffer
    extra = 0
    can_delete = False
    fields = ("seat", "status", "created_at", "answered_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ChatMessageInline(admin.TabularInline):
    """Quick-chat messages of the match (games.chat), read-only: kept for moderation."""

    model = ChatMessage
    extra = 0
    can_delete = False
    fields = ("seat", "user", "preset", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches with players, status and scores; the log inline."""

    list_display = ("id", "player0", "player1", "bot_level", "preset", "status", "scores", "winner",
                    "result_reason", "last_seq", "created_at")
    list_filter = ("status", "preset", "bot_level", "result_reason")
    search_fields = ("player0__username", "player1__username", "invite_token")
    readonly_fields = ("last_seq", "scores", "first_dealer", "created_at", "started_at", "finished_at",
                       "rematch_of")
    inlines = (MatchEventInline, RematchOfferInline, ChatMessageInline)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(MatchEvent)
class MatchEventAdmin(admin.ModelAdmin):
    """Events, read-only."""

    list_display = ("match", "seq", "type", "seat", "auto", "created_at")
    list_filter = ("type",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
