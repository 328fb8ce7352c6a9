"""The secret key, secure cookies, the proxy's header, and the security headers of the production profile
(deploy/nginx/gin.conf sends the same at the edge). Their middleware is in ``config.settings.base``."""

from __future__ import annotations

import hashlib
import os
import secrets
import time

from config.settings.environment import DEBUG, PROFILE, VAR_DIR, env_bool


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    # Embedded default: one random key per checkout, kept so sessions survive restarts.
    # O_EXCL: processes starting together (Daphne, worker, beat) must all end up with the same key.
    path = VAR_DIR / "secret_key"
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(50))
    for _ in range(50):  # another process may have created it and not written it yet
        key = path.read_text().strip()
        if key:
            return key
        time.sleep(0.1)
    raise RuntimeError(f"{path} is empty: delete it or set SECRET_KEY")


SECRET_KEY = _secret_key()

# The salt of the fair-play sightings' hashes (fairplay.hashing: HMAC-SHA256 of an IP's network or a
# device cookie's id). Default: derived from SECRET_KEY, so a checkout needs nothing set; set it on its own
# to keep the hashes comparable across a SECRET_KEY rotation. Changing it makes every stored sighting
# unmatched by new ones (docs/fairplay.md "Privacy: sightings").
FAIRPLAY_HASH_SALT = os.environ.get("FAIRPLAY_HASH_SALT") or hashlib.sha256(
    b"gin fair-play sightings\0" + SECRET_KEY.encode()
).hexdigest()

# --- cookies and the proxy's header ---------------------------------------------------------------
if not DEBUG:
    # Off for plain-HTTP runs (tests' Daphne subprocess sets SECURE_COOKIES=0); on behind TLS.
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=PROFILE == "production")
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# X-Forwarded-Proto says "https" only when a proxy in front (nginx, deploy/nginx/gin.conf) sets it; from
# a client reaching Daphne directly (scripts/serve on one machine) it is a claim anyone can make, which
# made links https:// and requests "secure". So it is trusted only when TRUST_PROXY_HEADERS=1 says the
# site is behind such a proxy (deploy/gin.env.example sets it).
TRUST_PROXY_HEADERS = env_bool("TRUST_PROXY_HEADERS", default=False)
if TRUST_PROXY_HEADERS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- security headers in production ---------------------------------------------------------------
# CSP: everything from this origin only (the table's socket too: CSP3 'self' covers same-origin ws/wss),
# no inline script or style (the pages use static files; the table's state is a JSON data block), no
# plugins, no framing, forms post here only. Permissions-Policy: no powerful browser feature is used.
# HSTS only behind HTTPS (SECURE_COOKIES on); Django sends it on secure requests only anyway.
if PROFILE == "production":
    CONTENT_SECURITY_POLICY = {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'"],
            "style-src": ["'self'"],
            "img-src": ["'self'", "data:"],
            "connect-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        }
    }
    PERMISSIONS_POLICY: dict[str, list[str]] = {
        feature: []
        for feature in ("accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone",
                        "payment", "usb")
    }
    if not DEBUG and SESSION_COOKIE_SECURE:
        SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 365 * 24 * 3600))
