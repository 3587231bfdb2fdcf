"""Port: the playset's content index (SPEC §15), a store the server alone writes: what each file of the
game and the mods defines and mentions, keyed by the file's content digest, and which content each file
of each source holds with the stat it had when read.

A source is named by its folder in root form (`ROOT_GAME:/`, `ROOT_STEAM:/2217000001`); a file by its
path below that folder (`common/traits/00_traits.txt`). Raises ports.errors.Unavailable."""

from collections.abc import Iterable, Iterator
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


@frozen
class Parsed:
    """What the parser found in one content: the kind of file, whether it lies below a localisation
    `replace/` folder, definitions (kind, key, line, language), mentions (word, line) and findings
    (code, line, detail)."""

    kind: str
    replace: bool
    definitions: tuple[tuple[str, str, int, str], ...]
    mentions: tuple[tuple[str, int], ...]
    findings: tuple[tuple[str, int, str], ...]


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


class ContentIndex(Protocol):
    """Port: the content index's store."""

    def files(self, source: str, under: str = "") -> dict[str, IndexedFile]:
        """The indexed files of `source` (below the folder `under`, when given), by path."""
        ...

    def known(self, digests: Iterable[str]) -> set[str]:
        """Those of `digests` whose content is stored already."""
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

    def definitions(self, sources: list[str], kind: str | None = None) -> Iterator[Defined]:
        """Every definition in files of `sources` (of `kind`, when given), by kind and key."""
        ...

    def mentions(self, sources: list[str], word: str) -> list[tuple[str, str, int]]:
        """(source, path, first line) of every file of `sources` that mentions `word`."""
        ...

    def findings(self, source: str, path: str) -> list[tuple[str, int, str]]:
        """The parser's findings in the file at `path` of `source` as indexed."""
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
