"""Every pt-BR catalogue follows docs/glossary.md: no variant the glossary lists as "not used", and no
empty or fuzzy translation.

The glossary's tables are the single list: each row's "not used" cell holds backticked variants
(matched as whole words, ignoring case) and an optional "only when the English has" cell a backticked
regular expression that limits the row to the msgids it matches. Strings that may stay untranslated are
listed in ``UNTRANSLATED_ALLOWED`` (none today: every msgid of every catalogue, admin labels included,
has a translation).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"
CATALOGUES = sorted(
    path for path in ROOT.glob("**/locale/pt_BR/LC_MESSAGES/*.po")
    if ".venv" not in path.parts and "node_modules" not in path.parts
)
#: (catalogue path relative to the repository, msgctxt, msgid) that may have an empty msgstr.
UNTRANSLATED_ALLOWED: frozenset[tuple[str, str | None, str]] = frozenset()


@dataclass
class Entry:
    """One message of a .po file: ``msgstrs`` holds msgstr, or msgstr[0], msgstr[1]... in order."""

    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstrs: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    line: int = 0


def parse_po(path: Path) -> list[Entry]:
    """The entries of ``path`` (the header and obsolete ``#~`` entries left out).

    :raises ValueError: on a line that is not a comment, a keyword line or a string continuation.
    """
    entries: list[Entry] = []
    current: Entry | None = None
    target: str | None = None

    def flush() -> None:
        if current is not None and current.msgid:
            entries.append(current)

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            flush()
            current, target = None, None
            continue
        if current is None:
            current = Entry(line=number)
        if line.startswith("#~"):
            current, target = None, None  # obsolete: not shown to anyone
            continue
        if line.startswith("#,"):
            current.flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        if line.startswith('"'):
            value = ast.literal_eval(line)
        else:
            keyword, _, rest = line.partition(" ")
            value = ast.literal_eval(rest)
            target = keyword
            if keyword.startswith("msgstr"):
                current.msgstrs.append("")
            elif keyword == "msgid":
                current.msgid = ""
            elif keyword == "msgctxt":
                current.msgctxt = ""
            elif keyword == "msgid_plural":
                current.msgid_plural = ""
            else:
                raise ValueError(f"{path}:{number}: unexpected line {raw!r}")
        if target is None:
            raise ValueError(f"{path}:{number}: a string with no keyword before it")
        if target.startswith("msgstr"):
            current.msgstrs[-1] += value
        elif target == "msgid":
            current.msgid += value
        elif target == "msgctxt":
            current.msgctxt = (current.msgctxt or "") + value
        else:
            current.msgid_plural = (current.msgid_plural or "") + value
    flush()
    return entries


@dataclass(frozen=True)
class Rule:
    english: str
    forbidden: tuple[str, ...]
    scope: re.Pattern[str] | None

    def refuses(self, msgid: str, msgstr: str) -> list[str]:
        if self.scope is not None and not self.scope.search(msgid):
            return []
        prose = prose_of(msgstr)
        return [word for word in self.forbidden
                if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", prose, re.IGNORECASE)]


def prose_of(msgstr: str) -> str:
    """``msgstr`` without what is code, not language: ``<code>`` spans, and words holding a ``/`` or
    a ``:`` between letters (paths such as ``/api/v1/bot/``, scopes such as ``bot:play``), which
    stay as the API spells them in every language."""
    text = re.sub(r"<code>.*?</code>", " ", msgstr, flags=re.S)
    return re.sub(r"\S*(?:\w/|/\w|\w:\w)\S*", " ", text)


def glossary_rules() -> list[Rule]:
    """The rows of docs/glossary.md's tables that list variants not used."""
    rules = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) != 4 or cells[0] == "English":
            continue
        forbidden = tuple(re.findall(r"`([^`]+)`", cells[2]))
        scopes = re.findall(r"`([^`]+)`", cells[3])
        if forbidden:
            rules.append(Rule(cells[0], forbidden, re.compile(scopes[0]) if scopes else None))
    return rules


def _entries() -> list[tuple[str, Entry]]:
    return [(str(path.relative_to(ROOT)), entry) for path in CATALOGUES for entry in parse_po(path)]


def test_the_catalogues_and_the_glossary_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in CATALOGUES}
    assert "platform/locale/pt_BR/LC_MESSAGES/django.po" in names
    assert "games/locale/pt_BR/LC_MESSAGES/django.po" in names and len(names) >= 6
    rules = {rule.english: rule for rule in glossary_rules()}
    assert rules["bot"].forbidden == ("bot", "bots") and rules["bot"].scope is None
    assert rules["resign, resignation"].scope is not None
    assert rules["resign, resignation"].refuses("Resign", "Abandonar") == ["abandonar"]
    assert rules["resign, resignation"].refuses("Left matches", "Partidas abandonadas") == []
    assert rules["bot"].refuses("bot", "robô") == [] and rules["bot"].refuses("x", "um Bot.") == ["bot"]
    # code is not language: paths, scopes and <code> spans keep the API's spelling
    assert rules["bot"].refuses("x", "o escopo bot:play, em /api/v1/bot/, <code>make_bot bot</code>") == []
    assert rules["bot"].refuses("x", "um bot: o escopo") == ["bot"]
    leave = rules["leave a tournament (before it starts)"]
    assert leave.refuses("Leave", "Sair") == ["sair"] and leave.refuses("Log out", "Sair") == []


def test_no_catalogue_uses_a_variant_the_glossary_refuses() -> None:
    rules = glossary_rules()
    found = [
        f"{name}:{entry.line} {entry.msgid!r} -> {msgstr!r}: {rule.english!r} refuses {words}"
        for name, entry in _entries()
        for msgstr in entry.msgstrs
        for rule in rules
        if (words := rule.refuses(entry.msgid, msgstr))
    ]
    assert found == []


def test_every_message_is_translated_and_not_fuzzy() -> None:
    found = [
        f"{name}:{entry.line} {entry.msgid!r}"
        + (" is fuzzy" if "fuzzy" in entry.flags else " has an empty msgstr")
        for name, entry in _entries()
        if (name, entry.msgctxt, entry.msgid) not in UNTRANSLATED_ALLOWED
        and ("fuzzy" in entry.flags or not entry.msgstrs or any(not s for s in entry.msgstrs))
    ]
    assert found == []


def test_no_catalogue_has_a_duplicate_message() -> None:
    for path in CATALOGUES:
        keys = [(entry.msgctxt, entry.msgid) for entry in parse_po(path)]
        assert len(keys) == len(set(keys)), path


@pytest.mark.parametrize("variant", ["adversários que venceram", "mesa particular"])
def test_the_variants_named_in_the_issue_are_gone(variant: str) -> None:
    assert [e.msgid for _, e in _entries() if any(variant in s for s in e.msgstrs)] == []
