"""Reply code records and their validation: LAYER-AREA-TYPE-NNN, closed sets, legal types, templates.

A `CodeSpec` is one row of the registry. It is checked at birth: the code is well formed, names members of
the closed sets, its type is one its layer may emit, and every placeholder of its template is a documented
data field.
"""

import re
from collections.abc import Iterable, Mapping
from string import Formatter

from attrs import field, frozen

from domain.replies.shapes import FIELDS, Shape, data_schema
from domain.vocabulary import LAYER_TYPES, Area, Layer, ReplyType

CODE_PATTERN = re.compile(r"(?P<layer>[A-Z]+)-(?P<area>[A-Z]+)-(?P<type>[SIDE])-(?P<number>\d{3})")


def placeholders(template: str) -> frozenset[str]:
    """The field names a message template refers to."""
    return frozenset(name for _, name, _, _ in Formatter().parse(template) if name)


def _check_code(_: object, __: object, code: str) -> None:
    match = CODE_PATTERN.fullmatch(code)
    if match is None:
        raise ValueError(f"{code!r} is not LAYER-AREA-TYPE-NNN")
    layer, area, kind = Layer(match["layer"]), Area(match["area"]), ReplyType(match["type"])
    if match["number"] == "000":
        raise ValueError(f"{code}: numbers run from 001 to 999")
    if kind not in LAYER_TYPES[layer]:
        raise ValueError(f"{code}: layer {layer.value} may not emit {kind.value}")
    del area  # parsed only to prove it is a member of the closed set


def _field_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@frozen
class CodeSpec:
    """One registered code: its identity, its message template and the data fields it always carries."""

    code: str = field(validator=_check_code)
    template: str
    fields: frozenset[str] = field(converter=_field_set, factory=frozenset)
    opaque: frozenset[str] = field(converter=_field_set, factory=frozenset, kw_only=True)
    """Fields that carry the user's own file content: the leak gate looks there for root paths only."""
    optional: frozenset[str] = field(converter=_field_set, factory=frozenset, kw_only=True)
    """Fields a reply of this code may carry, or leave out; no reply carries a field not declared."""
    shapes: Mapping[str, Shape] = field(factory=dict, kw_only=True, eq=False)
    """This code's own shape for a field whose content differs from what `FIELDS` says the name holds."""

    def __attrs_post_init__(self) -> None:
        missing = placeholders(self.template) - self.fields
        if missing:
            raise ValueError(f"{self.code}: template refers to undocumented fields {sorted(missing)}")
        if not self.opaque <= self.fields | self.optional:
            raise ValueError(f"{self.code}: opaque fields must be documented fields")
        if self.optional & self.fields:
            raise ValueError(f"{self.code}: a field is either always there or optional, not both")
        unshaped = self.declared - FIELDS.keys() - self.shapes.keys()
        if unshaped or not self.shapes.keys() <= self.declared:
            raise ValueError(f"{self.code}: every declared field needs a shape, and only those")

    @property
    def declared(self) -> frozenset[str]:
        """Every field a reply of this code may carry."""
        return self.fields | self.optional

    def shape(self, name: str) -> Shape:
        """What field `name` holds in this code's data."""
        return self.shapes.get(name) or FIELDS[name]

    def data_schema(self) -> dict[str, object]:
        """The JSON Schema of this code's `data`."""
        return data_schema(self.fields, self.optional, self.shapes)

    @property
    def layer(self) -> Layer:
        return Layer(self.code.split("-")[0])

    @property
    def area(self) -> Area:
        return Area(self.code.split("-")[1])

    @property
    def reply_type(self) -> ReplyType:
        return ReplyType(self.code.split("-")[2])


def index(specs: tuple[CodeSpec, ...]) -> dict[str, CodeSpec]:
    """Map codes to specs, refusing a code registered twice."""
    table: dict[str, CodeSpec] = {}
    for spec in specs:
        if spec.code in table:
            raise ValueError(f"{spec.code} is registered twice")
        table[spec.code] = spec
    return table
