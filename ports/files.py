"""Port: the files of the configured roots, addressed by root name and path segments (never host paths).

A `Location` names a place inside one configured root by validated segments; the adapter alone knows
where the root lives on the host. Implementations never follow symbolic links, not even in ancestors. On a
root whose filesystem ignores case, an entry has one spelling: the one its folder lists.
"""

from collections.abc import Callable, Generator, Iterator
from typing import Final, Literal, NamedTuple, Protocol

from attrs import frozen

from ports.errors import PortError

Kind = Literal["file", "dir", "symlink", "special"]


@frozen
class Location:
    """A place inside a root: the root's name and the segments below it (empty: the root itself)."""

    root: str
    parts: tuple[str, ...] = ()

    def child(self, name: str) -> "Location":
        return Location(self.root, (*self.parts, name))


class Entry(NamedTuple):
    """One child of a folder: its name, kind and size in bytes (files only; 0 otherwise). A named tuple,
    not an attrs class: a listing makes one per child, and a tuple is made at a fraction of the cost."""

    name: str
    kind: Kind
    size: int = 0


Sift = Callable[[list[tuple[str, Kind]]], list[tuple[str, Kind]]]
"""A walk's filter of one folder's entries at once (name and kind, sorted): the ones to go on with."""

FolderSift = Callable[[list[str]], list[str]]
"""A folder walk's filter of one folder's folder names at once (sorted): the ones to go on with."""

WholeFolder = Callable[[tuple[str, ...], list[str]], bool]
"""A survey's question about one folder at once (its parts below the surveyed folder, the names in it, in
no set order): True when its `keep` would keep every one of those entries whatever their kind, so it
need not be asked of each (False: ask it of each)."""

SURVEY_DEPTH: Final = 256
"""How deep below its folder a survey goes; a deeper folder is TooLarge."""


@frozen
class Stat:
    """What a survey records of one entry: its kind, size, times (ns), inode, a link's target text, and the
    SHA-256 of a file's content where the adapter knows it without reading (in memory)."""

    kind: Kind
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    inode: int = 0
    link: str | None = None
    digest: str | None = None


SurveyRow = tuple[str, int, int, int, int, str | None, str | None]
"""One entry of a survey's table: kind, size, mtime_ns, ctime_ns, inode, a link's target, a content digest."""


def below(keep: Callable[[str], bool] | None, cut: int) -> Callable[[str], bool] | None:
    """`keep` asked with a walked path less the first `cut` characters (its `above`): for adapters."""
    if keep is None or not cut:
        return keep
    return lambda path: keep(path[cut:])


class Part(NamedTuple):
    """Bytes read from a file at an offset, with the file's whole size and last change (ns) then."""

    data: bytes
    size: int
    mtime_ns: int


