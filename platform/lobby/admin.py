"""Admin of the lobby: pools are edited here (docs/lobby.md "Pools"); the rest is read-mostly."""

from __future__ import annotations

from django.contrib import admin

from lobby.models import Challenge, LobbyPreference, Playban, Pool, PoolEntry, Seek


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "target", "turn_timer_seconds", "rated", "active", "position")
    list_editable = ("active", "position")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(PoolEntry)
class PoolEntryAdmin(admin.ModelAdmin):
    list_display = ("user", "pool", "rating", "status", "joined_at", "ended_at", "match")
    list_filter = ("status", "pool")
    raw_id_fields = ("user", "match")


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = ("creator", "target", "turn_timer_seconds", "rated", "status", "created_at", "match")
    list_filter = ("status",)
    raw_id_fields = ("creator", "accepted_by", "match")


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("challenger", "challenged", "target", "rated", "status", "created_at", "match")
    list_filter = ("status",)
    raw_id_fields = ("challenger", "challenged", "match")


@admin.register(Playban)
class PlaybanAdmin(admin.ModelAdmin):
    list_display = ("user", "reason", "created_at", "ends_at", "match")
    raw_id_fields = ("user", "match")


admin.site.register(LobbyPreference)
