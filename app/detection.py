"""Where a Crusader Kings III setup lies on the operator's machine (Steam, its libraries, the game, the
workshop, the Paradox documents folder). Home, environment and platform are always passed in, never read."""

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TypeAlias

from attrs import Factory, define, frozen

from domain.vocabulary import RootCategory

KeyValues: TypeAlias = dict[str, "str | KeyValues"]

PLATFORMS = ("linux", "darwin", "windows", "wsl")
WORKSHOP_APP_ID = "1158310"
GAME = ("steamapps", "common", "Crusader Kings III", "game")
WORKSHOP = ("steamapps", "workshop", "content", WORKSHOP_APP_ID)
PARADOX = ("Paradox Interactive", "Crusader Kings III")
NOT_USERS = frozenset({"public", "default", "default user", "all users"})

_TOKEN = re.compile(r'"(?P<quoted>(?:[^"\\]|\\.)*)"?|(?P<brace>[{}])|//[^\n]*|(?P<bare>[^\s{}"]+)', re.DOTALL)
# Only these two escapes: a path written with single backslashes (C:\new) keeps them, it gets no newline.
_ESCAPE = re.compile(r"\\([\\\"])")
_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
_SEPARATORS = re.compile(r"[\\/]+")


@frozen
class Detected:
    """What `detect` found: the roots for a config, and human lines saying what was and was not found."""

    roots: dict[str, Path]
    found: tuple[str, ...]
    missing: tuple[str, ...]


@define
class _Report:
    roots: dict[str, Path] = Factory(dict)
    found: list[str] = Factory(list)
    missing: list[str] = Factory(list)

    def freeze(self) -> Detected:
        return Detected(dict(self.roots), tuple(self.found), tuple(self.missing))


def platform_name(sys_platform: str, release: str) -> str:
    """`sys.platform` and the kernel release (`platform.release()`) as one of PLATFORMS."""
    if sys_platform.startswith("win") or sys_platform in {"cygwin", "msys"}:
        return "windows"
    if sys_platform == "darwin":
        return "darwin"
    if "microsoft" in release.lower():
        return "wsl"
    # Other Unix systems lay out home folders like Linux does, which is the nearest guess.
    return "linux"


def detect(home: Path, environ: Mapping[str, str], platform: str) -> Detected:
    """Look for Steam, the game, the workshop and the Paradox documents folder on `platform`."""
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")
    windows_root = Path(environ.get("CK3RAVEN_WINDOWS_ROOT") or "/mnt/c") if platform == "wsl" else None
    report = _Report()
    candidates = _steam_candidates(home, environ, platform, windows_root)
    steam_roots = _existing(candidates)
    _note_steam(report, candidates, steam_roots)
    libraries = _unique(
        lib for root in steam_roots for lib in steam_libraries(root, windows_root=windows_root)
    )
    _note_in_library(report, RootCategory.ROOT_GAME, GAME, libraries)
    _note_in_library(report, RootCategory.ROOT_STEAM, WORKSHOP, libraries)
    users = f"nowhere: no user folder in {windows_root / 'Users'}" if windows_root else "nowhere"
    _note_first(report, RootCategory.ROOT_USER_DOCS, _docs_candidates(home, platform, windows_root), users)
    return report.freeze()


def steam_libraries(steam_root: Path, *, windows_root: Path | None = None) -> list[Path]:
    """`steam_root` and the libraries named in its steamapps/libraryfolders.vdf, existing folders only.

    With `windows_root` (the folder where C: is mounted, under WSL), drive-letter paths are mapped there.
    """
    try:
        text = (steam_root / "steamapps" / "libraryfolders.vdf").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    named = (_host_path(entry, windows_root) for entry in library_paths(text))
    return _existing([steam_root, *(path for path in named if path is not None)])


def library_paths(text: str) -> list[str]:
    """The library paths named in the text of a libraryfolders.vdf, in file order."""
    folders = _get(parse_keyvalues(text), "libraryfolders")
    if not isinstance(folders, dict):
        return []
    paths: list[str] = []
    for key, entry in folders.items():
        if isinstance(entry, dict):
            path = _get(entry, "path")
            if isinstance(path, str):
                paths.append(path)
        elif key.isdigit():
            # Steam clients before 2021 wrote each library as a bare `"1" "D:\\SteamLibrary"` pair.
            paths.append(entry)
    return paths


def parse_keyvalues(text: str) -> KeyValues:
    """Valve KeyValues text as nested dicts; whatever can be read from a malformed or truncated text."""
    top: KeyValues = {}
    # A stack, not recursion: a hostile file of nested braces must not exhaust the interpreter's stack.
    stack = [top]
    key: str | None = None
    for kind, value in _tokens(text):
        if kind == "{":
            child: KeyValues = {}
            stack[-1][key or ""] = child
            stack.append(child)
            key = None
        elif kind == "}":
            if len(stack) > 1:
                stack.pop()
            key = None
        elif key is None:
            key = value
        else:
            stack[-1][key] = value
            key = None
    return top


