"""The game's rules for the files it loads, applied when an agent writes one (in ROOT_GAME or a mod folder).

- Each kind of file in the table of domain.ck3.encodings (script `.txt`, `.gui`, localisation `.yml`,
  `descriptor.mod`) gets what the table says: a byte-order mark where the kind requires one (added when
  the text lacks it), and for a new file the line endings of its folder's files, else LF.
- A file that exists keeps its byte-order mark and its line endings (CRLF throughout stays CRLF).
- A descriptor (`descriptor.mod` at a mod folder's top, or a registry file `ROOT_USER_DOCS:/mod/<x>.mod`)
  must stay readable with its required fields: otherwise the write is refused before anything changes.
Every adjustment is named in the reply (`adjusted`), so the agent knows what was written.
"""

from typing import Final

from domain.ck3.descriptors import missing, parse
from domain.ck3.encodings import REQUIRED, Expectation, expectation
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


def kind_of(path: tuple[str, ...]) -> Expectation | None:
    """What the table of encodings expects of the file at game-relative `path` (None: nothing)."""
    return expectation(path)


def adjusted(
    path: tuple[str, ...], data: bytes, existing: bytes | None, *, folder_uses_crlf: bool
) -> tuple[bytes, list[str]]:
    """`data` as the game needs it at game-relative `path` (given what the file held, if it existed),
    and the names of the adjustments made."""
    rule = expectation(path)
    if existing is not None:
        data, notes = _kept(data, existing)
    elif rule is not None:
        data, notes = _endings(data, crlf=folder_uses_crlf)
    else:
        notes = []
    if rule is not None and rule.bom == REQUIRED and not data.startswith(BOM):
        data, notes = BOM + data, [*notes, "bom-added"]
    return data, notes


def _kept(data: bytes, existing: bytes) -> tuple[bytes, list[str]]:
    """`data` with the byte-order mark and the CRLF line endings of the file it replaces."""
    notes: list[str] = []
    if existing.startswith(BOM) and not data.startswith(BOM):
        data, notes = BOM + data, [*notes, "bom-kept"]
    if _crlf_throughout(existing) and b"\r\n" not in data and b"\n" in data:
        data, notes = data.replace(b"\n", b"\r\n"), [*notes, "crlf-kept"]
    return data, notes


def _endings(data: bytes, *, crlf: bool) -> tuple[bytes, list[str]]:
    """A new file's `data` with its folder's line endings: CRLF where the folder's files use it, else LF."""
    if crlf and b"\r\n" not in data and b"\n" in data:
        return data.replace(b"\n", b"\r\n"), ["crlf-like-folder"]
    if not crlf and b"\r\n" in data:
        return data.replace(b"\r\n", b"\n"), ["lf"]
    return data, []


def uses_crlf(samples: list[bytes]) -> bool:
    """Whether the folder's files (a few of them, read) use CRLF throughout."""
    return bool(samples) and all(_crlf_throughout(sample) for sample in samples)


def _crlf_throughout(data: bytes) -> bool:
    lines = data.count(b"\n")
    return lines > 0 and data.count(b"\r\n") == lines
