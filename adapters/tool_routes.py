"""Which handler answers each tool command, which arguments it takes, and how its typed request is built.

The MCP adapter has already checked each argument's type against the tool's schema; this table adds
what the schema cannot say: an argument a command does not take is Invalid (never silently ignored), and
one it needs but lacks is Invalid too. What a command takes and needs is what its request class declares
(`ARGS`, domain.use_cases.arguments). The domain never sees a command string.
"""

from collections.abc import Callable, Mapping
from typing import Any, Final

from attrs import frozen

from domain.ck3 import key_queries
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
    kind: type[Request]
    """The request's type: the arguments it declares are the command's (domain.use_cases.arguments)."""
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
    kind: type[Request],
    build: Callable[[Args], Request | Reply],
    *inner: str,
    relative: tuple[str, ...] = (),
) -> Route:
    """The route of the command whose request is `kind`: it takes the arguments `kind` declares (and the
    `inner` ones the adapter itself passes, never listed to clients)."""
    taken = frozenset(arg.name for arg in kind.ARGS) | frozenset(inner)
    required = frozenset(arg.name for arg in kind.ARGS if arg.required)
    return Route(build, kind, taken, required, frozenset(relative))


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
    "pwd": _route(navigation.Pwd, lambda _: navigation.Pwd()),
    "list": _route(
        navigation.ListFolder,
        lambda a: navigation.ListFolder(
            a.get("path"),
            a.get("glob"),
            a.get("cursor"),
            a.get("limit"),
            a.get("include_ignored", False),
        ),
    ),
    "tree": _route(
        navigation.Tree,
        lambda a: navigation.Tree(
            a.get("path"),
            a.get("depth", 3),
            a.get("progress"),
            a.get("include_ignored", False),
            a.get("limit"),
        ),
        "progress",
    ),
}
READ: Final = {
    "read": _route(
        file_access.Read,
        lambda a: file_access.Read(
            a.get("path"), a.get("offset"), a.get("limit"), a.get("head"), a.get("tail")
        ),
    ),
}
FILE: Final = {
    "write": _route(
        file_access.Write,
        lambda a: file_access.Write(
            a.get("path"),
            a["content"],
            a.get("expected_sha256"),
            a.get("create_only", False),
            a.get("dry_run", False),
        ),
    ),
    "edit": _route(
        file_access.Edit,
        _edit,
    ),
    "delete": _route(
        file_access.Delete,
        lambda a: file_access.Delete(a.get("path"), a.get("expected_sha256")),
    ),
    "override": _route(
        mod_override.Override,
        lambda a: mod_override.Override(a.get("path"), a["name"]),
    ),
}
_SCOPE = ("path", "include_ignored", "ignore_case", "limit")
SEARCH: Final = {
    "names": _route(
        search.SearchNames,
        lambda a: search.SearchNames(
            a["glob"],
            a.get("path"),
            a.get("include_ignored", False),
            a.get("ignore_case", False),
            a.get("limit"),
        ),
    ),
    "contents": _route(
        search.SearchContents,
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
        ),
    ),
}
MODE: Final = {
    "status": _route(mode_switch.ModeStatus, lambda _: mode_switch.ModeStatus()),
    "init": _route(mode_switch.ModeInit, lambda a: mode_switch.ModeInit(Mode(a["mode"]))),
    "cd": _route(navigation.Cd, lambda a: navigation.Cd(a.get("root_category"))),
}
PLAYSET: Final = {
    "list": _route(playset_choice.ListPlaysets, lambda _: playset_choice.ListPlaysets()),
    "show": _route(playset_choice.ShowPlayset, lambda a: playset_choice.ShowPlayset(a.get("name"))),
    "switch": _route(playset_choice.SwitchPlayset, lambda a: playset_choice.SwitchPlayset(a["name"])),
    "which": _route(
        playset_choice.Which,
        lambda a: playset_choice.Which(a["path"]),
        relative=("path",),
    ),
    "overrides": _route(
        playset_choice.Overrides,
        lambda a: playset_choice.Overrides(
            a.get("name"), a.get("path"), a.get("cursor"), a.get("limit", overrides_view.PAGE)
        ),
        relative=("path",),
    ),
    "define": _route(
        content_queries.Define,
        lambda a: content_queries.Define(a["key"], a.get("kind")),
    ),
    "conflicts": _route(
        content_queries.Conflicts,
        lambda a: content_queries.Conflicts(a.get("kind"), a.get("cursor"), a.get("limit", key_queries.PAGE)),
    ),
    "mentions": _route(
        content_queries.Mentions,
        lambda a: content_queries.Mentions(a["key"], a.get("cursor"), a.get("limit", key_queries.PAGE)),
    ),
    "missing": _route(
        content_queries.Missing,
        lambda a: content_queries.Missing(
            a["language"], "english", a.get("cursor"), a.get("limit", key_queries.PAGE)
        ),
    ),
    "index": _route(content_queries.Status, lambda _: content_queries.Status()),
}
CONTRACT: Final = {
    "open": _route(
        contract_work.Open,
        _open,
    ),
    "close": _route(
        contract_work.Close,
        lambda a: contract_work.Close(a.get("contract_id"), a.get("cursor")),
    ),
    "cancel": _route(contract_work.Cancel, lambda a: contract_work.Cancel(a.get("contract_id"))),
    "renew": _route(
        contract_work.Renew,
        lambda a: contract_work.Renew(a.get("contract_id"), a.get("ttl_minutes", DEFAULT_TTL_MINUTES)),
    ),
    "status": _route(contract_work.Status, lambda _: contract_work.Status()),
    "list": _route(contract_work.ListContracts, lambda _: contract_work.ListContracts()),
    "stash_carry_over": _route(
        contract_work.StashCarryOver,
        lambda a: contract_work.StashCarryOver(a.get("root_category", "ROOT_REPO"), a.get("contract_id")),
    ),
    "revert": _route(
        contract_work.Revert,
        lambda a: contract_work.Revert(a.get("contract_id"), a.get("dry_run", False)),
    ),
}
GIT: Final = {
    "status": _route(repository.GitStatus, lambda a: repository.GitStatus(a.get("path", "ROOT_REPO"))),
    "diff": _route(repository.GitDiff, lambda a: repository.GitDiff(a.get("path"))),
    "log": _route(
        repository.GitLog,
        lambda a: repository.GitLog(a.get("path", "ROOT_REPO"), a.get("limit", 20)),
    ),
}
TOKEN: Final = {
    "nst": _route(
        token_work.DeclareNst,
        lambda a: token_work.DeclareNst(
            tuple((s["name"], s.get("path")) for s in a["symbols"]), a["reason"], a.get("contract_id")
        ),
    ),
    "lxe": _route(
        token_work.ProposeLxe,
        lambda a: token_work.ProposeLxe(
            tuple(a["rules"]), tuple(a["paths"]), a["max_violations"], a["reason"], a.get("contract_id")
        ),
    ),
    "removal": _route(
        token_work.DeclareRemoval,
        lambda a: token_work.DeclareRemoval(
            tuple((s["name"], s.get("kind"), s.get("path")) for s in a["symbols"]),
            a["reason"],
            a.get("contract_id"),
        ),
    ),
    "list": _route(token_work.ListTokens, lambda a: token_work.ListTokens(a.get("contract_id"))),
}
COMMIT: Final = {
    "add": _route(repository.GitAdd, lambda a: repository.GitAdd(tuple(a.get("paths", ())))),
    "commit": _route(
        repository.GitCommit,
        lambda a: repository.GitCommit(a.get("message", ""), a.get("path", "ROOT_REPO")),
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
