"""What the game would reject (SPEC §14) run over an unmodified game, as if every file were changed and
every key were new: the shipped rules must find nothing. Prints the files read, the findings per rule (and
the first few of each, to judge a rule that fires), and the seconds: reading the game into an in-memory
lookup (what the content index answers); a line added in the middle of each of 100 files spread over the
sizes (each file parsed whole, as before, against the blocks holding the line alone); then the checks over
every script file, then the checks over 100 files alone, all lines new (the checks' share of a 100-file
close). `--changes-only` stops after the added lines; `--new-only N` times only the 100 spread files as
new, N rounds, wall and CPU seconds each (run it from two checkouts in turn to compare them).

The game is read, never copied; no figure here is a test's dependency.

    python bench/game_rejects.py --game /path/to/Crusader Kings III/game
"""

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import prepare_checkout_imports

prepare_checkout_imports()

from adapters.sqlite_index import SqliteIndex  # noqa: E402
from domain.ck3 import definitions, reference_reading  # noqa: E402
from domain.compliance import game_rejects, reference_checks  # noqa: E402
from ports.content_index import IndexedFile, Parsed  # noqa: E402

SOURCE = "ROOT_GAME:/"

SHOWN = 8


class GameLookup:
    """The game's keys, mentions and localisation, held in memory."""

    def __init__(self) -> None:
        self.kinds: dict[str, set[str]] = defaultdict(set)
        self.keys: dict[str, set[str]] = defaultdict(set)
        self.mentions: dict[str, set[str]] = defaultdict(set)
        self.localisation: set[tuple[str, str]] = set()

    def add(self, path: str, content: definitions.FileContent) -> None:
        for found in content.definitions:
            if found.kind == definitions.LOCALISATION:
                self.localisation.add((found.key, found.language))
            else:
                self.kinds[found.key].add(found.kind)
                self.keys[found.kind].add(found.key)
        for word in content.mentions:
            self.mentions[word].add(path)

    def kinds_of(self, key: str) -> set[str]:
        return self.kinds.get(key, set())

    def keys_of(self, kind: str) -> Iterator[str]:
        return iter(self.keys.get(kind, ()))

    def mentioned_elsewhere(self, word: str, located: tuple[str, str]) -> bool:
        return bool(self.mentions.get(word, set()) - {located[1]})

    def named_in(self, word: str, folder: str, located: tuple[str, str]) -> bool:
        return any(p.startswith(folder + "/") and p != located[1] for p in self.mentions.get(word, ()))

    def localised(self, key: str, language: str) -> bool:
        return (key, language) in self.localisation


def files(game: Path) -> Iterator[tuple[tuple[str, ...], Path]]:
    for top in ("common", "events", "localization"):
        for folder, _, names in os.walk(game / top):
            for name in names:
                full = Path(folder) / name
                parts = tuple(part.casefold() for part in full.relative_to(game).parts)
                if definitions.file_kind(parts) is not None:
                    yield parts, full


Scripts = list[tuple[tuple[str, ...], str, set[tuple[str, str]]]]


class Game:
    """The game read once: the in-memory lookup, its script files (path, text, keys), what an index holds."""

    def __init__(self, game: Path) -> None:
        self.lookup = GameLookup()
        self.script: Scripts = []
        self.indexed: list[IndexedFile] = []
        self.contents: dict[str, Parsed] = {}
        self.files = 0
        for parts, full in files(game):
            data = full.read_bytes()
            text = data.decode("utf-8", errors="replace")
            content = definitions.read(parts, text)
            if content is None:
                continue
            self.files += 1
            self.lookup.add("/".join(parts), content)
            digest = hashlib.sha256(data).hexdigest()
            self.indexed.append(IndexedFile(SOURCE, "/".join(parts), len(data), 0, digest))
            self.contents[digest] = _parsed(content)
            if content.kind in {"script", "events"}:
                self.script.append((parts, text, {(d.kind, d.key) for d in content.definitions}))


def run(
    chosen: Scripts, asked: reference_checks.Lookup, line: str | None = None
) -> tuple[Counter[str], list, float, float]:
    """The checks over `chosen` as if each file were new (or, given `line`, as if that line were added in
    the middle of each file, no key new): findings per rule, the first few, seconds (wall, then CPU)."""
    started, cpu = time.perf_counter(), time.process_time()
    counted: Counter[str] = Counter()
    shown: list = []
    for parts, text, added in chosen if line is None else [(p, t, set()) for p, t, _ in chosen]:
        path = "/".join(parts)
        before = None if line is None else text
        now = text if line is None else _added(text, line)
        changed = reference_checks.Changed(f"{SOURCE}{path}", (SOURCE, path), parts, now, before)
        checked = reference_checks.check(changed, asked, added, "english")
        counted.update(f.rule for f in checked.findings)
        counted.update(["(note)"] * bool(checked.note))
        counted.update(f"{a.rule} (advisory)" for a in checked.advisories)
        shown += [f for f in checked.findings if sum(s.rule == f.rule for s in shown) < SHOWN]
    return counted, shown, time.perf_counter() - started, time.process_time() - cpu


