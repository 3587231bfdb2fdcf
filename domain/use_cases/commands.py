"""Every tool's commands, one row each: the request it builds, the handler that answers it, and what its
arguments are relative to. The one place a (tool, command) pair is looked up; past it, the core sees only
requests, and a handler is found by its request's type.

What a command takes and needs is what its request class declares (`ARGS`, domain.use_cases.arguments);
how its request is made from them is the class's `build`. Every request class has exactly one row, and a
handler answers one request class (a test checks both).
"""

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from attrs import field, frozen

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
from domain.use_cases.request import Handler, Request


def _names(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@frozen
class Command:
    """One command of one tool."""

    kind: type[Request]
    """The request it builds (`kind.build`); the arguments `kind` declares are the command's."""
    # Any: the table holds handlers of different request types, each in the row of the type it takes.
    handler: Handler[Any]
    relative: frozenset[str] = field(default=frozenset(), converter=_names)
    """Arguments that are never absolute (a game-relative path): one starting like a host path is Invalid."""
    inner: frozenset[str] = field(default=frozenset(), converter=_names)
    """Arguments the driving adapter itself passes (never listed to clients, never given by one)."""
    stateful: bool = False
    """Its success is a session state later calls rely on: refused where the session ends with the call."""

    @property
    def takes(self) -> frozenset[str]:
        return frozenset(arg.name for arg in self.kind.ARGS) | self.inner

    @property
    def requires(self) -> frozenset[str]:
        return frozenset(arg.name for arg in self.kind.ARGS if arg.required)


_GAME_PATH: Final = ("path",)

COMMANDS: Final[Mapping[str, Mapping[str, Command]]] = MappingProxyType(
    {
        "ck3_dir": {
            "pwd": Command(navigation.Pwd, navigation.pwd),
            "list": Command(navigation.ListFolder, navigation.list_folder),
            "tree": Command(navigation.Tree, navigation.tree, inner=("progress",)),
        },
        "ck3_read": {
            "read": Command(file_access.Read, file_access.read),
        },
        "ck3_search": {
            "names": Command(search.SearchNames, search.names),
            "contents": Command(search.SearchContents, search.contents),
            "log": Command(game_logs.LogQuery, game_logs.query),
        },
        "ck3_git": {
            "status": Command(repository.GitStatus, repository.status),
            "diff": Command(repository.GitDiff, repository.diff),
            "log": Command(repository.GitLog, repository.log),
        },
        "ck3_mode": {
            "status": Command(mode_switch.ModeStatus, mode_switch.status),
            "init": Command(mode_switch.ModeInit, mode_switch.init, stateful=True),
            "cd": Command(navigation.Cd, navigation.cd, stateful=True),
        },
        "ck3_playset": {
            "list": Command(playset_choice.ListPlaysets, playset_choice.list_playsets),
            "show": Command(playset_choice.ShowPlayset, playset_choice.show),
            "switch": Command(playset_choice.SwitchPlayset, playset_choice.switch, stateful=True),
            "which": Command(playset_choice.Which, playset_choice.which, relative=_GAME_PATH),
            "overrides": Command(playset_choice.Overrides, playset_choice.overrides, relative=_GAME_PATH),
            "define": Command(content_queries.Define, content_queries.define),
            "conflicts": Command(content_queries.Conflicts, content_queries.conflicts),
            "mentions": Command(content_queries.Mentions, content_queries.mentions),
            "missing": Command(content_queries.Missing, content_queries.missing),
            "index": Command(content_queries.Status, content_queries.status),
        },
        "ck3_file": {
            "write": Command(file_access.Write, file_access.write),
            "edit": Command(file_access.Edit, file_access.edit),
            "delete": Command(file_access.Delete, file_access.delete),
            "override": Command(mod_override.Override, mod_override.override),
            "keep": Command(log_keeping.KeepLogs, log_keeping.keep),
        },
        "ck3_commit": {
            "add": Command(repository.GitAdd, repository.add),
            "commit": Command(repository.GitCommit, repository.commit),
        },
        "ck3_contract": {
            "open": Command(contract_work.Open, contract_work.open_contract, stateful=True),
            "close": Command(contract_work.Close, contract_work.close),
            "cancel": Command(contract_work.Cancel, contract_work.cancel),
            "renew": Command(contract_work.Renew, contract_work.renew, stateful=True),
            "status": Command(contract_work.Status, contract_work.status),
            "list": Command(contract_work.ListContracts, contract_work.list_contracts),
            "stash_carry_over": Command(contract_work.StashCarryOver, contract_work.stash_carry_over),
            "revert": Command(contract_work.Revert, contract_work.revert),
        },
        "ck3_token": {
            "nst": Command(token_work.DeclareNst, token_work.declare_nst),
            "lxe": Command(token_work.ProposeLxe, token_work.propose_lxe),
            "removal": Command(token_work.DeclareRemoval, token_work.declare_removal),
            "list": Command(token_work.ListTokens, token_work.list_tokens),
        },
    }
)
"""Every tool's commands, in the order a tool lists them."""

CARRIED: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {"ck3_read": ("path",), "ck3_file": ("path",)}
)
"""Arguments every call of the tool carries, though each may be null (its input schema requires them)."""

HANDLERS: Final[Mapping[type[Request], Handler[Any]]] = MappingProxyType(
    {row.kind: row.handler for rows in COMMANDS.values() for row in rows.values()}
)
"""Each request type's handler."""
