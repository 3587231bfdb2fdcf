"""Which handler answers each tool command, which arguments it takes, and how its typed request is built.

The MCP adapter has already checked each argument's type against the tool's schema; this table adds
what the schema cannot say: an argument a command does not take is Invalid (never silently ignored), and
one it needs but lacks is Invalid too. The domain never sees a command string.
"""

from collections.abc import Callable, Mapping
from typing import Any, Final

from attrs import frozen

from domain.ck3 import overrides as overrides_view
from domain.contracts.lifecycle import OpenRequest
from domain.contracts.records import DEFAULT_TTL_MINUTES
from domain.edits import Replacement
from domain.replies.builder import Reply, ReplyBuilder
from domain.use_cases import (
    content_queries,
    contract_work,
    file_access,
    mod_override,
    mode_switch,
    navigation,
    playset_choice,
    repository,
    search,
    token_work,
)
from domain.use_cases.request import Request
from domain.vocabulary import Mode
from ports.contracts import TargetRecord

Args = Mapping[str, Any]
"""A call's arguments that were given (not None), already type-checked against the tool's schema."""


@frozen
class Route:
    """One command: the arguments it takes, those it requires, and how to build its request (the core
    finds the request's handler by its type: domain.use_cases.handlers)."""

    build: Callable[[Args], Request | Reply]
    takes: frozenset[str] = frozenset()
    requires: frozenset[str] = frozenset()
    relative: frozenset[str] = frozenset()
    """Arguments that are never absolute (a game-relative path): one starting like a host path is Invalid."""

    def request(self, command: str, args: Args) -> Request | Reply:
        """The typed request for `args`, or an Invalid reply naming every argument out of place."""
        problems = [
            {"field": name, "problem": f"not taken by the {command} command"}
            for name in sorted(args.keys() - self.takes)
        ] + [
            {"field": name, "problem": "required by this command"}
            for name in sorted(self.requires - args.keys())
        ]
        if problems:
            return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": problems})
        return self.build(args)


def _route(
    build: Callable[[Args], Request | Reply],
    *takes: str,
    requires: tuple[str, ...] = (),
    relative: tuple[str, ...] = (),
) -> Route:
    taken = frozenset(takes) | frozenset(requires)
    return Route(build, taken, frozenset(requires), frozenset(relative))


def _open(args: Args) -> Request:
    targets = tuple(TargetRecord(t["path"], t["edit_kind"]) for t in args.get("targets", ()))
    declared = OpenRequest(
        args.get("root_category", ""),
        args.get("intent", ""),
        tuple(args.get("operations", ())),
        targets,
        args.get("work_declaration", ""),
        "agent",
        args.get("ttl_minutes", DEFAULT_TTL_MINUTES),
    )
    return contract_work.Open(declared)


def _edit(args: Args) -> Request | Reply:
    """One replacement (`old_string`, `new_string`) or several (`edits`), never both."""
    single = "old_string" in args or "new_string" in args
    if single == ("edits" in args) or (single and not {"old_string", "new_string"} <= args.keys()):
        problem = "give old_string and new_string, or edits, not both"
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "edits", "problem": problem}]})
    pairs = (
        [(args["old_string"], args["new_string"])]
        if single
        else [(e["old_string"], e["new_string"]) for e in args["edits"]]
    )
    return file_access.Edit(
        args.get("path"),
        tuple(Replacement(old, new) for old, new in pairs),
        args.get("expected_sha256"),
        args.get("dry_run", False),
    )


