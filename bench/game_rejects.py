"""What the game would reject (SPEC §14) run over an unmodified game, as if every file were changed and
every key were new: the shipped rules must find nothing. Prints the files read, the findings per rule (and
the first few of each, to judge a rule that fires), and the seconds: reading the game into an in-memory
lookup (what the content index answers), then the checks over every script file, then the checks over the
100 largest event and `common/` files alone (the checks' share of a 100-file close).

The game is read, never copied; no figure here is a test's dependency.

    python bench/game_rejects.py --game /path/to/Crusader Kings III/game
"""

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import prepare_checkout_imports

prepare_checkout_imports()

from domain.ck3 import definitions  # noqa: E402
from domain.compliance import reference_checks  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", type=Path, required=True)
    args = parser.parse_args()
    lookup = GameLookup()
    script: list[tuple[tuple[str, ...], str, set[tuple[str, str]]]] = []
    started = time.perf_counter()
    for parts, full in files(args.game):
        text = full.read_bytes().decode("utf-8", errors="replace")
        content = definitions.read(parts, text)
        if content is None:
            continue
        lookup.add("/".join(parts), content)
        if content.kind in {"script", "events"}:
            script.append((parts, text, {(d.kind, d.key) for d in content.definitions}))
    read = time.perf_counter() - started

    def run(chosen: list[tuple[tuple[str, ...], str, set[tuple[str, str]]]]) -> tuple[Counter[str], list]:
        counted: Counter[str] = Counter()
        shown: list[reference_checks.Finding] = []
        for parts, text, added in chosen:
            path = "/".join(parts)
            changed = reference_checks.Changed(f"ROOT_GAME:/{path}", ("ROOT_GAME:/", path), parts, text, None)
            checked = reference_checks.check(changed, lookup, added, "english")
            counted.update(f.rule for f in checked.findings)
            counted.update(["(note)"] * bool(checked.note))
            shown += [f for f in checked.findings if sum(s.rule == f.rule for s in shown) < SHOWN]
        return counted, shown

    started = time.perf_counter()
    counted, shown = run(script)
    every = time.perf_counter() - started
    ranked = sorted(script, key=lambda item: -len(item[1]))
    largest = ranked[:100]
    spread = ranked[:: max(1, len(ranked) // 100)][:100]
    started = time.perf_counter()
    run(largest)
    hundred = time.perf_counter() - started
    started = time.perf_counter()
    run(spread)
    typical = time.perf_counter() - started
    print(f"files read: {sum(1 for _ in files(args.game))}, script files checked: {len(script)}")
    print(f"reading the game: {read:.1f} s; checks over every script file: {every:.1f} s")
    mib = sum(len(t) for _, t, _ in largest) >> 20
    print(f"checks over the 100 largest script files ({mib} MiB): {hundred:.2f} s")
    kib = sum(len(t) for _, t, _ in spread) >> 10
    print(f"checks over 100 script files spread over the sizes ({kib} KiB): {typical:.2f} s")
    print(f"findings per rule: {dict(counted) or 'none'}")
    for finding in shown:
        print(f"  {finding.rule} {finding.path}:{finding.line} {finding.message}")


if __name__ == "__main__":
    main()
