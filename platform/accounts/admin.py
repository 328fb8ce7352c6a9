"""Admin for the custom user model."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.forms import AdminLoginForm
from accounts.models import User

# /admin/login/ refuses over-long usernames before django-axes records them (accounts.forms).
admin.site.login_form = AdminLoginForm


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    """Django's user admin plus the guest/bot fields."""

    list_display = ("username", "display_name", "is_guest", "is_bot", "bot_level", "is_staff", "date_joined")
    list_filter = ("is_guest", "is_bot", "is_staff", "is_active")
    fieldsets = (
        *(UserAdmin.fieldsets or ()),  # always set (the stubs type it Optional, as ModelAdmin's)
        ("Player", {"fields": ("display_name", "is_guest", "is_bot", "bot_level")}),
    )
