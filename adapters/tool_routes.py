"""Which handler answers each tool command, which arguments it takes, and how its typed request is built.

The MCP adapter has already checked each argument's type against the tool's schema; this table adds
what the schema cannot say: an argument a command does not take is Invalid (never silently ignored), and
one it needs but lacks is Invalid too. What a command takes and needs is what its request class declares
(`ARGS`, domain.use_cases.arguments). The domain never sees a command string.
"""

from collections.abc import Callable, Mapping
from typing import Any, Final

from attrs import NOTHING, fields, frozen

from domain.contracts.lifecycle import OpenRequest
from domain.contracts.records import DEFAULT_TTL_MINUTES
from domain.edits import Replacement
from domain.replies.builder import Reply, ReplyBuilder
from domain.use_cases import (
    content_queries,
    contract_work,
    file_access,
    game_logs,
    log_keeping,
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
    build: Callable[[Args], Request | Reply] | None = None,
    *,
    inner: tuple[str, ...] = (),
    relative: tuple[str, ...] = (),
) -> Route:
    """The route of the command whose request is `kind`: it takes the arguments `kind` declares (and the
    `inner` ones the adapter itself passes, never listed to clients). Unless `build` says otherwise, the
    request is made from the arguments of the same names: those not given take the field's default, or
    None."""
    taken = frozenset(arg.name for arg in kind.ARGS) | frozenset(inner)
    required = frozenset(arg.name for arg in kind.ARGS if arg.required)
    return Route(build or _fields(kind), kind, taken, required, frozenset(relative))


def _fields(kind: type[Request]) -> Callable[[Args], Request]:
    def build(args: Args) -> Request:
        given = {f.name: args.get(f.name) for f in fields(kind) if f.name in args or f.default is NOTHING}
        return kind(**given)

    return build


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
    "pwd": _route(navigation.Pwd),
    "list": _route(navigation.ListFolder),
    "tree": _route(navigation.Tree, inner=("progress",)),
}
READ: Final = {
    "read": _route(file_access.Read),
}
FILE: Final = {
    "write": _route(file_access.Write),
    "edit": _route(
        file_access.Edit,
        _edit,
    ),
    "delete": _route(file_access.Delete),
    "override": _route(mod_override.Override),
    "keep": _route(log_keeping.KeepLogs),
}
_SCOPE = ("path", "include_ignored", "ignore_case", "limit")
SEARCH: Final = {
    "names": _route(search.SearchNames),
    "contents": _route(search.SearchContents),
    "log": _route(game_logs.LogQuery),
}
MODE: Final = {
    "status": _route(mode_switch.ModeStatus),
    "init": _route(mode_switch.ModeInit, lambda a: mode_switch.ModeInit(Mode(a["mode"]))),
    "cd": _route(navigation.Cd),
}
PLAYSET: Final = {
    "list": _route(playset_choice.ListPlaysets),
    "show": _route(playset_choice.ShowPlayset),
    "switch": _route(playset_choice.SwitchPlayset),
    "which": _route(
        playset_choice.Which,
        relative=("path",),
    ),
    "overrides": _route(
        playset_choice.Overrides,
        relative=("path",),
    ),
    "define": _route(content_queries.Define),
    "conflicts": _route(content_queries.Conflicts),
    "mentions": _route(content_queries.Mentions),
    "missing": _route(
        content_queries.Missing,
        lambda a: content_queries.Missing(a["language"], "english", a.get("cursor"), a.get("limit")),
    ),
    "index": _route(content_queries.Status),
}
CONTRACT: Final = {
    "open": _route(
        contract_work.Open,
        _open,
    ),
    "close": _route(contract_work.Close),
    "cancel": _route(contract_work.Cancel),
    "renew": _route(contract_work.Renew),
    "status": _route(contract_work.Status),
    "list": _route(contract_work.ListContracts),
    "stash_carry_over": _route(
        contract_work.StashCarryOver,
        lambda a: contract_work.StashCarryOver(a.get("root_category", "ROOT_REPO"), a.get("contract_id")),
    ),
    "revert": _route(contract_work.Revert),
}
GIT: Final = {
    "status": _route(repository.GitStatus),
    "diff": _route(repository.GitDiff),
    "log": _route(repository.GitLog),
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
    "list": _route(token_work.ListTokens),
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
