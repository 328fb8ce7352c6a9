"""What the site is made of: installed apps, the middleware stack, URLs, templates, accounts."""

from __future__ import annotations

from config.settings.environment import PROFILE, env_list

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# models.W040: SQLite has no covering indexes; the ratings indexes' INCLUDE columns (an index-only read on
# PostgreSQL, ratings.models) are simply left out there, which is what the warning says at every start.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_celery_beat",
    "accounts",
    "web",
    "home",
    "games",
    "tournaments",
    "ratings",
    "replays",
    "lobby",
    "fairplay",
    "clubs",
    # The public read-only API (docs/api.md) and what it stands on.
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "django_guid",
    "api",
    "botapi",  # the bot API: outside programs play as BOT accounts (docs/bot-api.md)
    "axes",  # log-in throttles (config.settings.throttles)
]

MIDDLEWARE = [
    # The incoming X-Request-ID normalised (lower case) or dropped (django-guid makes one).
    "web.middleware.RequestIdHeaderMiddleware",
    # Then the request id is set, before anything can be refused or logged (config.settings.logs).
    "django_guid.middleware.guid_middleware",
    # A bad Host header or too many query parameters (JSON under /api/ and /healthz, one WARNING).
    "web.middleware.EarlyRefusalsMiddleware",
    # NUL never reaches the database (PostgreSQL text cannot hold it): sessions and authentication never
    # see a NUL path, query string or cookie.
    "web.middleware.RefuseNulMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Production: the CSP and Permissions-Policy headers (config.settings.security).
    *(
        ["csp.middleware.CSPMiddleware", "django_permissions_policy.PermissionsPolicyMiddleware"]
        if PROFILE == "production"
        else []
    ),
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # before CommonMiddleware, as django-cors-headers asks
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A member opening a table is a sighting; the device cookie (fairplay.sightings, hashed only).
    "fairplay.middleware.SightingMiddleware",
    # A moderator's warning, shown once on the member's next page (docs/fairplay.md "Moderation").
    "fairplay.notices.FairplayNoticeMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "web.middleware.MatchIdMiddleware",  # log records of a view with a match_id carry it (web.log_context)
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- accounts -------------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home:home"
LOGOUT_REDIRECT_URL = "home:home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Refuse a password of only spaces.
    {"NAME": "accounts.validators.NotOnlyWhitespacePasswordValidator"},
]
# django-axes first: it refuses a locked-out username or address before a password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