DIR: Final = {
    "pwd": _route(lambda _: navigation.Pwd()),
    "list": _route(
        lambda a: navigation.ListFolder(
            a.get("path"),
            a.get("glob"),
            a.get("cursor"),
            a.get("limit"),
            a.get("include_ignored", False),
        ),
        "path",
        "glob",
        "cursor",
        "limit",
        "include_ignored",
    ),
    "tree": _route(
        lambda a: navigation.Tree(
            a.get("path"),
            a.get("depth", 3),
            a.get("progress"),
            a.get("include_ignored", False),
            a.get("limit"),
            a.get("cursor"),
        ),
        "path",
        "depth",
        "progress",
        "include_ignored",
        "limit",
        "cursor",
    ),
}
READ: Final = {
    "read": _route(
        lambda a: file_access.Read(
            a.get("path"), a.get("offset"), a.get("limit"), a.get("head"), a.get("tail")
        ),
        "path",
        "offset",
        "limit",
        "head",
        "tail",
    ),
}
FILE: Final = {
    "write": _route(
        lambda a: file_access.Write(
            a.get("path"),
            a["content"],
            a.get("expected_sha256"),
            a.get("create_only", False),
            a.get("dry_run", False),
        ),
        "path",
        "expected_sha256",
        "create_only",
        "dry_run",
        requires=("content",),
    ),
    "edit": _route(
        _edit,
        "path",
        "old_string",
        "new_string",
        "edits",
        "expected_sha256",
        "dry_run",
    ),
    "override": _route(
        lambda a: mod_override.Override(a.get("path"), a["name"]),
        "path",
        requires=("name",),
    ),
    "delete": _route(
        lambda a: file_access.Delete(a.get("path"), a.get("expected_sha256")),
        "path",
        "expected_sha256",
    ),
}
_SCOPE = ("path", "include_ignored", "ignore_case", "limit")
SEARCH: Final = {
    "names": _route(
        lambda a: search.SearchNames(
            a["glob"],
            a.get("path"),
            a.get("include_ignored", False),
            a.get("ignore_case", False),
            a.get("limit"),
            a.get("cursor"),
        ),
        *_SCOPE,
        "cursor",
        requires=("glob",),
    ),
    "contents": _route(
        lambda a: search.SearchContents(
            a["pattern"],
            a.get("regex", False),
            a.get("ignore_case", False),
            a.get("glob"),
            a.get("path"),
            a.get("include_ignored", False),
            a.get("max_files", 20_000),
            a.get("limit"),
            a.get("max_bytes", 256 * 1024 * 1024),
            a.get("max_seconds", search.SECONDS),
            a.get("cursor"),
        ),
        *_SCOPE,
        "cursor",
        "regex",
        "glob",
        "max_files",
        "max_bytes",
        "max_seconds",
        requires=("pattern",),
    ),
}
MODE: Final = {
    "status": _route(lambda _: mode_switch.ModeStatus()),
    "init": _route(lambda a: mode_switch.ModeInit(Mode(a["mode"])), requires=("mode",)),
    "cd": _route(lambda a: navigation.Cd(a.get("root_category")), "root_category"),
}
PLAYSET: Final = {
    "list": _route(lambda _: playset_choice.ListPlaysets()),
    "show": _route(lambda a: playset_choice.ShowPlayset(a.get("name")), "name"),
    "switch": _route(lambda a: playset_choice.SwitchPlayset(a["name"]), requires=("name",)),
    "which": _route(
        lambda a: playset_choice.Which(a["path"]),
        requires=("path",),
        relative=("path",),
    ),
    "overrides": _route(
        lambda a: playset_choice.Overrides(
            a.get("name"), a.get("path"), a.get("cursor"), a.get("limit", overrides_view.PAGE)
        ),
        "name",
        "path",
        "cursor",
        "limit",
        relative=("path",),
    ),
    "index": _route(lambda _: content_queries.Status()),
    "define": _route(
        lambda a: content_queries.Define(a["key"], a.get("kind")),
        "kind",
        requires=("key",),
    ),
    "conflicts": _route(
        lambda a: content_queries.Conflicts(a.get("kind"), a.get("cursor"), a.get("limit")),
        "kind",
        "cursor",
        "limit",
    ),
    "mentions": _route(
        lambda a: content_queries.Mentions(a["key"], a.get("cursor"), a.get("limit")),
        "cursor",
        "limit",
        requires=("key",),
    ),
    "missing": _route(
        lambda a: content_queries.Missing(a["language"], "english", a.get("cursor"), a.get("limit")),
        "cursor",
        "limit",
        requires=("language",),
    ),
}
CONTRACT: Final = {
    "open": _route(
        _open,
        "root_category",
        "intent",
        "operations",
        "targets",
        "work_declaration",
        "ttl_minutes",
    ),
    "close": _route(
        lambda a: contract_work.Close(a.get("contract_id"), a.get("cursor")),
        "contract_id",
        "cursor",
    ),
    "cancel": _route(lambda a: contract_work.Cancel(a.get("contract_id")), "contract_id"),
    "renew": _route(
        lambda a: contract_work.Renew(a.get("contract_id"), a.get("ttl_minutes", DEFAULT_TTL_MINUTES)),
        "contract_id",
        "ttl_minutes",
    ),
    "status": _route(lambda _: contract_work.Status()),
    "list": _route(lambda _: contract_work.ListContracts()),
    "revert": _route(
        lambda a: contract_work.Revert(a.get("contract_id"), a.get("dry_run", False)),
        "contract_id",
        "dry_run",
    ),
    "stash_carry_over": _route(
        lambda a: contract_work.StashCarryOver(a.get("root_category", "ROOT_REPO"), a.get("contract_id")),
        "root_category",
        "contract_id",
    ),
}
GIT: Final = {
    "status": _route(
        lambda a: repository.GitStatus(a.get("path", "ROOT_REPO"), a.get("cursor")), "path", "cursor"
    ),
    "diff": _route(lambda a: repository.GitDiff(a.get("path")), "path"),
    "log": _route(
        lambda a: repository.GitLog(a.get("path", "ROOT_REPO"), a.get("limit")),
        "path",
        "limit",
    ),
}
TOKEN: Final = {
    "nst": _route(
        lambda a: token_work.DeclareNst(
            tuple((s["name"], s.get("path")) for s in a["symbols"]), a["reason"], a.get("contract_id")
        ),
        "contract_id",
        requires=("symbols", "reason"),
    ),
    "lxe": _route(
        lambda a: token_work.ProposeLxe(
            tuple(a["rules"]), tuple(a["paths"]), a["max_violations"], a["reason"], a.get("contract_id")
        ),
        "contract_id",
        requires=("rules", "paths", "max_violations", "reason"),
    ),
    "removal": _route(
        lambda a: token_work.DeclareRemoval(
            tuple((s["name"], s.get("kind"), s.get("path")) for s in a["symbols"]),
            a["reason"],
            a.get("contract_id"),
        ),
        "contract_id",
        requires=("symbols", "reason"),
    ),
    "list": _route(lambda a: token_work.ListTokens(a.get("contract_id")), "contract_id"),
}
COMMIT: Final = {
    "add": _route(lambda a: repository.GitAdd(tuple(a.get("paths", ()))), "paths"),
    "commit": _route(
        lambda a: repository.GitCommit(a.get("message", ""), a.get("path", "ROOT_REPO")),
        "message",
        "path",
    ),
}
ROUTES: Final[Mapping[str, Mapping[str, Route]]] = {
    "ck3_dir": DIR,
    "ck3_read": READ,
    "ck3_search": SEARCH,
    "ck3_git": GIT,
    "ck3_mode": MODE,
    "ck3_playset": PLAYSET,
    "ck3_file": FILE,
    "ck3_commit": COMMIT,
    "ck3_contract": CONTRACT,
    "ck3_token": TOKEN,
}
"""Every tool's commands."""