def _added(text: str, line: str) -> str:
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    return "".join([*lines[:middle], line, *lines[middle:]])


REFERRING = "\t\tadd_trait = brave\n"
"""A line that names a key (a field of the reference table): its file is read for references."""
PLAIN = "\t\t# a comment\n"
"""A line that holds no word a reference could start with: its file is not parsed."""


def _whole(
    path: tuple[str, ...], text: str, lines: set[int] | None = None, *, blocks: bool = True
) -> reference_reading.Reading:
    del lines  # set aside: the file parsed whole, as before blocks were cut
    return READ(path, text, blocks=blocks)


READ = reference_reading.read


def changes(spread: Scripts, lookup: GameLookup) -> None:
    """One line added in the middle of each of the 100 spread files: the checks' seconds, the files read
    whole and read a block at a time, rounds interleaved; and a line that names no key."""
    rounds: dict[str, list[float]] = defaultdict(list)
    for _ in range(3):
        reference_reading.read = _whole
        rounds["a referring line, each file parsed whole"].append(run(spread, lookup, REFERRING)[2])
        reference_reading.read = READ
        rounds["a referring line, the blocks holding it parsed"].append(run(spread, lookup, REFERRING)[2])
        rounds["a line naming no key (no parse)"].append(run(spread, lookup, PLAIN)[2])
    for name, seconds in rounds.items():
        print(
            f"100 spread files, one line added, {name}: median {statistics.median(seconds):.2f} s {seconds}"
        )


def new_files(spread: Scripts, lookup: GameLookup, rounds: int) -> None:
    """The checks of the 100 spread files as new (every line checked, every key new), each round's wall
    and CPU seconds and the load then: on a shared machine the CPU seconds are the checks' own."""
    for _ in range(rounds):
        _, _, wall, cpu = run(spread, lookup)
        print(f"100 spread files, new: {wall:.2f} s, {cpu:.2f} s CPU, load {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", type=Path, required=True)
    parser.add_argument("--changes-only", action="store_true", help="only a line added to 100 files")
    parser.add_argument(
        "--new-only", type=int, metavar="ROUNDS", help="only the 100 spread files as new, ROUNDS times"
    )
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    started = time.perf_counter()
    game = Game(args.game)
    read = time.perf_counter() - started
    ranked = sorted(game.script, key=lambda item: -len(item[1]))
    chosen = {"largest": ranked[:100], "spread": ranked[:: max(1, len(ranked) // 100)][:100]}
    if args.new_only:
        new_files(chosen["spread"], game.lookup, args.new_only)
        return
    changes(chosen["spread"], game.lookup)
    print(f"load average after the changes: {os.getloadavg()}")
    if args.changes_only:
        return
    counted, shown, every, _ = run(game.script, game.lookup)
    print(f"files read: {game.files}, script files checked: {len(game.script)}")
    print(f"reading the game: {read:.1f} s; checks over every script file: {every:.1f} s")
    print(f"findings per rule: {dict(counted) or 'none'}")
    for finding in shown:
        print(f"  {finding.rule} {finding.path}:{finding.line} {finding.message}")
    in_memory = {name: run(files, game.lookup)[2:] for name, files in chosen.items()}
    with tempfile.TemporaryDirectory() as scratch:
        index = SqliteIndex(Path(scratch) / "index.db")
        index.update(SOURCE, game.indexed, game.contents, [])
        through_index = {
            name: run(files, game_rejects.IndexLookup(index, [SOURCE]))[2] for name, files in chosen.items()
        }
        index.close()
    for name, files in chosen.items():
        size = sum(len(text) for _, text, _ in files) >> 10
        print(
            f"100 script files, {name} ({size} KiB): {in_memory[name][0]:.2f} s in memory "
            f"({in_memory[name][1]:.2f} s CPU), "
            f"{through_index[name]:.2f} s through the content index"
        )
    print(f"load average after: {os.getloadavg()}")


def _parsed(content: definitions.FileContent) -> Parsed:
    return Parsed.of(
        content.kind,
        content.replace,
        ((d.kind, d.key, d.line, d.language) for d in content.definitions),
        tuple(content.mentions.items()),
        (),
    )


if __name__ == "__main__":
    main()
