"""Which handler answers each request: one table keyed by the request's type (each command is a request
class and a handler; the driving adapter builds the request, the core finds its handler here).

Every request class has exactly one handler, and a handler answers one request class (a test checks both).
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

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

# Any: the table holds handlers of different request types, each under the type it takes.
HANDLERS: Final[Mapping[type[Request], Handler[Any]]] = MappingProxyType(
    {
        navigation.Pwd: navigation.pwd,
        navigation.ListFolder: navigation.list_folder,
        navigation.Tree: navigation.tree,
        navigation.Cd: navigation.cd,
        file_access.Read: file_access.read,
        file_access.Write: file_access.write,
        file_access.Edit: file_access.edit,
        file_access.Delete: file_access.delete,
        mod_override.Override: mod_override.override,
        search.SearchNames: search.names,
        search.SearchContents: search.contents,
        game_logs.LogQuery: game_logs.query,
        log_keeping.KeepLogs: log_keeping.keep,
        repository.GitStatus: repository.status,
        repository.GitDiff: repository.diff,
        repository.GitLog: repository.log,
        repository.GitAdd: repository.add,
        repository.GitCommit: repository.commit,
        mode_switch.ModeStatus: mode_switch.status,
        mode_switch.ModeInit: mode_switch.init,
        playset_choice.ListPlaysets: playset_choice.list_playsets,
        playset_choice.ShowPlayset: playset_choice.show,
        playset_choice.SwitchPlayset: playset_choice.switch,
        playset_choice.Which: playset_choice.which,
        playset_choice.Overrides: playset_choice.overrides,
        content_queries.Status: content_queries.status,
        content_queries.Define: content_queries.define,
        content_queries.Conflicts: content_queries.conflicts,
        content_queries.Mentions: content_queries.mentions,
        content_queries.Missing: content_queries.missing,
        contract_work.Open: contract_work.open_contract,
        contract_work.Close: contract_work.close,
        contract_work.Cancel: contract_work.cancel,
        contract_work.Renew: contract_work.renew,
        contract_work.Status: contract_work.status,
        contract_work.ListContracts: contract_work.list_contracts,
        contract_work.Revert: contract_work.revert,
        contract_work.StashCarryOver: contract_work.stash_carry_over,
        token_work.DeclareNst: token_work.declare_nst,
        token_work.ProposeLxe: token_work.propose_lxe,
        token_work.DeclareRemoval: token_work.declare_removal,
        token_work.ListTokens: token_work.list_tokens,
    }
)
"""Each request type's handler."""
