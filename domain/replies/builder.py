"""The Reply and its only constructor, the ReplyBuilder (seed 000 §7, §9, §10; SPEC §6).

A Reply is frozen, its data deeply immutable, its code registered and legal for its type and layer.
Nothing but a ReplyBuilder can make one, and a builder that has made a terminal reply (I, D or E) refuses
every further call.
"""

from collections.abc import Mapping
from typing import Final, final

from attrs import field, frozen

from domain.replies.codes import CodeSpec, placeholders
from domain.replies.frozen import FrozenMap, freeze_map, thaw
from domain.replies.registry import REGISTRY
from domain.replies.shapes import fits
from domain.vocabulary import ReplyType

_MINT: Final = object()


def _minted(_: object, __: object, value: object) -> None:
    if value is not _MINT:
        raise TypeError("Replies are made only by ReplyBuilder")


@frozen
class Reply:
    """One semantic outcome: a type, a registered code and immutable structured data."""

    reply_type: ReplyType
    code: str
    data: FrozenMap
    _mint: object = field(repr=False, eq=False, validator=_minted, alias="_mint")

    @property
    def spec(self) -> CodeSpec:
        return REGISTRY[self.code]

    @property
    def terminal(self) -> bool:
        return self.reply_type is not ReplyType.SUCCESS

    def message(self) -> str:
        """A human convenience rendered from the registry template; never authoritative."""
        return render(self.spec.template, {name: thaw(value) for name, value in self.data.items()})


def render(template: str, values: Mapping[str, object]) -> str:
    """A message template filled with `values` (a field without one shows as none)."""
    return template.format_map({name: _Shown(values.get(name)) for name in placeholders(template)})


class _Shown:
    """A value as a message shows it; `{count:entry|entries}` shows a count with its noun in number,
    `{count:~it|them}` the word alone, in number (a count said once is not said again: "no file defines
    them any more", never "defines 2 them"); `{value:?text}` shows `text` (each `#` in it the value) when
    the value is true or non-zero, else nothing."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        if spec.startswith("?"):
            return spec[1:].replace("#", _render(self.value)) if self.value else ""
        if "|" in spec:
            one, many = spec.removeprefix("~").split("|", maxsplit=1)
            word = one if self.value == 1 else many
            return word if spec.startswith("~") else f"{self.value} {word}"
        return _render(self.value)

    def __str__(self) -> str:
        return _render(self.value)


def _render(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_render(v) for v in value)
    if value is None:
        return "none"
    return str(value)


class TerminalReplyError(RuntimeError):
    """A builder was used after it produced a terminal reply: a control-flow bug."""


@final
class ReplyBuilder:
    """The only constructor of Replies. One per decision; frozen after a terminal reply."""

    __slots__ = ("_frozen",)

    def __init__(self) -> None:
        self._frozen = False

    def success(self, code: str, data: Mapping[str, object] | None = None) -> Reply:
        return self._build(ReplyType.SUCCESS, code, data)

    def invalid(self, code: str, data: Mapping[str, object] | None = None) -> Reply:
        return self._build(ReplyType.INVALID, code, data)

    def denied(self, code: str, data: Mapping[str, object] | None = None) -> Reply:
        return self._build(ReplyType.DENIED, code, data)

    def error(self, code: str, data: Mapping[str, object] | None = None) -> Reply:
        return self._build(ReplyType.ERROR, code, data)

    def _build(self, kind: ReplyType, code: str, data: Mapping[str, object] | None) -> Reply:
        if self._frozen:
            raise TerminalReplyError("this builder already produced a terminal reply")
        spec = REGISTRY.get(code)
        if spec is None:
            raise ValueError(f"{code!r} is not a registered code")
        if spec.reply_type is not kind:
            raise ValueError(f"{code} is a {spec.reply_type.name} code, not {kind.name}")
        frozen_data = freeze_map(data)
        missing = spec.fields - frozen_data.keys()
        if missing:
            raise ValueError(f"{code} needs data fields {sorted(missing)}")
        undeclared = frozen_data.keys() - spec.declared
        if undeclared:
            raise ValueError(f"{code} declares no data fields {sorted(undeclared)}")
        misshapen = [name for name, value in frozen_data.items() if not fits(value, spec.shape(name))]
        if misshapen:
            raise ValueError(f"{code}: data fields {sorted(misshapen)} are not what the registry declares")
        reply = Reply(kind, code, frozen_data, _mint=_MINT)
        if reply.terminal:
            self._frozen = True
        return reply
