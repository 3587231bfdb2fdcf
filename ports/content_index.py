"""Port: the playset's content index (SPEC §15), a store the server alone writes: what each file of the
game and the mods defines and mentions, keyed by the file's content digest, and which content each file
of each source holds with the stat it had when read.

A source is named by its folder in root form (`ROOT_GAME:/`, `ROOT_STEAM:/2217000001`); a file by its
path below that folder (`common/traits/00_traits.txt`). Raises ports.errors.Unavailable."""

from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager
from typing import Protocol

from attrs import frozen


@frozen
class IndexedFile:
    """One file of one source: its path, the stat it had when read, and its content's digest."""

    source: str
    path: str
    size: int
    mtime_ns: int
    digest: str


Kinds = tuple[str, ...]
Lines = tuple[int, ...]


@frozen
class Parsed:
    """What the parser found in one content: the kind of file, whether it lies below a localisation
    `replace/` folder, definitions as columns (kinds, keys, lines, languages), mentions as columns (words,
    lines) and findings (code, line, detail). Columns: a build hands millions of definitions from the
    processes that parse to the one that stores, and a few long tuples travel far faster than many
    short ones."""

    kind: str
    replace: bool
    defined: tuple[Kinds, Kinds, Lines, Kinds]
    mentioned: tuple[Kinds, Lines]
    findings: tuple[tuple[str, int, str], ...]

    @classmethod
    def of(
        cls,
        kind: str,
        replace: bool,  # noqa: FBT001 - as the field
        definitions: Iterable[tuple[str, str, int, str]],
        mentions: Iterable[tuple[str, int]],
        findings: tuple[tuple[str, int, str], ...],
    ) -> "Parsed":
        """A content from its definitions (kind, key, line, language) and mentions (word, line) as rows."""
        # columns by transposing in C: a content may hold tens of thousands of rows
        kinds, keys, lines, languages = tuple(zip(*definitions, strict=True)) or ((), (), (), ())
        words, places = tuple(zip(*mentions, strict=True)) or ((), ())
        return cls(kind, replace, (kinds, keys, lines, languages), (words, places), findings)

    @property
    def definitions(self) -> tuple[tuple[str, str, int, str], ...]:
        """The definitions as rows (kind, key, line, language)."""
        return tuple(zip(*self.defined, strict=True))

    @property
    def mentions(self) -> tuple[tuple[str, int], ...]:
        """The mentions as rows (word, line)."""
        return tuple(zip(*self.mentioned, strict=True))


@frozen
class Defined:
    """One definition found through the index: where (source, path), what (kind, key, language), the
    line, and whether the file lies below a `replace/` folder."""

    source: str
    path: str
    kind: str
    key: str
    line: int
    language: str
    replace: bool


@frozen
class Build:
    """One finished build: the playset's name, when it finished, files seen, parsed, and its seconds."""

    playset: str
    at: str
    files: int
    parsed: int
    seconds: float


Read = tuple[str, "Parsed | None"]
"""One file read for the index: its content's digest, and what it holds (None: nothing to store, a content
the index holds already or a kind it does not read)."""


class Parsing(Protocol):
    """Port: where a build's files are read and parsed (the server's own process, or processes of their
    own, which read through the same world as the builder)."""

    def read(self, top: str, paths: list[str]) -> Callable[[], "list[Read | None]"]:
        """Start reading, digesting and parsing the files at `paths` below the source at `top`; the call
        returned gives each one's Read in order, waiting for them (None: no longer a file, or unreadable)."""
        ...


class ContentIndex(Protocol):
    """Port: the content index's store."""

    def files(self, source: str, under: str = "") -> dict[str, IndexedFile]:
        """The indexed files of `source` (below the folder `under`, when given), by path."""
        ...

    def known(self, digests: Iterable[str]) -> set[str]:
        """Those of `digests` whose content is stored already."""
        ...

    def version(self) -> int:
        """A number that moves whenever another writer (a build's process, another server) commits to the
        index: what this one reads may have changed without any file changing."""
        ...

    def update(
        self, source: str, files: list[IndexedFile], contents: dict[str, Parsed], gone: list[str]
    ) -> None:
        """In one short transaction: store `contents` (by digest), set the rows of `files`, and drop the
        rows of the paths in `gone`."""
        ...

    def defined(self, sources: list[str], key: str, kind: str | None = None) -> list[Defined]:
        """Every definition of `key` (of `kind`, when given) in files of `sources`."""
        ...

    def defined_in(self, source: str, path: str) -> list[Defined]:
        """Every definition in the one file at `path` of `source`."""
        ...

    def mentions(self, sources: list[str], word: str) -> list[tuple[str, str, int]]:
        """(source, path, first line) of every file of `sources` that mentions `word`."""
        ...

    def findings(self, source: str, path: str) -> list[tuple[str, int, str]]:
        """The parser's findings in the file at `path` of `source` as indexed."""
        ...

    def keys_of(self, sources: list[str], kind: str) -> list[str]:
        """Every key of `kind` defined in files of `sources`, each once (close's nearest-key hints)."""
        ...

    def mentioned_outside(self, sources: list[str], word: str, source: str, path: str) -> bool:
        """Whether a file of `sources` other than the one at `path` of `source` mentions `word` (close's
        reference checks ask it of every name called with `= yes`, so it stops at the first)."""
        ...

    def builder(self) -> AbstractContextManager[bool]:
        """Hold the one builder's place among every server on the state directory; True when this one
        got it (another server is building when False)."""
        ...

    def record_build(self, build: Build) -> None:
        """Keep what a finished build did."""
        ...

    def last_build(self, playset: str) -> Build | None:
        """The last finished build of `playset`, if any."""
        ...

    def shared_paths(self, sources: list[str], folders: Collection[str]) -> list[tuple[str, str]]:
        """(source, path) of every indexed file of `sources` whose path another of `sources` ships too (case
        ignored, as the game's file system does), or that lies directly in one of `folders`."""
        ...

    def key_conflicts(
        self, sources: list[str], unread: Collection[tuple[str, str]], kind: str | None = None
    ) -> list[tuple[str, str, str]]:
        """(kind, language, key), sorted, of every key (of `kind`, when given) that files of two or more of
        `sources` define, counting only the files the game reads: every file of `sources` but those in
        `unread` ((source, path)). `sources` is in load order; a key no file of a source after the first
        defines is never one."""
        ...

    def missing_keys(
        self, sources: list[str], unread: Collection[tuple[str, str]], language: str, reference: str
    ) -> list[str]:
        """The localisation keys, sorted, that files of `sources` the game reads (all but `unread`) define
        in `reference` and not in `language`."""
        ...