class Files(Protocol):
    """Port: the structure and files of the roots.

    Every method raises NotFound, LinkRefused, NotADirectory, SpecialFile, TooLarge or Unavailable
    (ports.errors) and nothing else; `kind`, `write` and `delete` also Misspelled. Entries come sorted by
    name, spelled as their folder lists them."""

    def roots(self) -> frozenset[str]:
        """The names of the roots this store serves."""
        ...

    def ignores_case(self, root: str) -> bool:
        """Whether the filesystem of `root` matches names without regard to case (told once, at start;
        False for a root this store does not serve)."""
        ...

    def kind(self, location: Location) -> Kind:
        """What stands at `location` (a link is reported, not followed). On a root that ignores case,
        raises Misspelled when an entry on the way, or the target, exists under another spelling: every
        existing segment is compared with its folder's listing, and nowhere else is the cost paid."""
        ...

    def list_dir(self, location: Location, named: Callable[[str], bool] | None = None) -> list[Entry]:
        """The children of the folder at `location` (only those whose name `named` accepts, asked before
        anything else is looked up about them)."""
        ...

    def read(self, location: Location, limit: int) -> bytes:
        """The content of the regular file at `location`. Raises SpecialFile for anything but a regular
        file with one link, TooLarge past `limit` bytes."""
        ...

    def read_many(self, folder: Location, names: list[str], limit: int) -> list[bytes | PortError]:
        """The content of several files of one folder, each as `read` answers it (its bytes, or the port
        error it raises), the folder opened once. Raises a port error only when the folder cannot be."""
        ...

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        """Create or replace the file at `location` atomically: the old content or the new, never a mix,
        and nothing left behind on failure. Missing parent folders are created. Raises SpecialFile when a
        folder, special file or hard-linked file stands there, LinkRefused for a link; with `exclusive`,
        AlreadyExists when anything stands there at the moment the file would appear; on a root that ignores
        case, Misspelled as `kind` does (so no write lands under a spelling other than the one asked)."""
        ...

    def delete(self, location: Location) -> None:
        """Remove the regular file at `location` (a link, folder or special file is refused; Misspelled as
        `kind` raises it)."""
        ...

    def walk(
        self,
        location: Location,
        depth: int,
        keep: Callable[[tuple[str, ...], Kind], bool],
        sift: Sift | None = None,
    ) -> Iterator[tuple[tuple[str, ...], Kind]]:
        """Every entry below `location` (files, folders, links, special files), at most `depth` levels
        down, in sorted depth-first pre-order, as parts relative to `location` and the entry's kind (a link
        is reported, never followed). `keep(parts, kind)` is asked for each: an entry it refuses is neither
        yielded nor, for a folder, entered. `sift`, given, is handed each folder's entries (name and kind,
        sorted) once, before `keep`: those it does not give back are left out as if refused. Closing the
        iterator early releases everything it holds."""
        ...

    def walk_dirs(
        self,
        location: Location,
        depth: int,
        keep: Callable[[str], bool] | None,
        sift: FolderSift | None = None,
        above: str = "",
    ) -> Generator[str, None, None]:
        """Folders below `location`, at most `depth` levels down, in sorted depth-first pre-order, as paths
        relative to `location`, their parts joined by `/` (built as the walk goes: a tree of thousands of
        folders is not joined again from its parts), each after `above` (the caller's spelling of
        `location`: spelled as the walk goes, not by a pass over what it yields). `keep(path)` is asked
        for each folder found, with its path alone (None: each is kept): a folder it refuses is neither
        yielded nor entered. `sift`, given, is handed each folder's folder names (sorted) once, before
        `keep`, when it has any: those it does not give back are left out as if refused. A folder that
        turns into a link mid-walk is skipped, never followed. Closing the generator early releases
        everything it holds."""
        ...

    def survey(
        self, location: Location, keep: Callable[[tuple[str, ...], Kind], bool]
    ) -> Iterator[tuple[tuple[str, ...], Stat]]:
        """Every entry below `location` at any depth with its Stat (lstat: a link is reported with its
        target text, never followed), in sorted depth-first pre-order; `keep` as for `walk`. An entry that
        vanishes between the listing and its stat is left out. Raises TooLarge for folders nested deeper
        than SURVEY_DEPTH."""
        ...

    def survey_table(
        self,
        location: Location,
        keep: Callable[[tuple[str, ...], Kind], bool],
        above: str = "",
        whole: WholeFolder | None = None,
    ) -> dict[str, "SurveyRow"]:
        """What `survey` finds, as one table: each entry's path below `location` (its parts joined by `/`,
        after `above`) → (kind, size, mtime_ns, ctime_ns, inode, a link's target, a digest), in no set
        order. A folder's row holds its kind alone (folders are no work; what is in them is). `whole`, when
        given, may spare asking `keep` of each entry of a folder it answers True for. Raises TooLarge as
        `survey` does."""
        ...

    def read_part(self, location: Location, offset: int, size: int) -> Part:
        """At most `size` bytes of the regular, singly linked file at `location` from byte `offset` (fewer
        at its end, none past it), with the file's size and last change: a file larger than any whole
        read allows, read a window at a time. Raises what `read` raises, never TooLarge."""
        ...
