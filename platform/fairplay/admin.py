"""The moderation queue in Django's admin (docs/fairplay.md "Moderation").

Only for moderators: a staff member with the ``fairplay.moderate`` permission (the group "fair-play
moderators", migration 0003) or a superuser; any other staff member is refused (403), and nobody adds,
edits or deletes these rows here (the tasks and :mod:`fairplay.services` write them).

- **Moderation queue** (``PlayerSignal``): strongest case first; player, strength, top reasons, open
  reports, standing; filters by standing, open reports, signal. A row opens the player's **case**.
- **Case** (``/admin/fairplay/playersignal/case/<user id>/``): the evidence one click away (open
  reports with the match's replay, analysed seats with their replays, pairs with their match lists,
  "same network / same device as X" from the salted sightings: never a hash or an address), the
  moderation log, the refunds a closure made, and the actions form (each action needs a reason).
- **Reports** (open first), **pairs** (strongest first, each with its match list), **moderation log**.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts.models import Standing, User
from fairplay import services, tasks
from fairplay.models import (
    ActionKind,
    ModerationAction,
    PairSignal,
    PlayerSignal,
    Report,
    ReportStatus,
    SeatSignal,
    Sighting,
    SightingKind,
)
from games.models import Match
from ratings.models import RatingRefund
from ratings.selectors import rating_get

PERMISSION = "fairplay.moderate"
CASE_ROWS = 50
"""Most rows of each list on a case page (the newest)."""
PAIR_MATCHES = 100
"""Most matches a pair's page lists (the newest)."""


def is_moderator(user: Any) -> bool:
    """A staff member allowed the queue: ``fairplay.moderate`` (superusers have every permission)."""
    return bool(user.is_active and user.is_staff and user.has_perm(PERMISSION))


def case_url(user_id: int) -> str:
    return reverse("admin:fairplay_case", args=[user_id])


def replay_url(match_id: int, hand: int | None = None, step: int | None = None) -> str:
    """The replay page of ``match_id``, opened at ``hand``/``step`` when given (the replay page reads
    ``?hand=&step=``, as its own position links do)."""
    url = reverse("replays:replay", args=[match_id])
    if hand is not None:
        url += f"?hand={hand}" + (f"&step={step}" if step is not None else "")
    return url


