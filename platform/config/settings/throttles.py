"""HTTP throttles (README "Limits"): log-in failures (django-axes), guests and sign-ups, opened replay
files. The API's own limits are in ``config.settings.api``; the analyses' and sockets' in
``config.settings.app_settings``."""

from __future__ import annotations

from datetime import timedelta

# Log-in (site and admin): django-axes counts failures per username and per client IP in the database
# (shared by every process). At AXES_FAILURE_LIMIT failures that username or IP is refused (429, the
# time to wait) until AXES_COOLOFF_TIME has passed since its last counted failure; failures during the
# lockout do not extend it, so an attacker cannot keep a victim locked out past one cool-off per burst.
# Its app, middleware and authentication backend are in config.settings.base.
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.throttles.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # successful log-ins (every guest) need no row each
# AccessAttempt.ip_address is inet: an address that is not an IP is recorded as none (never a 500).
AXES_CLIENT_IP_CALLABLE = "accounts.throttles.axes_client_ip"
# Per client IP, fixed windows in the default cache (django-ratelimit's "count/period" format).
ACCOUNTS_GUEST_RATE = "30/h"
ACCOUNTS_SIGNUP_RATE = "10/h"
RATELIMIT_FAIL_OPEN = True  # a cache outage must not refuse every guest
# Entry codes of private events tried per client IP (tournaments.views: /tournaments/code/ and ?code= links).
TOURNAMENTS_CODE_RATE = "20/h"
# /replay/open/ (replays.opened): files opened per client IP and per account (anyone may open one), hands
# of an opened file served per IP, the CPU seconds one file's verification may take, and how long an
# opened file is held in the cache for its hands.
REPLAYS_OPEN_RATE = "30/h"
REPLAYS_OPEN_USER_RATE = "20/h"
REPLAYS_OPEN_HAND_RATE = "600/h"
REPLAYS_OPEN_CPU_SECONDS = 5.0
REPLAYS_OPEN_HOLD_SECONDS = 3600
# Fair-play reports (fairplay.views, docs/fairplay.md "Reports"): report forms sent per account and per
# client IP in a fixed day window (every POST counts, a refused or repeated one too).
FAIRPLAY_REPORT_RATE = "10/d"
FAIRPLAY_REPORT_IP_RATE = "30/d"
# "Remind me" on an event (tournaments.views.tournament_remind): toggles per account in a fixed hour window.
TOURNAMENTS_REMIND_RATE = "120/h"
