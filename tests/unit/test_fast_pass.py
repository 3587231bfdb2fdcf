"""The content index's fast pass over localisation files finds what the one parser finds (SPEC §15: one
parser stays the authority): on every file of the sample world, on a generated world of game-shaped
localisation files (plain ones, and ones with every kind of fault the parser reports), and it decides
only plain files, leaving every other to the parser."""

import random

import pytest

from domain.ck3 import content_index, fast_pass
from tests.worlds import SAMPLE

LANGUAGES = ("english", "french", "german", "spanish", "russian", "korean", "simp_chinese")
VALUES = (
    '"Brave"',
    '"$trait_brave$ and [ROOT.Char.GetName]"',
    '"a "quoted" word"',
    '""',
    '"Bold" # a comment after the value',
    '"#F coloured#! text"',
    '"it\'s"',
)
FAULTS = (
    "a line that is no entry",
    ' open_value:0 "never closed',
    " no_quote:0 Brave",
    '\x0b shifted:0 "v"',
)


def localisation_file(rng: random.Random, language: str, *, faulty: bool) -> bytes:
    """A localisation file as the game ships them (a byte-order mark, a header, indented entries with or
    without a version, comments and blank lines, LF or CRLF); a faulty one has one fault of FAULTS, a
    key written twice or no header."""
    lines = [] if rng.random() < 0.3 else ["# a comment before the header", ""]
    lines.append(f"l_{language}:" + rng.choice(["", " # header comment", "0"]))
    keys = [f"key_{rng.randrange(10**6)}_{n}" for n in range(rng.randrange(1, 60))]
    for key in keys:
        version = rng.choice(["0", "1", "", "12"])
        indent = rng.choice([" ", "  ", "\t", ""])
        lines.append(f"{indent}{key}:{version} {rng.choice(VALUES)}")
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "  # a comment", "\t", "#"]))
    if faulty:
        fault = rng.randrange(len(FAULTS) + 2)
        at = rng.randrange(1, len(lines) + 1)
        if fault < len(FAULTS):
            lines.insert(at, FAULTS[fault])
        elif fault == len(FAULTS):
            lines.insert(at, f' {keys[0]}:0 "again"')
        else:
            lines = [line for line in lines if not line.startswith("l_")]
    text = ("\r\n" if rng.random() < 0.2 else "\n").join(lines) + rng.choice(["\n", ""])
    return (("\ufeff" if rng.random() < 0.7 else "") + text).encode()


def generated_world(count: int) -> list[tuple[tuple[str, ...], bytes]]:
    """`count` localisation files of a generated world (fixed seed), one in four faulty."""
    rng = random.Random(50)  # noqa: S311 - a fixed seed for a reproducible world, no secret
    files = []
    for n in range(count):
        language = rng.choice(LANGUAGES)
        folder = ("localization", "replace", language) if n % 9 == 0 else ("localization", language)
        path = (*folder, f"file_{n}_l_{language}.yml")
        files.append((path, localisation_file(rng, language, faulty=n % 4 == 0)))
    return files


def sample_world() -> list[tuple[tuple[str, ...], bytes]]:
    """Every file of the sample world's game and mods, by its path from its first game folder."""
    found = []
    for path in sorted(SAMPLE.rglob("*")):
        parts = path.relative_to(SAMPLE).parts
        start = next(
            (i for i, part in enumerate(parts[:-1]) if part in {"common", "events", "gui", "localization"}),
            None,
        )
        if path.is_file() and start is not None:
            found.append((parts[start:], path.read_bytes()))
    return found


@pytest.mark.parametrize(
    "files", [sample_world(), generated_world(3000)], ids=["sample world", "generated world"]
)
def test_the_fast_pass_and_the_parser_index_every_file_alike(files: list[tuple[tuple[str, ...], bytes]]):
    differ = [
        "/".join(path)
        for path, data in files
        if content_index.parse_bytes(path, data) != content_index.parse_bytes(path, data, fast=False)
    ]

    assert files
    assert differ == []


def test_the_fast_pass_decides_plain_files_and_leaves_every_faulty_one_to_the_parser():
    files = generated_world(400)
    decided = [fast_pass.localisation_entries(data.decode()) is not None for _, data in files]
    found = [content_index.parse_bytes(path, data, fast=False) for path, data in files]
    faulty = [bool(parsed and parsed.findings) for parsed in found]

    assert faulty == [n % 4 == 0 for n in range(len(files))]
    assert decided == [not fault for fault in faulty]


def test_a_plain_file_gives_its_language_and_every_entry_with_its_line():
    text = '\ufeff# intro\nl_french:\n trait_brave:0 "Brave"\n\n  trait_shy: "Shy" # note\r\n'

    assert fast_pass.localisation_entries(text) == ("french", ("trait_brave", "trait_shy"), (3, 5))


def test_the_sample_world_has_localisation_the_fast_pass_decides():
    files = [data for path, data in sample_world() if path[-1].endswith(".yml")]

    assert any(fast_pass.localisation_entries(data.decode("utf-8", "replace")) for data in files)
