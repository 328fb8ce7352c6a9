"""The report form (docs/fairplay.md "Reports"): a reason, an optional comment, and, from a match, which
of its players.

- ``reason``: one of ``ReportReason`` (anything else: Django's "Select a valid choice", ``invalid_choice``);
- ``comment``: optional, at most ``COMMENT_MAX`` (1000) characters as sent (a line break sent as CR LF
  counts two); a NUL byte is refused by Django's own check (``null_characters_not_allowed``), any other
  control character (Unicode category Cc: ESC, DEL, the C1 controls...) with ``control_characters``;
  tab, line feed and carriage return are text. Leading and trailing spaces are dropped.
- ``reported`` (:class:`MatchReportForm` only): the id of one of the match's players the reporter may
  report (``fairplay.reporting.match_candidates``); ``place``: ``table`` or ``replay``; ``token``: the
  replay link's token the page was opened with (at most 64 characters), or empty.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from fairplay.models import ReportPlace, ReportReason
from web import text

COMMENT_MAX = 1000
TEXT_CONTROLS = frozenset("\t\n\r\x00")
"""Cc characters not refused here: tab, LF and CR are text; NUL has Django's own refusal."""
BIDI_CONTROLS = text.BIDI_CONTROLS
"""The bidirectional controls (``web.text``, shared with clubs' names): one of them turns a line around
where a moderator reads it (the trial's U+202E), so they are refused like control characters."""


def validate_no_control_characters(value: str) -> None:
    """:raises ValidationError: (code ``control_characters``) when ``value`` holds a control character
    (category Cc) other than tab, line feed and carriage return, or a bidirectional control
    (:data:`BIDI_CONTROLS`) (and NUL, refused by Django's own
    ``ProhibitNullCharactersValidator`` on every ``CharField``, so it gets one error, not two)."""
    bad = text.control_characters(value, allowed=TEXT_CONTROLS)
    if bad:
        raise ValidationError(
            _("The comment contains control characters (such as %(first)s): write plain text."),
            code="control_characters", params={"first": f"U+{ord(bad[0]):04X}"},
        )


class ReportForm(forms.Form):
    """A report from a profile: reason and comment."""

    reason = forms.ChoiceField(label=_("Reason"), choices=ReportReason.choices, widget=forms.RadioSelect)
    comment = forms.CharField(
        label=_("Comment (optional)"), required=False, max_length=COMMENT_MAX,
        validators=[validate_no_control_characters],
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": COMMENT_MAX}),
        help_text=_("What you saw, in a few words: which hand, which move. At most 1000 characters."),
    )


class MatchReportForm(ReportForm):
    """A report from a match (its table after the end, or its replay): which player, reason, comment.

    ``candidates``: the players the reporter may report (at least one); a lone candidate is preselected.
    """

    reported = forms.TypedChoiceField(label=_("Player"), coerce=int, widget=forms.RadioSelect)
    place = forms.ChoiceField(choices=[(p.value, p.label) for p in (ReportPlace.TABLE, ReportPlace.REPLAY)],
                              widget=forms.HiddenInput)
    token = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    field_order = ("reported", "reason", "comment")

    def __init__(self, *args: Any, candidates: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["reported"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(str(user.pk), user.public_name) for user in candidates]
        if len(candidates) == 1:
            field.initial = str(candidates[0].pk)
