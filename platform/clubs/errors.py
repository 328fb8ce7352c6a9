"""The refusal of every club write (:class:`ClubError`) and its sentences in both languages."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from web.errors import ApplicationError

MESSAGES: dict[str, str] = {
    "not_authenticated": gettext_noop("Log in or sign up to use clubs."),
    "not_member_account": gettext_noop("Guests and house bots cannot create or join clubs: sign up first."),
    "standing": gettext_noop("Your account is not in good standing: you cannot create a club."),
    "daily_limit": gettext_noop("You have created %(n)s clubs in the last 24 hours: try again tomorrow."),
    "owned_limit": gettext_noop("You already own %(n)s clubs, the most one member may own."),
    "name_length": gettext_noop("A club's name has %(min)s to %(max)s characters."),
    "name_controls": gettext_noop(
        "The name contains control characters (such as %(first)s): write plain text."),
    "name_abusive": gettext_noop("The name contains a word that is not allowed in names on this site."),
    "name_confusable": gettext_noop(
        "The name mixes alphabets with look-alike letters (such as a Cyrillic “а” among Latin letters): "
        "write it in one alphabet."),
    "name_taken": gettext_noop("A club named “%(name)s” already exists: choose another name."),
    "description_length": gettext_noop("A club's description has at most %(max)s characters."),
    "description_controls": gettext_noop(
        "The description contains control characters (such as %(first)s): write plain text."),
    "bad_access": gettext_noop("Choose who may join: anyone, or only with the invitation link."),
    "no_such_club": gettext_noop("There is no such club."),
    "bad_code": gettext_noop("This invitation link is not valid (any more): ask the club for a new one."),
    "invite_only": gettext_noop("This club takes new members only through its invitation link."),
    "not_a_member": gettext_noop("You are not a member of this club."),
    "not_organiser": gettext_noop("Only the club's owner and organisers may do this."),
    "not_owner": gettext_noop("Only the club's owner may do this."),
    "owner_leaves": gettext_noop(
        "You own this club: hand the ownership to another member first (or delete the club when you are "
        "its only member)."),
    "not_alone": gettext_noop("Only a club with no other member can be deleted: remove them first."),
    "has_events": gettext_noop("This club has events: a club with events cannot be deleted."),
    "target_not_member": gettext_noop("That player is not a member of this club."),
    "cannot_remove": gettext_noop("The owner cannot be removed, and only the owner removes an organiser."),
    "bad_role": gettext_noop("A member can be made an organiser or a plain member."),
    "self": gettext_noop("You cannot do this to yourself."),
}
"""Every refusal's sentence by code (English msgids; ``%(...)s`` filled from the error's ``params``)."""


class ClubError(ApplicationError):
    """A refused club request; nothing changed. ``code``: a key of :data:`MESSAGES`; ``message``: its
    sentence in English; :meth:`text` in the active language. ``field``: the form field it is about
    (``name``, ``description``, ``access``) or None."""

    def __init__(self, code: str, *, field: str | None = None, **params: Any) -> None:
        self.params = params
        self.field = field
        with translation.override("en"):
            message = MESSAGES[code] % params
        super().__init__(code, message)

    def text(self) -> str:
        """The sentence in the active language."""
        return gettext(MESSAGES[self.code]) % self.params
