"""Every message template of the registry says a count once: a plural form shows the count with its noun
(`{count:file|files}`: "2 files"), and a second form of the same count shows the word alone
(`{count:~it|them}`), so no message reads "defines 1 it" or "347 keys ... 347 have"."""

import re
from string import Formatter

import pytest

from domain.replies.builder import render
from domain.replies.registry import REGISTRY

PLURAL = {
    code: sorted(
        {name for _, name, spec, _ in Formatter().parse(s.template) if name and spec and "|" in spec}
    )
    for code, s in REGISTRY.items()
}
CASES = [(code, name) for code, names in sorted(PLURAL.items()) for name in names]


def rendered(code: str, counted: str, value: int) -> str:
    """The message of `code`: `counted` at `value`, every other count at 7, every other field a word."""
    template = REGISTRY[code].template
    values: dict[str, object] = {
        name: 7 if name in PLURAL[code] else "word" for _, name, _, _ in Formatter().parse(template) if name
    }
    return render(template, values | {counted: value})


@pytest.mark.parametrize(("code", "counted"), CASES)
@pytest.mark.parametrize("value", [1, 2])
def test_a_count_is_said_once_and_its_words_agree_with_it(code: str, counted: str, value: int):
    message = rendered(code, counted, value)
    forms = [
        spec.removeprefix("~").split("|")
        for _, name, spec, _ in Formatter().parse(REGISTRY[code].template)
        if name == counted and spec and "|" in spec
    ]

    assert len(re.findall(rf"(?<![\w.]){value}(?![\w.])", message)) == 1, message
    for one, many in forms:
        assert (one if value == 1 else many) in message


def test_the_registry_has_plural_forms_to_check():
    assert len(CASES) > 30
