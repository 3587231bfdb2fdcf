"""The operator's command line: `ck3raven serve|codes`.

Each command imports only what it needs, so `ck3raven codes` never pays for the MCP stack and `serve`
reaches its first answer quickly.
"""

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from app.config import ConfigError, Settings, config_path, load
from domain.registry import REGISTRY
from domain.vocabulary import Mode, RootCategory


def main(argv: Sequence[str] | None = None) -> int:
    """Run one operator command; the return value is the process exit status."""
    args = _parser().parse_args(argv)
    handler = {"serve": _serve, "codes": _codes, "policy": _policy}[args.command]
    return handler(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ck3raven", description="A governed MCP server for file work.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument(
        "--config", help="a TOML config file (default: $CK3RAVEN_CONFIG, ~/.ck3raven/config.toml)"
    )
    serve.add_argument("--mode", choices=[m.value for m in Mode], help="initialise this mode at start")
    serve.add_argument("--home", choices=[r.value for r in RootCategory], help="the session home root")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--port", type=int, default=8765, help="port for --transport http (loopback only)")
    commands.add_parser("policy", help="print the capability matrix (who may mutate what, on what condition)")
    codes = commands.add_parser("codes", help="print the reply-code registry")
    codes.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """The checked settings for a `serve` invocation."""
    settings = load(config_path(args.config, os.environ), cwd=Path.cwd())
    if args.mode:
        settings = settings.with_mode(Mode(args.mode))
    if args.home:
        settings = settings.with_home(RootCategory(args.home))
    return settings


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    # FastMCP reads these at import: no banner, no network update check, plain stderr records.
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    from adapters.log_setup import configure_logging

    data_root = settings.data_root
    configure_logging(data_root / "logs" / "ck3raven.log" if data_root else None)
    from app.bootstrap import build

    try:
        server = build(settings)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    if args.transport == "http":
        server.run(transport="http", host="127.0.0.1", port=args.port, show_banner=False)
    else:
        server.run(transport="stdio", show_banner=False)
    return 0


def _codes(args: argparse.Namespace) -> int:
    print(render_codes(args.format))
    return 0


_TAILS = {"exact": "", "playset-local-mod": "/<local mod of the playset>/...", "below": "/..."}


def _policy(_: argparse.Namespace) -> int:
    print(render_policy())
    return 0


def render_policy() -> str:
    """The capability matrix as a table; anything not listed may not be mutated."""
    from domain.capabilities import MATRIX

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
        }
        for s in sorted(REGISTRY.values(), key=lambda spec: spec.code)
    ]
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "markdown":
        lines = [
            "# Reply codes",
            "",
            "Generated from the registry by `ck3raven codes --format markdown`; do not edit by hand.",
            "Agents branch on `reply_type` and `code`; the message is a convenience.",
            "",
            "| code | layer | area | type | message template |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| `{r['code']}` | {r['layer']} | {r['area']} | {r['type']} | {r['template']} |" for r in rows
        ]
        return "\n".join(lines)
    return "\n".join(f"{r['code']:<16} {r['template']}" for r in rows)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
