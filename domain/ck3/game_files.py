"""The game's rules for the files it loads, applied when an agent writes one (in ROOT_GAME or a mod folder).

- Localisation (`localization/**.yml`) must be UTF-8 with a byte-order mark or the game ignores it: one is
  added when the text lacks it.
- A file that exists keeps its byte-order mark and its line endings (CRLF throughout stays CRLF).
- A new script file under `common/` gets LF line endings, unless the folder's files use CRLF.
- A descriptor (`descriptor.mod` at a mod folder's top, or a registry file `ROOT_USER_DOCS:/mod/<x>.mod`)
  must stay readable with its required fields: otherwise the write is refused before anything changes.
Every adjustment is named in the reply (`adjusted`), so the agent knows what was written.
"""

from typing import Final

from domain.ck3.descriptors import missing, parse
from domain.vocabulary import RootCategory

BOM: Final = b"\xef\xbb\xbf"
R = RootCategory


def game_path(root: str, parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The path the game knows a file by: below ROOT_GAME, or below a mod folder (a top folder of ROOT_STEAM
    or of ROOT_USER_DOCS:/mod/); None for any other file."""
    if root == R.ROOT_GAME.value:
        return parts
    if root == R.ROOT_STEAM.value and len(parts) > 1:
        return parts[1:]
    if root == R.ROOT_USER_DOCS.value and len(parts) > 2 and parts[0] == "mod":  # noqa: PLR2004
        return parts[2:]
    return None


def descriptor_problems(root: str, parts: tuple[str, ...], data: bytes) -> list[str] | None:
    """What is wrong with `data` as the descriptor at this place (None: the place holds no descriptor)."""
    folded = tuple(part.casefold() for part in parts)
    registry = root == R.ROOT_USER_DOCS.value and len(folded) == 2 and folded[0] == "mod"  # noqa: PLR2004
    if not (registry and folded[1].endswith(".mod")) and game_path(root, folded) != ("descriptor.mod",):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ["not UTF-8 text"]
    descriptor = parse(text)
    found = [f"line {line}: {problem}" for line, problem in descriptor.problems]
    return found + [f"{key} is required" for key in missing(descriptor, registry=registry)]


def adjusted(
    path: tuple[str, ...], data: bytes, existing: bytes | None, *, folder_uses_crlf: bool
) -> tuple[bytes, list[str]]:
    """`data` as the game needs it at game-relative `path` (given what the file held, if it existed),
    and the names of the adjustments made."""
    notes: list[str] = []
    path = tuple(part.casefold() for part in path)  # the game reads its folders in any case
    if existing is not None:
        if existing.startswith(BOM) and not data.startswith(BOM):
            data, notes = BOM + data, [*notes, "bom-kept"]
        if _crlf_throughout(existing) and b"\r\n" not in data and b"\n" in data:
            data, notes = data.replace(b"\n", b"\r\n"), [*notes, "crlf-kept"]
    elif path[:1] == ("common",) and path[-1].endswith(".txt"):
        if folder_uses_crlf and b"\r\n" not in data and b"\n" in data:
            data, notes = data.replace(b"\n", b"\r\n"), [*notes, "crlf-like-folder"]
        elif not folder_uses_crlf and b"\r\n" in data:
            data, notes = data.replace(b"\r\n", b"\n"), [*notes, "lf"]
    if path[:1] == ("localization",) and path[-1].endswith(".yml") and not data.startswith(BOM):
        data, notes = BOM + data, [*notes, "bom-added"]
    return data, notes


def uses_crlf(samples: list[bytes]) -> bool:
    """Whether the folder's files (a few of them, read) use CRLF throughout."""
    return bool(samples) and all(_crlf_throughout(sample) for sample in samples)


def _crlf_throughout(data: bytes) -> bool:
    lines = data.count(b"\n")
    return lines > 0 and data.count(b"\r\n") == lines
