"""Whole numbers as the site reads them from a query string or a form: ASCII digits only, never
converted past a bound (issue 16's strict reading; docs/api.md "Errors").

Python's ``int()`` reads ``1_0`` as 10, full-width or Arabic-Indic digits (``２``) and surrounding blanks;
the site's readers (``api.fields.QueryInteger``, ``ratings.forms``' page number) accept ``[0-9]+`` only,
and refuse a string longer than :data:`MAX_DIGITS` digits (after leading zeros) as too large without
converting it. Framework-free: shared by the API and the pages, so neither imports the other.
"""

from __future__ import annotations

import re

ASCII_DIGITS = re.compile(r"[0-9]+")
"""A whole number written in ASCII digits (leading zeros allowed): match with ``fullmatch``."""
MAX_DIGITS = 18
"""Longer digit strings are refused as too large without converting them (any bound here is smaller)."""
