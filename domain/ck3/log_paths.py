"""Host paths the game writes into its logs, and where each lies among the roots. Pure text: no file is
asked, and no configured root's host path is known here (only the filesystem adapters know them).

The game writes absolute paths of the machine it runs on: Windows drive paths (`C:/Users/A/Documents/
Paradox Interactive/Crusader Kings III/mod/x/...`, backslashes or slashes), Proton's `Z:` drive for the
Linux file system (`Z:/home/a/.steam/steam/steamapps/...`), Linux home paths (`/home/a/.local/share/
Paradox Interactive/Crusader Kings III/...`), and WSL's view of a Windows drive (`/mnt/c/...`). Each is
placed by the folders every install has (docs/windows.md: the documents folder is `Paradox Interactive/
Crusader Kings III`, the workshop `steamapps/workshop/content/1158310`, the game `steamapps/common/
Crusader Kings III/game`): the root category and the path below it, or nothing (`<outside>`).
"""

import re
from collections.abc import Callable
from typing import Final

from domain.leaks import SYSTEM_FOLDERS
from domain.vocabulary import RootCategory

OUTSIDE: Final = "<outside>"
Spell = Callable[[RootCategory, tuple[str, ...]], str]
"""How a place found in a log is shown: its address where the session sees it, else a placeholder."""
_DRIVE: Final = r"[A-Za-z]:[\\/]"
_HOME: Final = rf"/+(?:{SYSTEM_FOLDERS}|[^/\s'\"]+(?=/[^'\"\n]*?(?i:steamapps|Paradox Interactive)))/"
HOST_PATH: Final = re.compile(
    rf"(?:(?<![\w])(?:{_DRIVE})|(?<![\w.]){_HOME}|\\\\(?=[\w.?$-])|(?<![\w:])//(?=\w)|(?<![\w])~[\\/])"
    r"(?:[^'\"\n\r\t<>|;,]*?)(?=\s+line\b|\s+near\b|\s+should\b|['\"\n\r\t<>|;,]|\s+\((?!x86\))|$)"
)
"""A host path as the game writes one: a drive, a UNC share, a home or system folder or `~`, up to a quote,
the end of the line, or the words that follow a file in the logs (`line:`, `near`, `should be`)."""
_ANCHORS: Final = (
    (re.compile(r"/steamapps/workshop/content/1158310(?:/|$)", re.IGNORECASE), RootCategory.ROOT_STEAM),
    (
        re.compile(r"/steamapps/common/Crusader Kings III/game(?:/|$)", re.IGNORECASE),
        RootCategory.ROOT_GAME,
    ),
    (
        re.compile(r"/Paradox Interactive/Crusader Kings III(?:/|$)", re.IGNORECASE),
        RootCategory.ROOT_USER_DOCS,
    ),
)


def is_host_path(text: str) -> bool:
    """Whether `text` starts as a host path does."""
    match = HOST_PATH.match(text)
    return match is not None and match.end() > 3  # noqa: PLR2004 - "C:/" alone names nothing


def placed(host_path: str) -> tuple[RootCategory, tuple[str, ...]] | None:
    """The root category a host path lies in and its segments below the root, by the folders every
    install has; None: it lies in none of them."""
    slashed = host_path.replace("\\", "/")
    for anchor, root in _ANCHORS:
        matches = list(anchor.finditer(slashed))
        if matches:  # the last: a documents folder inside a game folder is its own
            found = matches[-1]
            rest = slashed[found.end() :]
            parts = tuple(part for part in rest.split("/") if part)
            if any(part in {".", ".."} for part in parts):
                return None
            return root, parts
    return None


_URI_LIKE: Final = re.compile(r"(?<!\w)(?i:file):")
"""The logs' `file: X`: the leak gate takes a word `file:` for a file URI (a host path), so it is shown
as `file X`."""


def replaced(text: str, spell: Spell) -> str:
    """`text` with every host path in it replaced by what `spell` makes of its place (an address, or a
    placeholder naming its root category), or `<outside>` where it lies in no root; and the logs' word
    `file:` shown as `file`."""
    if "ile:" in text or "ILE:" in text:
        text = _URI_LIKE.sub(lambda m: m.group(0)[:-1], text)
    if not text or ("/" not in text and "\\" not in text):
        return text

    def one(match: re.Match[str]) -> str:
        where = placed(match.group(0))
        return OUTSIDE if where is None else spell(*where)

    return _LEFT.sub(OUTSIDE, HOST_PATH.sub(one, text))


_LEFT: Final = re.compile(
    rf"(?:/(?<![\w.\-]/)(?:{SYSTEM_FOLDERS})(?=[/\\\"'\s]|$)|(?<![\w])[A-Za-z]:[\\/]|\\\\|(?<![\w:])//(?=\w))"
    r"[^\s'\"]*"
)
"""What the leak gate would still take for a host path once the paths placed above are replaced (a path of
a form the logs were not seen to write): shown as `<outside>` up to the next space or quote, so no reply
carries one and none is withheld for it."""