class ModeratorOnly(admin.ModelAdmin):
    """Read-only for moderators, invisible and refused to every other staff member."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_moderator(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_moderator(request.user)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --------------------------------------------------------------------------------------------- queue


class StandingFilter(admin.SimpleListFilter):
    title = _("standing")
    parameter_name = "standing"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return list(Standing.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(user__standing=self.value()) if self.value() else queryset


class OpenReportsFilter(admin.SimpleListFilter):
    title = _("open reports")
    parameter_name = "reported"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("with open reports")), ("no", _("without"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        open_reports = Report.objects.filter(status=ReportStatus.OPEN).values("reported_id")
        if self.value() == "yes":
            return queryset.filter(user_id__in=open_reports)
        if self.value() == "no":
            return queryset.exclude(user_id__in=open_reports)
        return queryset


class SignalKindFilter(admin.SimpleListFilter):
    """The signals named in the rows' evidence (``PlayerSignal.reasons[].signal``)."""

    title = _("signal")
    parameter_name = "signal"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        names: set[str] = set()
        for reasons in PlayerSignal.objects.filter(strength__gt=0).values_list("reasons", flat=True)[:1000]:
            names.update(str(r["signal"]) for r in reasons or [] if isinstance(r, dict) and "signal" in r)
        return [(name, name) for name in sorted(names)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if not self.value():
            return queryset
        # A text search of the JSON (PostgreSQL and SQLite alike): '"signal": "name"' as json.dumps writes it.
        return queryset.filter(reasons__icontains=f'"signal": "{self.value()}"')


def _reasons_text(reasons: Any, top: int = 3) -> str:
    parts = []
    for reason in (reasons or [])[:top]:
        if isinstance(reason, dict):
            value = reason.get("value")
            shown = f"{value:.3g}" if isinstance(value, int | float) else value
            parts.append(f"{reason.get('signal', '?')} = {shown}")
    return "; ".join(parts)


@admin.register(PlayerSignal)
class PlayerSignalAdmin(ModeratorOnly):
    list_display = ("player", "strength_shown", "top_reasons", "open_reports_now", "standing")
    list_display_links = None
    list_filter = (StandingFilter, OpenReportsFilter, SignalKindFilter)
    search_fields = ("user__username",)
    ordering = ("-strength", "user")
    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerSignal]:
        return super().get_queryset(request).select_related("user").annotate(
            reports_open=Count("user__reports_received",
                               filter=Q(user__reports_received__status=ReportStatus.OPEN))
        )

    @admin.display(description=_("player"), ordering="user__username")
    def player(self, obj: PlayerSignal) -> str:
        return format_html('<a href="{}">{}</a>', case_url(obj.user_id), obj.user.username)

    @admin.display(description=_("strength"), ordering="-strength")
    def strength_shown(self, obj: PlayerSignal) -> str:
        return f"{obj.strength:.2f}"

    @admin.display(description=_("top reasons"))
    def top_reasons(self, obj: PlayerSignal) -> str:
        return _reasons_text(obj.reasons)

    @admin.display(description=_("open reports"), ordering="reports_open")
    def open_reports_now(self, obj: PlayerSignal) -> int:
        return int(getattr(obj, "reports_open", obj.open_reports))

    @admin.display(description=_("standing"), ordering="user__standing")
    def standing(self, obj: PlayerSignal) -> str:
        return str(obj.user.get_standing_display())

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # The queue's row is the player's case.
        if not is_moderator(request.user):
            raise PermissionDenied
        return HttpResponseRedirect(case_url(int(object_id)))

    def get_urls(self) -> list[URLPattern]:
        return [
            path("case/<int:user_id>/", self.admin_site.admin_view(self.case_view), name="fairplay_case"),
            path("refresh/", self.admin_site.admin_view(require_POST(self.refresh_view)),
                 name="fairplay_refresh"),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # When the figures were last computed (beat refreshes them every 10 minutes; a moderator may ask
        # for it now): a queue of zeros right after a deploy is then read as "not computed yet".
        last = PlayerSignal.objects.aggregate(last=Max("updated_at"))["last"]
        return super().changelist_view(request, {**(extra_context or {}), "last_refresh": last,
                                                 "refresh_url": reverse("admin:fairplay_refresh")})

    def refresh_view(self, request: HttpRequest) -> HttpResponse:
        """POST: enqueue ``fairplay.tasks.signals_refresh`` now (the background queue; idempotent, so a
        second click costs one more run of about a second). A broker refusing it is said, not hidden."""
        if not is_moderator(request.user):
            raise PermissionDenied
        try:
            tasks.signals_refresh.delay()
        except Exception as exc:  # the broker's own errors vary by transport: said to the moderator
            messages.error(request, _("The refresh could not be queued (%(error)s): try again.") % {
                "error": type(exc).__name__})
        else:
            messages.success(request, _("The signals are being recomputed: reload this page in a minute."))
        return HttpResponseRedirect(reverse("admin:fairplay_playersignal_changelist"))

    def case_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """The case of member ``user_id`` (GET), or one action on it (POST: ``ActionForm``)."""
        if not is_moderator(request.user):
            raise PermissionDenied
        target = get_object_or_404(User, pk=user_id, is_guest=False, is_bot=False)
        form = ActionForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                assert isinstance(request.user, User)  # is_moderator: a signed-in staff member
                action = form.run(moderator=request.user, target=target)
            except services.ModerationError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, _("Done: %(action)s.") % {"action": action.get_kind_display()})
                return HttpResponseRedirect(case_url(target.pk))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Case of %(name)s") % {"name": target.username},
            "target": target,
            "form": form,
            **case_evidence(target),
        }
        return TemplateResponse(request, "admin/fairplay/case.html", context)


class ActionForm(forms.Form):
    """One moderator action on the case's player; ``reason`` is required (and stored, never shown to
    the player); ``new_username`` only for a rename (empty: ``player-NNNNN``); ``message`` only for a
    warning (shown to the player)."""

    kind = forms.ChoiceField(label=_("action"), choices=ActionKind.choices)
    reason = forms.CharField(label=_("why (required, kept in the moderation log)"), widget=forms.Textarea(
        attrs={"rows": 3}), max_length=services.REASON_MAX)
    new_username = forms.CharField(label=_("new username (rename; empty: generated)"), required=False,
                                   max_length=150)
    message = forms.CharField(label=_("message to the player (warning only)"), required=False,
                              max_length=services.MESSAGE_MAX, widget=forms.Textarea(attrs={"rows": 2}))

    def run(self, *, moderator: User, target: User) -> ModerationAction:
        data = self.cleaned_data
        kind, reason = data["kind"], data["reason"]
        if kind == ActionKind.WARN:
            return services.account_warn(moderator=moderator, target_id=target.pk, reason=reason,
                                         message=data["message"])
        if kind == ActionKind.RENAME:
            return services.account_rename(moderator=moderator, target_id=target.pk, reason=reason,
                                           new_username=data["new_username"])
        function = services.ACTIONS[ActionKind(kind)]
        return function(moderator=moderator, target_id=target.pk, reason=reason)


