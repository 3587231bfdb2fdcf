"""The forms of the arguments that name a thing of the game or a page (keys, symbol names, kinds,
languages, cursors), held in one place: the door refuses a value not of its form before anything is
stored, and a stored record read later passes the same test or is skipped, so no record can make a reply
fail. Pure; total over every string.

A name is never a host path in any form (`/…`, `~/…`, `C:…`, `file:…`), carries none the leak gate finds,
and holds no whitespace, control, format or unpaired surrogate character.
"""

import re
import unicodedata
from typing import Final

from domain.addresses import host_form
from domain.leaks import LeakGate

MAX_NAME: Final = 200
"""The longest key or symbol name."""
MAX_CURSOR: Final = 255
"""The longest cursor: a count, or a file's name (at most 255 bytes on every filesystem)."""
_KIND: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?:/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,7}")
_LANGUAGE: Final = re.compile(r"[A-Za-z0-9_]{1,32}")
_REFUSED: Final = frozenset("CZ")
"""Unicode category groups a name never holds: control, format, surrogate, unassigned; separators."""


def _plain(text: str, most: int, refused: frozenset[str] = _REFUSED) -> bool:
    return 0 < len(text) <= most and not any(unicodedata.category(char)[0] in refused for char in text)


def key(text: str) -> bool:
    """A key of the game's script or localisation, or a symbol's name (`brave`, `birth.0001`, `greet`,
    `namespace:birth`, `*`)."""
    return _plain(text, MAX_NAME)


def kind(text: str) -> bool:
    """A kind of definition: a folder below `common/` (`traits`, `culture/traditions`) or a word
    (`event`, `localisation`)."""
    return _KIND.fullmatch(text) is not None


def language(text: str) -> bool:
    """A language the game reads (`english`, `simp_chinese`)."""
    return _LANGUAGE.fullmatch(text) is not None


def cursor(text: str) -> bool:
    """A `next_cursor` some reply gave: a count, or the name a page ended at (spaces allowed)."""
    return _plain(text, MAX_CURSOR, frozenset("C"))


FORMED: Final = {"key": key, "kind": kind, "language": language, "cursor": cursor}
"""The arguments whose form is checked, by name."""


def hosted(leaks: LeakGate, text: str) -> bool:
    """Whether `text`, where a name is meant, names a host path (starts like one, or carries one)."""
    return host_form(text) or bool(leaks.findings(text))


def passes(leaks: LeakGate, name: str, text: str) -> bool:
    """Whether `text` may stand as the argument `name` (of FORMED), a host path in no form."""
    return FORMED[name](text) and not hosted(leaks, text)
