"""The clubs in the Django admin: clubs (search by name or slug) with their members inline, and members."""

from __future__ import annotations

from django.contrib import admin

from clubs.models import Club, ClubMember


class ClubMemberInline(admin.TabularInline):  # type: ignore[type-arg]  # not subscriptable at run time
    model = ClubMember
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "slug", "access", "created_by", "created_at")
    list_filter = ("access",)
    search_fields = ("name", "slug")
    raw_id_fields = ("created_by",)
    readonly_fields = ("created_at",)
    inlines = (ClubMemberInline,)


@admin.register(ClubMember)
class ClubMemberAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("club", "user", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("club__name", "user__username")
    raw_id_fields = ("club", "user")
