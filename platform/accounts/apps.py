"""App config for ``accounts``: the site's user model, sign-up, guests and house bots."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """``accounts`` app (label ``accounts``; ``AUTH_USER_MODEL = "accounts.User"``)."""

    name = "accounts"
    verbose_name = _("Accounts")
    default_auto_field = "django.db.models.BigAutoField"
