"""Admin: schedules are edited here (the beat task makes their tournaments); tournaments are read."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import Pairing, Registration, Round, Tournament, TournamentSchedule


@admin.register(TournamentSchedule)
class TournamentScheduleAdmin(admin.ModelAdmin):
    list_display = ("name_en", "name_pt", "frequency", "time_of_day", "days_of_week", "rules_preset",
                    "match_target", "turn_timer_seconds", "rounds", "min_players", "max_players", "enabled")
    list_editable = ("enabled",)


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    readonly_fields = ("user", "rating", "rating_after", "withdrawn", "no_shows", "joined_at")
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name_en", "starts_at", "status", "current_round", "rounds", "winner")
    list_filter = ("status", "schedule")
    date_hierarchy = "starts_at"
    inlines = [RegistrationInline]
    readonly_fields = ("status", "current_round", "rounds", "winner", "started_at", "finished_at")


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "status", "started_at", "finished_at")


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = ("round", "board", "player0", "player1", "match", "points", "hand_points", "forfeit")
    raw_id_fields = ("match",)
