"""Languages, time zone, and static files (WhiteNoise)."""

from __future__ import annotations

from config.settings.environment import PLATFORM_DIR, PROFILE, VAR_DIR

# --- i18n / time ----------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)")]
LOCALE_PATHS = [PLATFORM_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- static files ---------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"  # collectstatic target (production)
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedStaticFilesStorage"
            if PROFILE == "production"
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
# Serve straight from the apps when collectstatic has not run (embedded default, tests).
WHITENOISE_USE_FINDERS = True
