"""Where a Crusader Kings III setup lies on the operator's machine (Steam, its libraries, the game, the
workshop, the Paradox documents folder). Home, environment and platform are always passed in, never read.

Under WSL the Windows side is found through its drives (C: at /mnt/c unless /etc/wsl.conf or
CK3RAVEN_WINDOWS_ROOT says otherwise): Steam on any drive, the libraries its libraryfolders.vdf names, and
each Windows user's Documents folder, also where OneDrive has moved it (under any `OneDrive*` folder, under
whatever name the Documents folder has there)."""

import configparser
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
DEFAULT_WINDOWS_ROOT = Path("/mnt/c")

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


def platform_name(sys_platform: str, release: str, *, distro: str | None = None) -> str:
    """`sys.platform` and the kernel release (`platform.release()`) as one of PLATFORMS; `distro` is the WSL
    distribution this runs in ($WSL_DISTRO_NAME), if any."""
    if sys_platform.startswith("win") or sys_platform in {"cygwin", "msys"}:
        return "windows"
    if sys_platform == "darwin":
        return "darwin"
    if "microsoft" in release.lower() or distro:
        return "wsl"
    # Other Unix systems lay out home folders like Linux does, which is the nearest guess.
    return "linux"


def windows_root(environ: Mapping[str, str], wsl_conf: str = "") -> Path:
    """Where WSL mounts C:: $CK3RAVEN_WINDOWS_ROOT, else `c` in the automount root the text of
    /etc/wsl.conf names, else /mnt/c."""
    if environ.get("CK3RAVEN_WINDOWS_ROOT"):
        return Path(environ["CK3RAVEN_WINDOWS_ROOT"])
    conf = configparser.ConfigParser(interpolation=None)
    try:
        conf.read_string(wsl_conf)
    except configparser.Error:
        return DEFAULT_WINDOWS_ROOT
    root = conf.get("automount", "root", fallback="").strip().strip("\"'")
    return Path(root) / "c" if root.startswith("/") else DEFAULT_WINDOWS_ROOT


def detect(home: Path, environ: Mapping[str, str], platform: str, *, wsl_conf: str = "") -> Detected:
    """Look for Steam, the game, the workshop and the Paradox documents folder on `platform` (under WSL,
    `wsl_conf` is the text of /etc/wsl.conf)."""
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")
    drive_c = windows_root(environ, wsl_conf) if platform == "wsl" else None
    report = _Report()
    candidates = _steam_candidates(home, environ, platform, drive_c)
    steam_roots = _existing(candidates)
    _note_steam(report, candidates, steam_roots)
    libraries = _unique(
        [
            *(lib for root in steam_roots for lib in steam_libraries(root, windows_root=drive_c)),
            *_existing(drive / "SteamLibrary" for drive in _drives(drive_c)),
        ]
    )
    _note_in_library(report, RootCategory.ROOT_GAME, GAME, libraries)
    _note_in_library(report, RootCategory.ROOT_STEAM, WORKSHOP, libraries)
    users = f"nowhere: no user folder in {drive_c / 'Users'}" if drive_c else "nowhere"
    _note_first(report, RootCategory.ROOT_USER_DOCS, _docs_candidates(home, platform, drive_c), users)
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
        flatpak = Path(".var", "app", "com.valvesoftware.Steam")
        older = flatpak / "data" / "Steam"  # Flatpak Steam's first layout, still found on upgraded installs
        snap = Path("snap", "steam", "common") / share
        return [
            *explicit,
            home / ".steam" / "steam",
            home / share,
            home / flatpak / share,
            home / older,
            home / snap,
        ]
    if platform == "darwin":
        return [*explicit, home / "Library" / "Application Support" / "Steam"]
    if platform == "windows":
        x86 = _env(environ, "ProgramFiles(x86)") or "C:/Program Files (x86)"
        native = _env(environ, "ProgramFiles") or "C:/Program Files"
        return [*explicit, Path(x86) / "Steam", Path(native) / "Steam"]
    installed = (Path("Program Files (x86)", "Steam"), Path("Program Files", "Steam"), Path("Steam"))
    return [*explicit, *(drive / place for drive in _drives(windows_root) for place in installed)]


def _drives(drive_c: Path | None) -> list[Path]:
    """Under WSL, the Windows drives: C: first, then the other one-letter folders beside it."""
    if drive_c is None:
        return []
    others = [
        folder
        for folder in _subfolders(drive_c.parent)
        if len(folder.name) == 1 and folder.name.isalpha() and folder != drive_c
    ]
    return [drive_c, *others]


def _docs_candidates(home: Path, platform: str, windows_root: Path | None) -> list[Path]:
    if platform == "linux":  # Steam native, Flatpak (the current layout, then the older one), Snap
        flatpak = home / ".var" / "app" / "com.valvesoftware.Steam"
        return [
            home.joinpath(".local", "share", *PARADOX),
            flatpak.joinpath(".local", "share", *PARADOX),
            flatpak.joinpath("data", *PARADOX),
            home.joinpath("snap", "steam", "common", ".local", "share", *PARADOX),
        ]
    if platform == "darwin":
        return [home.joinpath("Documents", *PARADOX)]
    if platform == "windows":
        return [documents.joinpath(*PARADOX) for documents in _documents_folders(home)]
    users = (windows_root or DEFAULT_WINDOWS_ROOT) / "Users"
    return [
        documents.joinpath(*PARADOX)
        for user in _subfolders(users)
        if user.name.lower() not in NOT_USERS
        for documents in _documents_folders(user)
    ]


def _documents_folders(user: Path) -> list[Path]:
    """Where a Windows user's Documents folder may be: in the profile, or moved by OneDrive into a folder
    named `OneDrive` or `OneDrive - <organisation>`, where it may carry a translated name (Dokumente,
    Documenti, ...): each folder there is a candidate, `Documents` first."""
    found = [user / "Documents"]
    for onedrive in _subfolders(user):
        if onedrive.name.lower().startswith("onedrive"):
            inside = sorted(_subfolders(onedrive), key=lambda folder: folder.name != "Documents")
            found += [onedrive / "Documents", *(folder for folder in inside if folder.name != "Documents")]
    return found


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