def case_evidence(target: User) -> dict[str, Any]:
    """What a case page shows about ``target`` (each list at most :data:`CASE_ROWS`, newest first)."""
    signal = PlayerSignal.objects.filter(user=target).first()
    reports = [
        {"report": r, "replay": replay_url(r.match_id) if r.match_id else None}
        for r in Report.objects.filter(reported=target).select_related("reporter", "handled_by")
        .order_by("-created_at", "-pk")[:CASE_ROWS]
    ]
    seats = [
        {"seat": s, "replay": replay_url(s.match_id),
         # the replay at the position the player faced (the step before the move), first three
         "flagged": [{"hand": hand, "step": step, "url": replay_url(s.match_id, hand, step - 1)}
                     for hand, step in s.flagged[:3]],
         "agreement": (s.agreed / s.decisions) if s.decisions else None,
         "loss_per_decision": (s.loss / s.decisions) if s.decisions else None}
        for s in SeatSignal.objects.filter(player=target).order_by("-analysed_at", "-pk")[:CASE_ROWS]
    ]
    pairs = []
    for pair in (PairSignal.objects.filter(Q(low=target) | Q(high=target)).select_related("low", "high")
                 .order_by("-strength")[:CASE_ROWS]):
        other = pair.high if pair.low_id == target.pk else pair.low
        # ``transferred`` is what the pair's higher id gained: read from this case's side, + = gained
        mine = pair.transferred if pair.high_id == target.pk else -pair.transferred
        pairs.append({"pair": pair, "other": other, "other_case": case_url(other.pk), "gained": mine,
                      "url": reverse("admin:fairplay_pairsignal_change", args=[pair.pk])})
    return {
        "signal": signal,
        "reasons": list(signal.reasons or []) if signal else [],
        "rating": rating_get(user=target),
        "profile_url": reverse("ratings:profile", args=[target.username]),
        "reports": reports,
        "open_reports": Report.objects.filter(reported=target, status=ReportStatus.OPEN).count(),
        "seats": seats,
        "pairs": pairs,
        "same_as": same_as(target),
        "actions": ModerationAction.objects.filter(target=target).select_related("moderator")[:CASE_ROWS],
        "refunds": RatingRefund.objects.filter(closed=target).aggregate(n=Count("id"), players=Count(
            "player", distinct=True)),
    }


def transfer_text(pair: PairSignal) -> str:
    """``"<gainer> +N from <loser>"`` for ``pair``'s net transfer (one decimal), or ``"0.0"``."""
    if round(pair.transferred, 1) == 0:
        return "0.0"
    gainer, loser = (pair.high, pair.low) if pair.transferred > 0 else (pair.low, pair.high)
    return _("%(gainer)s +%(points).1f from %(loser)s") % {
        "gainer": gainer.username, "points": abs(pair.transferred), "loser": loser.username}


def same_as(target: User) -> list[dict[str, Any]]:
    """Other accounts seen from a network or device ``target`` was seen from: ``user``, ``kind``
    (:class:`SightingKind`), ``times`` (their sightings on the shared hashes), ``case`` (link). The
    hashes never leave the database (a subquery) and are never shown."""
    out = []
    for kind in (SightingKind.NETWORK, SightingKind.DEVICE):
        mine = Sighting.objects.filter(user=target, kind=kind).values("digest")
        rows = (Sighting.objects.filter(kind=kind, digest__in=mine).exclude(user=target)
                .values("user_id", "user__username").annotate(times=Count("id"))
                .order_by("-times")[:CASE_ROWS])
        for row in rows:
            out.append({"user_id": row["user_id"], "username": row["user__username"], "kind": kind,
                        "kind_label": SightingKind(kind).label, "times": row["times"],
                        "case": case_url(row["user_id"])})
    return out


# --------------------------------------------------------------------------------------------- reports


