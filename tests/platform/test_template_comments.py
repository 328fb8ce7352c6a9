"""Every ``{# ... #}`` comment of the project's templates is on one line: Django's short comment does not
span lines, and a two-line one was rendered as text in every match-end dialog (issue 10's second trial)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_short_template_comments_close_on_their_own_line() -> None:
    templates = [p for p in ROOT.rglob("templates/**/*.html") if ".venv" not in p.parts]
    assert len(templates) > 20  # the scan found the project's templates
    open_comments = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in templates
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if line.count("{#") > line.count("#}")
    ]
    assert open_comments == []
