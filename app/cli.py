"""The operator's command line: `ck3raven serve|codes`.

Each command imports only what it needs, so `ck3raven codes` never pays for the MCP stack and `serve`
reaches its first answer quickly.
"""

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from app.collection import resumed
from app.config import ConfigError, Settings, config_path, load
from domain.vocabulary import Mode, RootCategory
from ports.errors import PortError


def main(argv: Sequence[str] | None = None) -> int:
    """Run one operator command; the return value is the process exit status."""
    args = _parser().parse_args(argv)
    if args.command != "serve":  # serve resumes collection once its server is built
        resumed(started=False)
    handler = {
        "serve": _serve,
        "codes": _codes,
        "policy": _policy,
        "approvals": _approvals,
        "approve": _approve,
        "decline": _decline,
        "init": _init,
        "doctor": _doctor,
        "contracts": _contracts,
        "audit": _audit,
        "playsets": _playsets,
        "token": _token,
    }[args.command]
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
    serve.add_argument("--read-only", action="store_true", help="offer only tools that cannot change a file")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--port", type=int, help="port for --transport http (default: [http] port, 8765)")
    commands.add_parser("policy", help="print the capability matrix (who may mutate what, on what condition)")
    doctor = commands.add_parser(
        "doctor", help="check the config, state directory, git, server, and one call"
    )
    doctor.add_argument("--config", help="the config to look at")
    listed = commands.add_parser(
        "contracts", help="open and recent contracts, with targets, status and expiry"
    )
    listed.add_argument("--config", help="the config the server runs with")
    listed.add_argument("--all", action="store_true", help="every stored contract")
    listed.add_argument("--json", action="store_true", help="JSON instead of lines")
    trail = commands.add_parser("audit", help="the audit log: one row per tool call")
    trail.add_argument("--config", help="the config the server runs with")
    trail.add_argument("--contract", help="only rows of this contract")
    trail.add_argument("--since", help="only rows since WHEN (ISO 8601, or 30m, 12h, 7d)")
    trail.add_argument("--code", help="only codes matching PATTERN (e.g. 'EN-*')")
    trail.add_argument("--json", action="store_true", help="JSON instead of lines")
    trail.add_argument(
        "--verify", action="store_true", help="check the hash chain instead (exit 1 if broken)"
    )
    listing = commands.add_parser(
        "approvals", help="list the approval requests a running server is waiting on"
    )
    listing.add_argument("--config", help="the config the server runs with")
    for verb in ("approve", "decline"):
        decision = commands.add_parser(
            verb, help=f"{verb} a pending request (asks you to confirm on a terminal)"
        )
        decision.add_argument("id", nargs="?", help="the approval id (default: the only pending one)")
        decision.add_argument("--config", help="the config the server runs with")
    init = commands.add_parser("init", help="write a config from what is found here, or for the sample world")
    init.add_argument(
        "--sample", metavar="DIR", help="copy the sample world into DIR and write DIR/config.toml"
    )
    init.add_argument("--config", help="where to write (default: ~/.ck3raven/config.toml)")
    init.add_argument("--repo", help="a code repository folder to serve as ROOT_REPO")
    init.add_argument(
        "--mode", choices=[m.value for m in Mode], help="the mode the server starts in (ck3lens with a game)"
    )
    init.add_argument("--game", help="the game folder (…/Crusader Kings III/game), if not found")
    init.add_argument("--documents", help="the Paradox documents folder (…/Crusader Kings III), if not found")
    init.add_argument("--steam", help="the workshop folder (…/workshop/content/1158310), if not found")
    init.add_argument("--force", action="store_true", help="replace an existing config")
    playsets = commands.add_parser("playsets", help="the launcher's playsets, written as ck3raven playsets")
    playsets.add_argument(
        "action", choices=["import"], help="import: read launcher-v2.sqlite, write ck3raven playsets"
    )
    playsets.add_argument("--config", help="the config the server runs with")
    playsets.add_argument("--name", help="only the launcher playset of this name")
    token = commands.add_parser("token", help="per-client HTTP tokens: add NAME, list, revoke NAME")
    token.add_argument("action", choices=["add", "list", "revoke"])
    token.add_argument("name", nargs="?", help="the client's name (add, revoke)")
    token.add_argument("--config", help="the config the server runs with")
    codes = commands.add_parser("codes", help="print the reply-code registry")
    codes.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """The checked settings for a `serve` invocation (or any command that names a config)."""
    settings = load(config_path(args.config, os.environ), cwd=Path.cwd())
    if getattr(args, "mode", None):
        settings = settings.with_mode(Mode(args.mode))
    if getattr(args, "read_only", False):
        settings = settings.with_read_only()
    if getattr(args, "home", None):
        settings = settings.with_home(RootCategory(args.home))
    return settings


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = settings_from(args)
        settings.state_path(os.environ).expanduser()
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    except RuntimeError:  # Path.expanduser: no HOME and no password entry to stand in for it
        print(
            "ck3raven: HOME is not set: set it, or give --config and state_dir as full paths", file=sys.stderr
        )
        return 2
    from app.serving import serve

    return serve(args, settings, same_config=_own_config(args))


def _own_config(args: argparse.Namespace) -> bool:
    """Whether this server reads a config file other than the default one (`ck3raven approve` run bare
    would then read another): the approval hint then says to give the same `--config`, naming no path."""
    found = config_path(args.config, os.environ)
    default = config_path(None, {})
    return found is not None and (default is None or found.resolve() != default.resolve())


def _approvals(args: argparse.Namespace) -> int:
    from app import approval_command

    return approval_command.listing(args, settings_from)