@admin.register(Report)
class ReportAdmin(ModeratorOnly):
    list_display = ("created_at", "reported_case", "reporter", "reason", "place", "match_replay", "status",
                    "short_comment")
    list_display_links = None
    list_filter = ("status", "reason", "place")
    search_fields = ("reported__username", "reporter__username")
    list_select_related = ("reported", "reporter")

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        # The queue of reports: open ones first ("open" sorts after "acted" and "dismissed", so -status),
        # oldest first (first come, first handled). Here, not in get_queryset: the changelist orders by
        # this, and Report.Meta.ordering (newest first) replaced the queryset's order (the trial saw it).
        return ("-status", "created_at", "pk")

    @admin.display(description=_("reported"), ordering="reported__username")
    def reported_case(self, obj: Report) -> str:
        return format_html('<a href="{}">{}</a>', case_url(obj.reported_id), obj.reported.username)

    @admin.display(description=_("match"))
    def match_replay(self, obj: Report) -> str:
        if not obj.match_id:
            return "-"
        return format_html('<a href="{}">{}</a>', replay_url(obj.match_id), _("replay"))

    @admin.display(description=_("comment"))
    def short_comment(self, obj: Report) -> str:
        return obj.comment[:80] + ("…" if len(obj.comment) > 80 else "")


# --------------------------------------------------------------------------------------------- pairs


@admin.register(PairSignal)
class PairSignalAdmin(ModeratorOnly):
    list_display = ("pair", "strength_shown", "matches", "transferred_shown", "resign_share", "same_network",
                    "same_device")
    list_filter = ("same_network", "same_device")
    search_fields = ("low__username", "high__username")
    list_select_related = ("low", "high")
    ordering = ("-strength", "low", "high")
    fields = ("low_case", "high_case", "strength", "evidence", "matches", "share_low", "share_high",
              "transferred_shown", "resign_share", "high_deadwood_knocks", "overlap", "same_network",
              "same_device", "updated_at", "match_list")
    readonly_fields = fields

    @admin.display(description=_("pair"))
    def pair(self, obj: PairSignal) -> str:
        return f"{obj.low.username} / {obj.high.username}"

    @admin.display(description=_("strength"), ordering="-strength")
    def strength_shown(self, obj: PairSignal) -> str:
        return f"{obj.strength:.2f}"

    @admin.display(description=_("Elo points transferred"))
    def transferred_shown(self, obj: PairSignal) -> str:
        """Who gained how much from the other (``transferred`` is signed by user id, which means nothing
        to a reader): "farmer +38.8 from puppet"."""
        return transfer_text(obj)

    @admin.display(description=_("first player"))
    def low_case(self, obj: PairSignal) -> str:
        return format_html('<a href="{}">{}</a>', case_url(obj.low_id), obj.low.username)

    @admin.display(description=_("second player"))
    def high_case(self, obj: PairSignal) -> str:
        return format_html('<a href="{}">{}</a>', case_url(obj.high_id), obj.high.username)

    @admin.display(description=_("evidence"))
    def evidence(self, obj: PairSignal) -> str:
        return _reasons_text(obj.reasons, top=10)

    @admin.display(description=_("their matches (newest first)"))
    def match_list(self, obj: PairSignal) -> str:
        return pair_matches_html(obj.low_id, obj.high_id)


def pair_matches_html(a: int, b: int) -> str:
    """A table of the newest :data:`PAIR_MATCHES` matches between users ``a`` and ``b`` (either seat):
    when, rated, status, winner, how it ended, the replay."""
    matches = (Match.objects.filter(Q(player0_id=a, player1_id=b) | Q(player0_id=b, player1_id=a))
               .select_related("player0", "player1").order_by("-created_at", "-pk")[:PAIR_MATCHES])
    rows = []
    for m in matches:
        winner = (m.player0 if m.winner == 0 else m.player1) if m.winner is not None else None
        # a match that started rated and was unrated by the farming limits says why (it is evidence)
        rated: Any
        if m.rated:
            rated = _("rated")
        elif m.unrated_why:
            rated = _("not rated: %(why)s") % {"why": m.get_unrated_why_display()}
        else:
            rated = _("casual")
        rows.append((m.created_at.strftime("%Y-%m-%d %H:%M"), rated,
                     m.get_status_display(), winner.username if winner else "-", m.result_reason or "-",
                     replay_url(m.pk), _("replay")))
    if not rows:
        return str(_("No match between them."))
    body = format_html_join("", '<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>'
                                '<td><a href="{}">{}</a></td></tr>', rows)
    return format_html('<table data-testid="pair-matches"><tbody>{}</tbody></table>', body)


# --------------------------------------------------------------------------------------------- log


@admin.register(ModerationAction)
class ModerationActionAdmin(ModeratorOnly):
    list_display = ("created_at", "kind", "target_case", "moderator", "reason")
    list_display_links = None
    list_filter = ("kind",)
    search_fields = ("target__username", "moderator__username", "reason")
    list_select_related = ("target", "moderator")

    @admin.display(description=_("account"), ordering="target__username")
    def target_case(self, obj: ModerationAction) -> str:
        return format_html('<a href="{}">{}</a>', case_url(obj.target_id), obj.target.username)
