"""What the log commands ask of a stream of emissions (domain.ck3.game_log): a filter, a summary, the
emissions grouped by template, and cascades (emissions with one root cause, across files and sources).
Pure, and each holds a bounded amount whatever the stream's length: counts by key, capped at MAX_KEYS keys
(the rest counted together), never the emissions themselves.
"""

import fnmatch
import re
from collections.abc import Callable, Iterable
from typing import Final

from attrs import define, field

from domain.ck3.game_log import Emission, template

MAX_KEYS: Final = 10_000
"""Distinct templates, sources or causes counted one by one; past it, the rest count as `other`."""
OTHER: Final = "<other>"


@define
class Filter:
    """Which emissions a question is about: a level, a literal text (case-insensitive), and a glob the
    address (or, unattributed, the path as written) of a file the emission names must match."""

    level: str | None = None
    text: str | None = None
    glob: str | None = None
    where: Callable[[Emission], list[str]] | None = None
    """The addresses of the files an emission names (needed only with a glob)."""
    _folded: str | None = field(default=None, init=False)
    _glob: re.Pattern[str] | None = field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        self._folded = self.text.casefold() if self.text else None
        self._glob = re.compile(fnmatch.translate(self.glob)) if self.glob else None

    def keeps(self, emission: Emission) -> bool:
        if self.level is not None and emission.level != self.level:
            return False
        if self._folded is not None and self._folded not in emission.text.casefold():
            return False
        if self._glob is not None:
            named = self.where(emission) if self.where is not None else []
            return any(self._glob.match(address) for address in named)
        return True


@define
class Group:
    """Emissions of one template from one engine source: how many, their level, first and last lines, and
    the first emission's number (to ask for it whole)."""

    template: str
    source: str | None
    level: str
    count: int = 0
    first_line: int = 0
    last_line: int = 0
    example: int = 0

    def row(self) -> dict[str, object]:
        return {
            "template": self.template,
            "source": self.source,
            "level": self.level,
            "count": self.count,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "emission": self.example,
        }


@define
class Tally:
    """A summary of a stream, built one emission at a time: counts by level, by engine source and by
    template (groups), bounded by MAX_KEYS."""

    emissions: int = 0
    levels: dict[str, int] = field(factory=dict)
    sources: dict[str, int] = field(factory=dict)
    groups: dict[tuple[str | None, str], Group] = field(factory=dict)
    other: int = 0

    def add(self, emission: Emission) -> None:
        self.emissions += 1
        levels, level, source = self.levels, emission.level, emission.source
        levels[level] = levels.get(level, 0) + 1
        sources, named = self.sources, source or OTHER
        if named in sources:
            sources[named] += 1
        elif len(sources) < MAX_KEYS:
            sources[named] = 1
        key = (source, template(emission))
        group = self.groups.get(key)
        if group is None:
            if len(self.groups) >= MAX_KEYS:
                self.other += 1
                return
            group = self.groups[key] = Group(
                key[1], source, level, 0, emission.first_line, 0, emission.number
            )
        group.count += 1
        group.last_line = emission.last_line

    def ranked(self) -> list[Group]:
        """The groups, the most frequent first (then by their first line)."""
        return sorted(self.groups.values(), key=lambda g: (-g.count, g.first_line))

    def top_sources(self, most: int) -> list[dict[str, object]]:
        ranked = sorted(self.sources.items(), key=lambda item: (-item[1], item[0]))[:most]
        return [{"source": source, "count": count} for source, count in ranked]


@define
class Cascade:
    """Emissions with one root cause: the cause, how many, and the files and sources they name."""

    kind: str
    name: str
    count: int = 0
    first_line: int = 0
    files: set[str] = field(factory=set)
    sources: set[str] = field(factory=set)

    def row(self, most_files: int = 20) -> dict[str, object]:
        return {
            "cause": self.kind,
            "name": self.name,
            "count": self.count,
            "first_line": self.first_line,
            "file_count": len(self.files),
            "files": sorted(self.files)[:most_files],
            "origins": sorted(self.sources),
        }


def cascades(
    emissions: Iterable[Emission], named: Callable[[Emission], list[tuple[str, str]]]
) -> list[Cascade]:
    """The cascades of a stream: emissions grouped by their root cause (an undefined key, a missing file,
    a key defined twice), each with the files (address or path) and origins (mod or game) they name
    (`named`: an emission's files as (address, origin) pairs); largest first, then by first line."""
    found: dict[tuple[str, str], Cascade] = {}
    for emission in emissions:
        cause = emission.cause()
        if cause is None:
            continue
        cascade = found.get(cause)
        if cascade is None:
            if len(found) >= MAX_KEYS:
                continue
            cascade = found[cause] = Cascade(cause[0], cause[1], 0, emission.first_line)
        cascade.count += 1
        for address, origin in named(emission):
            if len(cascade.files) < MAX_KEYS:
                cascade.files.add(address)
            cascade.sources.add(origin)
    return sorted(found.values(), key=lambda c: (-len(c.files), -c.count, c.first_line))
