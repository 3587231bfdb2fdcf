"""Each command is declared once in the domain: every request class has one handler, found by its type,
and no handler answers two request classes; every tool command's row builds one of those requests."""

import sys

from domain.use_cases import request as requests
from domain.use_cases.commands import COMMANDS, HANDLERS


def _subclasses(kind: type) -> set[type]:
    """The subclasses of `kind` its modules define (attrs replaces a slotted class by a new one; the
    first may linger until collected)."""
    found = set()
    for sub in kind.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return {sub for sub in found if getattr(sys.modules[sub.__module__], sub.__qualname__, None) is sub}


def test_every_request_class_has_exactly_one_handler_and_no_handler_serves_two():
    declared = _subclasses(requests.Request)

    assert set(HANDLERS) == declared
    assert len(set(HANDLERS.values())) == len(HANDLERS)


def test_every_request_class_is_the_request_of_exactly_one_command():
    kinds = [row.kind for rows in COMMANDS.values() for row in rows.values()]

    assert len(kinds) == len(set(kinds)) == len(_subclasses(requests.Request))


def test_an_argument_is_declared_once_with_the_field_that_holds_it_unless_the_request_builds_itself():
    from attrs import fields_dict

    from domain.use_cases.arguments import DECLARES

    twice = [
        f"{kind.__name__}.{arg.name}"
        for kind in _subclasses(requests.Request)
        if "build" not in vars(kind)
        for arg in kind.ARGS
        if fields_dict(kind)[arg.name].metadata.get(DECLARES) is not arg
    ]

    assert twice == []
