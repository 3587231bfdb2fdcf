"""The leak gate's first look at a reply's text, in one pass of RE2 (google-re2) over its UTF-8 bytes.

The gate (`domain.leaks`) looks for candidates with a substring search per place and six backtracking
patterns, each a pass over the whole text: a tree of thousands of addresses paid them all, about 1 ms per
100 KB. The screen looks once, with one pattern: the same places (as written and as JSON escapes them) and
the gate's six patterns rewritten without lookaround, each matching wherever the gate's own matches and
sometimes where it does not (a letter outside ASCII counts here as a character that is not one of a
word, which the gate's lookbehinds may refuse). So a text the screen finds nothing in carries no
candidate, and is clean; a text where it finds one is handed to the gate, which decides as before. A
property test over generated text holds the screen to answering as the gate does.

The pattern reads bytes as Latin-1: any byte of a character outside ASCII (and of an unpaired surrogate,
encoded as it stands) is one character that is neither a word character nor whitespace in ASCII.
"""

import json
from typing import Final

import re2

from domain.leaks import SYSTEM_FOLDERS, LeakGate

_WORD: Final = "A-Za-z0-9_"
_HIGH: Final = r"\x80-\xff"
_STARTS: Final = rf"(?:^|[^{_WORD}])"
"""Where the gate's `(?<!\\w…)` lookbehinds start a word: the start, or any character not an ASCII one."""
_SHAPES: Final = (
    # /etc/... not after a word, a dot or a dash, then a separator, a quote, white space or the end
    rf"(?:^|[^{_WORD}.\-])/(?:{SYSTEM_FOLDERS})(?:[/\\\"'\s\x1c-\x1f{_HIGH}]|$)",
    rf"{_STARTS}[A-Za-z]:[\\/]",  # C:\ or C:/ starting a word
    rf"\\\\[{_WORD}.?$\-{_HIGH}]",  # \\server\share, \\?\C:
    rf"(?:^|[^{_WORD}:])//[{_WORD}{_HIGH}]",  # //server/share
    rf"{_STARTS}~[\\/]",  # ~/ starting a word
    rf"{_STARTS}[fF](?:[iI]|\xc4[\xb0\xb1])[lL][eE]:",  # file: (and the dotted and dotless capital i
    # and small i that Python's case folding lets stand for i)
)


class LeakScreen:
    """A gate's candidate search as one RE2 pass: `leaks_in_json` answers as the gate's does."""

    def __init__(self, gate: LeakGate) -> None:
        self._gate = gate
        places = (*gate.host_paths, *gate.common_paths)
        spelled = {form for place in places for form in (place, json.dumps(place, ensure_ascii=False)[1:-1])}
        literals = [re2.escape(form.encode("utf-8", "surrogatepass")).decode("latin-1") for form in spelled]
        options = re2.Options()
        options.log_errors = False  # RE2 writes its errors to stderr, which a stdio server keeps for its log
        options.encoding = re2.Options.Encoding.LATIN1
        options.never_capture = True
        self._screen = re2.compile("|".join([*sorted(literals), *_SHAPES]).encode("latin-1"), options)

    def candidate(self, text: str) -> bool:
        """Whether `text` may carry a host path (False: the gate would find no candidate in it)."""
        return self._screen.search(text.encode("utf-8", "surrogatepass")) is not None

    def leaks_in_json(self, text: str) -> bool:
        """Whether JSON envelope text carries a host path: the gate's answer, asked only of a candidate."""
        return self.candidate(text) and self._gate.leaks_in_json(text)
