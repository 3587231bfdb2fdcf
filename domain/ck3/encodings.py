"""What the game and ck3-tiger expect of each kind of text file the game reads: its encoding, its byte-order
mark and its line endings, as one table (`TABLE`). Writes apply it (domain.ck3.game_files) and a check of
files may hold them to it; each row names its sources.

Every kind is UTF-8 (ck3raven writes nothing else) and takes LF or CRLF line endings alike: ck3-tiger's
script lexer counts `\\r` as whitespace (src/parse/pdxfile/lexer.rs) and its localisation parser skips it
at a line's end (src/parse/localization.rs). A kind's BOM is REQUIRED (added where missing) or OPTIONAL
(a file keeps what it has; a new one is written as given).
"""

from typing import Final

from attrs import frozen

REQUIRED: Final = "required"
OPTIONAL: Final = "optional"
UTF8: Final = "utf-8"
LF_OR_CRLF: Final = "lf or crlf (a file keeps its own; a new one follows its folder's files, else lf)"


@frozen
class Expectation:
    """One kind of file: where the game reads it (top folders of the game-relative path, or the whole
    path), its name's ending, and its encoding, BOM and line endings, with the sources for them."""

    kind: str
    folders: tuple[str, ...]
    suffix: str
    encoding: str
    bom: str
    line_endings: str
    sources: tuple[str, ...]

    def covers(self, path: tuple[str, ...]) -> bool:
        """Whether the file at game-relative `path` (case-folded) is of this kind."""
        if not path or not path[-1].endswith(self.suffix):
            return False
        return path[0] in self.folders if len(path) > 1 else "" in self.folders


SCRIPT: Final = Expectation(
    "script",
    ("common", "events", "history"),
    ".txt",
    UTF8,
    REQUIRED,
    LF_OR_CRLF,
    (
        # PdxFile::read warns "file must start with a UTF-8 BOM"; ItemLoader::encoding gives CK3's
        # ordinary loaders (common/**) PdxEncoding::Utf8Bom.
        "ck3-tiger src/pdxfile.rs (PdxFile::read), src/item.rs (ItemLoader::encoding)",
        # events/ and history/characters are read with PdxFile::read; history/titles and
        # history/provinces with read_detect_encoding: UTF-8 only after a BOM, else Windows-1252.
        "ck3-tiger src/data/events.rs, src/ck3/data/characters.rs, src/ck3/data/title_history.rs",
    ),
)
GUI: Final = Expectation(
    "gui",
    ("gui",),
    ".gui",
    UTF8,
    OPTIONAL,
    LF_OR_CRLF,
    ("ck3-tiger src/data/gui.rs (Gui::load_file reads .gui with PdxFile::read_optional_bom)",),
)
LOCALISATION: Final = Expectation(
    "localisation",
    ("localization",),
    ".yml",
    UTF8,
    REQUIRED,
    LF_OR_CRLF,
    (
        # parse_loca warns "Expected UTF-8 BOM encoding" for a file without one.
        "ck3-tiger src/parse/localization.rs",
        "CK3 wiki, Modding (text editors): 'UTF-8-BOM encoding needed for localization files'",
    ),
)
DESCRIPTOR: Final = Expectation(
    "descriptor",
    ("",),
    "descriptor.mod",
    UTF8,
    OPTIONAL,
    LF_OR_CRLF,
    (
        # ModFile::read uses PdxFile::read_optional_bom (commit a8f3b97b, "allow .mod files to have a BOM").
        "ck3-tiger src/modfile.rs (ModFile::read)",
        # Another Jomini game's launcher refuses a BOM there, so none is ever added.
        "HOI4 wiki, Mod structure: descriptor.mod 'must NOT be saved in UTF-8 BOM format'",
    ),
)
TABLE: Final = (SCRIPT, GUI, LOCALISATION, DESCRIPTOR)


def expectation(path: tuple[str, ...]) -> Expectation | None:
    """The kind of the file at game-relative `path` (in any case, as the game reads folders), if the
    table has it."""
    folded = tuple(part.casefold() for part in path)
    return next((row for row in TABLE if row.covers(folded)), None)
