"""The law's tables for the operator and the docs: the reply-code registry (`ck3raven codes`, and
docs/reply-codes.md) and the capability matrix (`ck3raven policy`), rendered from the data they live in."""

import json
from typing import Any

from domain.policy.capabilities import MATRIX
from domain.replies.registry import REGISTRY

_TAILS = {"exact": "", "playset-local-mod": "/<local mod of the playset>/...", "below": "/..."}


def render_policy() -> str:
    """The capability matrix as a table; anything not listed may not be mutated."""

    header = f"{'mode':<13} {'target':<52} {'WRITE':<24} {'DELETE':<9} rule"
    lines = [header, "-" * len(header)]
    for row in MATRIX:
        tail = _TAILS[row.scope.value] if row.prefix else _TAILS[row.scope.value].lstrip("/")
        target = f"{row.root.value}:/{'/'.join(row.prefix)}{tail}"
        write = row.write.value if row.write else "-"
        delete = row.delete.value if row.delete else "-"
        lines.append(f"{row.mode.value:<13} {target:<52} {write:<24} {delete:<9} {row.rule}")
    lines.append(
        "Not listed (ROOT_GAME, ROOT_STEAM, state/, roots themselves, ...): never. Reads follow visibility."
    )
    return "\n".join(lines)


def render_codes(fmt: str) -> str:
    """The registry as a table, JSON list or Markdown document."""
    rows = [
        {
            "code": s.code,
            "layer": s.layer.value,
            "area": s.area.value,
            "type": s.reply_type.value,
            "template": s.template,
            "data": s.data_schema(),
        }
        for s in sorted(REGISTRY.values(), key=lambda spec: spec.code)
    ]
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "markdown":
        from adapters.output_schemas import NEVER_SENT  # noqa: PLC0415 - pydantic, for this format only

        lines = [
            "# Reply codes",
            "",
            "Generated from the registry by `ck3raven codes --format markdown`; do not edit by hand.",
            "Agents branch on `reply_type` and `code`; the message is a convenience.",
            "",
            "`data` names each field and what it holds; `?` marks a field a reply may leave out.",
            "Every reply's data is held to this when it is built; a tool's output schema names its codes.",
            "",
            "No tool answers with these codes, the core's own decisions:",
            "",
            *(f"- `{code}`: {why}." for code, why in NEVER_SENT.items()),
            "",
            "| code | layer | area | type | message template | data |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{r['code']}` | {r['layer']} | {r['area']} | {r['type']} | {r['template']} | "
            f"{_data_brief(REGISTRY[str(r['code'])].data_schema())} |"
            for r in rows
        ]
        return "\n".join(lines)
    return "\n".join(f"{r['code']:<16} {r['template']}" for r in rows)


def _data_brief(schema: dict[str, Any]) -> str:
    """A data schema in a few words: `address: string, index?: integer`."""
    required = set(schema["required"])
    return ", ".join(
        f"{name}{'' if name in required else '?'}: {_kind(shape)}"
        for name, shape in schema["properties"].items()
    )


def _kind(shape: dict[str, Any]) -> str:
    if "anyOf" in shape:
        return " or ".join(_kind(option) for option in shape["anyOf"])
    if shape.get("type") == "array":
        return f"list of {_kind(shape['items'])}"
    return str(shape["type"])
