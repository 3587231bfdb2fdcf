"""Floors: the least work that gives a case's answer, in plain Python in the bench's own process.

Each floor does the same work as the server it stands beside (the same entries looked at, the same
result built and serialised), with nothing else: no server, no protocol, no governance. ck3raven's tree
lists folders only, the reference server's lists files too, so each has its own floor. The search floors
are the ones bench/search.py checks ck3_search against.
"""

import fnmatch
import json
import math
import os
import re
from operator import attrgetter
from pathlib import Path

GAME = "ROOT_GAME:/"

# ------------------------------------------------------------------ ck3raven's work


def folders_tree(game: Path, depth: int) -> str:
    """`ck3_dir tree`: the addresses of the folders below the game folder, `depth` levels down, depth-first
    in name order, as compact JSON. Kinds come from the directory entries (no stat), as in ck3raven."""
    found: list[str] = []

    def walk(folder: str, rel: str, left: int) -> None:
        with os.scandir(folder) as it:
            names = sorted(entry.name for entry in it if entry.is_dir(follow_symlinks=False))
        for name in names:
            child = rel + name
            found.append(GAME + child)
            if left > 1:
                walk(f"{folder}/{name}", child + "/", left - 1)

    walk(str(game), "", depth)
    return json.dumps(found, separators=(",", ":"))


def listing(folder: Path) -> str:
    """`ck3_dir list`: each child's name, kind and size (one lstat each), sorted by name, compact JSON."""
    rows = []
    with os.scandir(folder) as it:
        for entry in sorted(it, key=attrgetter("name")):
            info = entry.stat(follow_symlinks=False)
            kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
            rows.append({"name": entry.name, "kind": kind, "size": info.st_size})
    return json.dumps(rows, separators=(",", ":"))


def read_text(path: Path) -> str:
    """A read: open, read, decode UTF-8."""
    with path.open("rb") as handle:
        return handle.read().decode("utf-8")


def write_synced(path: Path, text: str) -> None:
    """An atomic write as ck3raven makes it: a new file written and fsynced, renamed over the old one,
    and the folder fsynced so that the rename survives a crash."""
    temp = path.with_name(f".{path.name}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    temp.replace(path)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


# ------------------------------------------------------------------ the reference server's work


def nested_tree(game: Path, depth: int) -> str:
    """The reference's `directory_tree`: every file and folder, nested ({name, type, children}), in
    name order (Node's readdir sorts), as JSON with two-space indents; below `depth` levels a folder's
    children are empty (what its excludePatterns `*/*/*/*` leaves at depth 3)."""

    def walk(folder: str, left: int) -> list[dict[str, object]]:
        result: list[dict[str, object]] = []
        if left == 0:
            return result
        with os.scandir(folder) as it:
            entries = sorted(it, key=attrgetter("name"))
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                result.append(
                    {"name": entry.name, "type": "directory", "children": walk(entry.path, left - 1)}
                )
            else:
                result.append({"name": entry.name, "type": "file"})
        return result

    return json.dumps(walk(str(game), depth), indent=2)


def sized_listing(folder: Path) -> str:
    """The reference's `list_directory_with_sizes`: a stat of each child, sorted by name, one formatted
    line each and a summary."""
    rows = []
    with os.scandir(folder) as it:
        for entry in it:
            info = entry.stat()
            rows.append((entry.name, entry.is_dir(follow_symlinks=False), info.st_size))
    rows.sort()
    lines = [
        f"{'[DIR]' if is_dir else '[FILE]'} {name:<30} {'' if is_dir else f'{_size(size):>10}'}"
        for name, is_dir, size in rows
    ]
    files = [size for _, is_dir, size in rows if not is_dir]
    lines += ["", f"Total: {len(files)} files, {len(rows) - len(files)} directories"]
    lines.append(f"Combined size: {_size(sum(files))}")
    return "\n".join(lines)


def _size(count: int) -> str:
    units = ("B", "KB", "MB", "GB", "TB")
    if count <= 0:
        return "0 B"
    power = min(math.floor(math.log(count) / math.log(1024)), len(units) - 1)
    if power == 0:
        return f"{count} B"
    hundredths = math.floor(count * 100 / 1024**power + 0.5)  # toFixed(2) rounds halves up
    return f"{hundredths / 100:.2f} {units[power]}"


def write_unsynced(path: Path, text: str) -> None:
    """A write as the reference makes it over an existing file: a temporary file written and renamed
    over the old one, its mode restored; nothing is fsynced."""
    mode = path.stat().st_mode & 0o777
    temp = path.with_name(f"{path.name}.{os.urandom(8).hex()}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)
    path.chmod(mode)


# ------------------------------------------------------------------ search (bench/search.py's cases)

NAMES_GLOB = "**/*_l_english.yml"
NAMES_REGEX = re.compile(r"(?:.*/)?[^/]*_l_english\.yml")  # what the glob means on a relative path
LITERAL = "tournament_wedding"
LIST_GLOB = "ce_*_01??.dds"


def names(game: Path) -> list[str]:
    """Name search: a sorted walk matching NAMES_REGEX on each relative path, building addresses."""
    found: list[str] = []

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=attrgetter("name"))
        for entry in entries:
            child = rel + entry.name
            if NAMES_REGEX.fullmatch(child):
                found.append(GAME + child)
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, child + "/")

    walk(str(game), "")
    return found


def contents(game: Path) -> list[dict[str, object]]:
    """Content search: the same walk, each .txt read once (open, read, decode, `in`), the hits' lines."""
    hits: list[dict[str, object]] = []

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=attrgetter("name"))
        for entry in entries:
            child = rel + entry.name
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, child + "/")
            elif fnmatch.fnmatchcase(entry.name, "*.txt"):
                with open(entry.path, "rb") as fh:  # noqa: PTH123 - a floor: no Path object per file
                    text = fh.read().decode("utf-8")
                if LITERAL in text:
                    for number, line in enumerate(text.split("\n"), 1):
                        if (column := line.find(LITERAL)) >= 0:
                            hit = {"line": number, "column": column + 1, "text": line}
                            hits.append({"address": GAME + child, **hit})

    walk(str(game), "")
    return hits


def filtered_listing(folder: Path) -> list[dict[str, object]]:
    """A filtered list: os.scandir, fnmatch on each name, an lstat of each kept entry, sorted rows
    (address, kind, size)."""
    rows: list[dict[str, object]] = []
    with os.scandir(folder) as it:
        for entry in sorted(it, key=attrgetter("name")):
            if fnmatch.fnmatchcase(entry.name, LIST_GLOB):
                info = entry.stat(follow_symlinks=False)
                kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
                rows.append({"name": entry.name, "kind": kind, "size": info.st_size})
    return rows