def _tokens(text: str) -> Iterator[tuple[str, str]]:
    for match in _TOKEN.finditer(text):
        if match["brace"]:
            yield match["brace"], match["brace"]
        elif match["quoted"] is not None:
            yield "string", _ESCAPE.sub(r"\1", match["quoted"])
        elif match["bare"]:
            yield "string", match["bare"]


def _get(block: KeyValues, key: str) -> str | KeyValues | None:
    # KeyValues keys are case-insensitive (older clients wrote "LibraryFolders").
    return next((value for name, value in block.items() if name.lower() == key), None)


def _host_path(text: str, windows_root: Path | None) -> Path | None:
    drive = _DRIVE.match(text)
    if windows_root is not None and drive:
        # Under WSL, C: is mounted at windows_root and the other drives beside it (/mnt/c, /mnt/d, ...).
        rest = [part for part in _SEPARATORS.split(text[drive.end() :]) if part]
        return windows_root.parent.joinpath(drive[1].lower(), *rest)
    path = Path(text)
    # A relative entry would be read against the current directory, which says nothing about Steam.
    return path if path.is_absolute() else None


def _steam_candidates(
    home: Path, environ: Mapping[str, str], platform: str, windows_root: Path | None
) -> list[Path]:
    explicit = [_expand_user(environ["STEAM_DIR"], home)] if environ.get("STEAM_DIR") else []
    if platform == "linux":
        share = Path(".local", "share", "Steam")
        flatpak = Path(".var", "app", "com.valvesoftware.Steam") / share
        return [*explicit, home / ".steam" / "steam", home / share, home / flatpak]
    if platform == "darwin":
        return [*explicit, home / "Library" / "Application Support" / "Steam"]
    if platform == "windows":
        x86 = _env(environ, "ProgramFiles(x86)") or "C:/Program Files (x86)"
        native = _env(environ, "ProgramFiles") or "C:/Program Files"
        return [*explicit, Path(x86) / "Steam", Path(native) / "Steam"]
    root = windows_root or Path("/mnt/c")
    return [*explicit, root / "Program Files (x86)" / "Steam", root / "Program Files" / "Steam"]


def _docs_candidates(home: Path, platform: str, windows_root: Path | None) -> list[Path]:
    if platform == "linux":
        return [home.joinpath(".local", "share", *PARADOX)]
    if platform == "darwin":
        return [home.joinpath("Documents", *PARADOX)]
    if platform == "windows":
        return [home.joinpath("Documents", *PARADOX), home.joinpath("OneDrive", "Documents", *PARADOX)]
    users = (windows_root or Path("/mnt/c")) / "Users"
    return [
        user.joinpath(*documents, *PARADOX)
        for user in _subfolders(users)
        if user.name.lower() not in NOT_USERS
        for documents in (("Documents",), ("OneDrive", "Documents"))
    ]


def _note_steam(report: _Report, candidates: list[Path], steam_roots: list[Path]) -> None:
    report.found.extend(f"Steam: {root}" for root in steam_roots)
    if not steam_roots:
        report.missing.append(f"Steam: not found (looked in {_looked(candidates, 'nowhere')})")


def _note_in_library(
    report: _Report, root: RootCategory, relative: tuple[str, ...], libraries: list[Path]
) -> None:
    wanted = "/".join(relative)
    for library in libraries:
        folder = library.joinpath(*relative)
        if _is_dir(folder):
            report.roots[root.value] = folder
            report.found.append(f"{root.value}: {folder} (Steam library {library})")
            return
    if libraries:
        report.missing.append(
            f'{root.value}: no "{wanted}" in the Steam libraries at {_looked(libraries, "")}'
        )
    else:
        report.missing.append(f'{root.value}: no "{wanted}": no Steam library was found')


def _note_first(report: _Report, root: RootCategory, candidates: list[Path], nowhere: str) -> None:
    for folder in candidates:
        if _is_dir(folder):
            report.roots[root.value] = folder
            report.found.append(f"{root.value}: {folder}")
            return
    report.missing.append(f"{root.value}: not found (looked in {_looked(candidates, nowhere)})")


def _looked(paths: Iterable[Path], nowhere: str) -> str:
    return ", ".join(str(path) for path in paths) or nowhere


def _existing(paths: Iterable[Path]) -> list[Path]:
    return _unique(path for path in paths if _is_dir(path))


def _unique(paths: Iterable[Path]) -> list[Path]:
    # ~/.steam/steam is usually a link to ~/.local/share/Steam, and the vdf names the Steam root again.
    seen: set[Path] = set()
    unique: list[Path] = []
    for path in paths:
        key = _resolved(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: RuntimeError before Python 3.13
        return path


def _is_dir(path: Path) -> bool:
    # Path.is_dir raises on a folder we may not enter (EACCES); detection must report it missing instead.
    try:
        return path.is_dir()
    except OSError:
        return False


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if _is_dir(child))
    except OSError:
        return []


def _env(environ: Mapping[str, str], name: str) -> str | None:
    # Windows spells variable names in any case, and a copy of os.environ there holds them upper-cased.
    wanted = name.lower()
    return next((value for key, value in environ.items() if key.lower() == wanted and value), None)


def _expand_user(text: str, home: Path) -> Path:
    if text == "~" or text.startswith(("~/", "~\\")):
        return home / text[2:]
    return Path(text)
