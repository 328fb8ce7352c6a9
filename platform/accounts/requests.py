"""The request of a view behind ``login_required``, for type checkers.

django-stubs types ``HttpRequest.user`` as ``User | AnonymousUser``; behind ``login_required`` it is
always a signed-in :class:`accounts.models.User`. Such a view annotates its request with
:class:`SignedInRequest` (Django still passes a plain ``HttpRequest``: nothing is different at run time).
"""

from __future__ import annotations

from django.http import HttpRequest

from accounts.models import User


class SignedInRequest(HttpRequest):
    """An ``HttpRequest`` whose ``user`` is signed in (the view is behind ``login_required``)."""

    user: User
