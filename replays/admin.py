"""Admin of the replays app."""

from __future__ import annotations

from django.contrib import admin

from replays.models import ReplayAccess


@admin.register(ReplayAccess)
class ReplayAccessAdmin(admin.ModelAdmin):
    list_display = ("match", "public", "updated_at")
    list_filter = ("public",)
    raw_id_fields = ("match",)