def _approve(args: argparse.Namespace) -> int:
    from app import approval_command

    return approval_command.decide(args, settings_from, approve=True)


def _decline(args: argparse.Namespace) -> int:
    from app import approval_command

    return approval_command.decide(args, settings_from, approve=False)


def _init(args: argparse.Namespace) -> int:
    from app import setup

    after: list[str] = []
    try:
        if args.sample:
            config = setup.sample(Path(args.sample).expanduser().resolve())
        else:
            config, after = _init_detected(args)
    except (ConfigError, OSError) as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    print("\n".join([f"wrote {config}", f"serve it with: ck3raven serve --config {config}", *after]))
    return 0


GIVEN: Final = {"game": "ROOT_GAME", "documents": "ROOT_USER_DOCS", "steam": "ROOT_STEAM"}
"""init's folder options, and the root each names."""


def _given_roots(args: argparse.Namespace) -> dict[str, Path]:
    """The folders named on the command line (each must exist)."""
    roots: dict[str, Path] = {}
    for option, root in GIVEN.items():
        text = getattr(args, option)
        if text:
            folder = Path(text).expanduser().resolve()
            if not folder.is_dir():
                raise ConfigError(f"--{option} {folder}: not an existing folder")
            roots[root] = folder
    return roots


def _init_detected(args: argparse.Namespace) -> tuple[Path, list[str]]:
    """Write the config from what is found here; the lines to print after saying where it went."""
    import platform

    from app import setup
    from app.detection import detect, platform_name
    from app.mounts import read_mountinfo

    target = Path(args.config or "~/.ck3raven/config.toml").expanduser().resolve()
    if target.exists() and not args.force:
        raise ConfigError(f"{target} exists; pass --force to replace it")
    distro = os.environ.get("WSL_DISTRO_NAME")
    where = platform_name(sys.platform, platform.release(), distro=distro)
    found = detect(Path.home(), os.environ, where, wsl_conf=_text_of(Path("/etc/wsl.conf")))
    given = _given_roots(args)
    missing = [line for line in found.missing if not any(line.startswith(root) for root in given)]
    for line in (*found.found, *(f"not found: {line}" for line in missing)):
        print(line)
    if "ROOT_GAME" not in {**found.roots, **given}:
        looked = "; ".join(missing)
        raise ConfigError(f"no game folder found ({looked}); name it with --game (and --documents, --steam)")
    data = target.parent / "data"
    data.mkdir(parents=True, exist_ok=True)
    roots = {**found.roots, **given, "ROOT_CK3RAVEN_DATA": data}
    if args.repo:
        roots["ROOT_REPO"] = Path(args.repo).expanduser().resolve()
    state = Settings("init", {}, RootCategory.ROOT_REPO).state_path(os.environ)
    warning = setup.repository_warning(roots)
    warnings = ([warning] if warning is not None else []) + setup.case_warnings(roots)
    warnings += setup.placement_warnings(roots, state, read_mountinfo())
    for text in warnings:
        print(f"warning: {text}")
    mode = args.mode or Mode.CK3LENS.value
    setup.write_checked(target, setup.config_text(roots, state_dir=state, mode=mode, playset=None))
    active = _import_launcher(target)
    if active is not None:
        setup.write_checked(target, setup.config_text(roots, state_dir=state, mode=mode, playset=active))
    return target, [setup.windows_clients(_executable(), target, distro)] if where == "wsl" else []


def _import_launcher(config: Path) -> str | None:
    """Import the launcher's playsets for the config just written; the name of its active one, if any."""
    from app.playset_import import import_playsets

    settings = load(config, cwd=config.parent)
    if RootCategory.ROOT_USER_DOCS not in settings.roots:
        return None
    lines, _status, active = import_playsets(settings, None)
    for line in lines:
        print(line)
    return active


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _executable() -> Path:
    """This command's own executable, as a full path (what a client is to start)."""
    return Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else Path("ck3raven")


def _codes(args: argparse.Namespace) -> int:
    from app.law_tables import render_codes

    print(render_codes(args.format))
    return 0


def _policy(_: argparse.Namespace) -> int:
    from app.law_tables import render_policy

    print(render_policy())
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from app import reports

    found = config_path(args.config, os.environ)
    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"PROBLEM config {found or '(none found)'}: {exc}")
        return 1
    lines, status = reports.doctor(settings, found, os.environ)
    print("\n".join(lines))
    return status


def _contracts(args: argparse.Namespace) -> int:
    from app import reports

    try:
        settings = settings_from(args)
        print(reports.contracts(settings, everything=args.all, as_json=args.json))
    except (ConfigError, PortError) as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    return 0


def _token(args: argparse.Namespace) -> int:
    from app.token_command import run

    return run(args, settings_from)


def _playsets(args: argparse.Namespace) -> int:
    from app.playset_import import import_playsets

    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    lines, status, _active = import_playsets(settings, args.name)
    print("\n".join(lines), file=sys.stderr if status == 2 else sys.stdout)  # noqa: PLR2004 - exit 2: nothing read
    return status


def _audit(args: argparse.Namespace) -> int:
    from app import reports

    try:
        settings = settings_from(args)
        text, status, said = reports.audit(
            settings,
            contract=args.contract,
            since=args.since,
            code=args.code,
            as_json=args.json,
            verify=args.verify,
        )
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    except ValueError:
        print("ck3raven: --since takes an ISO 8601 time or a span such as 30m, 12h, 7d", file=sys.stderr)
        return 2
    refused = status == 2 and text.startswith("ck3raven:")  # noqa: PLR2004 - exit 2: nothing shown
    print(text, file=sys.stderr if refused else sys.stdout)
    for line in said:
        print(line, file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
