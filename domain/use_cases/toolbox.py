"""The use cases behind the agent tools: one method per tool, each returning exactly one Reply.

Until a mode is initialised only `ck3_dir pwd` and `ck3_mode` answer (SPEC §2).
"""

from attrs import define, evolve

from domain import session as sessions
from domain.contracts import gates, stash
from domain.contracts import records as law
from domain.policy import approvals, modes
from domain.policy.approvals import Authority
from domain.policy.enforcement import ActiveContract
from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session
from domain.use_cases import file_access as files
from domain.use_cases import navigation as directory
from domain.use_cases import repository as git
from domain.use_cases.navigation import Progress
from domain.use_cases.repository import GitOptions
from domain.vocabulary import Mode
from domain.world import catalog as playsets
from domain.world.adapter import WorldAdapter
from domain.world.catalog import Catalog
from domain.world.playsets import mod_folders
from ports.contracts import ContractStore
from ports.errors import Unavailable
from ports.history import History
from ports.ledger import Ledger
from ports.playsets import PlaysetStore


@define
class Toolbox:
    """The core's answer to every tool call. Holds the session; decides; never performs transport."""

    session: Session
    world: WorldAdapter
    playsets: PlaysetStore
    active_playset: str | None = None
    authority: Authority | None = None
    contracts: ContractStore | None = None
    history: History | None = None
    ledger: Ledger | None = None

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: Progress | None = None) -> Reply:
        if command == "pwd":
            return sessions.pwd(self.session)
        refusal = sessions.mode_required(self.session, "ck3_dir")
        if refusal is not None:
            return refusal
        if command == "cd":
            return directory.change_home(self.session, self.world, path)
        if command == "list":
            return directory.list_folder(self.session, self.world, path)
        if command == "tree":
            return directory.tree(self.session, self.world, path, depth, progress)
        raise ValueError(f"unknown ck3_dir command {command!r}")

    def ck3_file(
        self, command: str, path: str | None, content: str | None, old: str | None, new: str | None
    ) -> Reply:
        refusal = sessions.mode_required(self.session, "ck3_file")
        if refusal is not None:
            return refusal
        # reads need no contract: only mutations pay for loading and verifying it
        desk = files.Desk(self.session, self.world, None if command == "read" else self.active_contract())
        if command == "read":
            return files.read(desk, path)
        if command == "delete":
            return files.delete(desk, path)
        if command == "write":
            return files.write(desk, path, content) if content is not None else _missing("content")
        if command == "edit":
            if old is None or new is None:
                return _missing("old" if old is None else "new")
            return files.edit(desk, path, old, new)
        raise ValueError(f"unknown ck3_file command {command!r}")

    def active_contract(self) -> ActiveContract | None:
        """The verified, open, unexpired contract of this session, as enforcement needs it."""
        clerk = self._clerk()
        record = gates.active(clerk) if clerk else None
        return law.as_active(record) if record else None

    def ck3_contract(self, command: str, request: gates.OpenRequest | None, contract_id: str | None) -> Reply:
        refusal = sessions.mode_required(self.session, "ck3_contract")
        if refusal is not None:
            return refusal
        clerk = self._clerk()
        if clerk is None:
            return ReplyBuilder().invalid("MCP-CFG-I-003", {"hint": "configure ROOT_CK3RAVEN_DATA"})
        if command == "open":
            return gates.open_contract(clerk, request) if request else _missing("root_category")
        if command == "stash_carry_over":
            root = request.root_category if request and request.root_category else "ROOT_REPO"
            return stash.stash_carry_over(clerk, root, contract_id)
        if command == "renew":
            return gates.renew(clerk, contract_id, request.ttl_minutes if request else 120)
        actions = {
            "close": lambda: gates.close_contract(clerk, contract_id),
            "cancel": lambda: gates.cancel_contract(clerk, contract_id),
            "status": lambda: gates.status(clerk),
            "list": lambda: gates.list_contracts(clerk),
        }
        return actions[command]()

    def ck3_git(self, command: str, options: GitOptions) -> Reply:
        refusal = sessions.mode_required(self.session, "ck3_git")
        if refusal is not None:
            return refusal
        if self.history is None:
            return ReplyBuilder().invalid("MCP-CFG-I-003", {"hint": "no repository history is configured"})
        if options.root not in {root.value for root in self.world.view.roots}:
            return ReplyBuilder().invalid(
                "WA-RES-I-009", {"roots": sorted(r.value for r in self.world.view.roots)}
            )
        contract = self.active_contract() if command in {"add", "commit"} else None
        bench = git.Bench(self.session, self.world, self.history, contract)
        actions = {
            "status": lambda: git.status(bench, options.root),
            "diff": lambda: git.diff(bench, options.path),
            "log": lambda: git.log(bench, options.root, options.limit),
            "add": lambda: git.add(bench, list(options.paths)),
            "commit": lambda: git.commit(bench, options.root, options.message),
        }
        return actions[command]()

    def _clerk(self) -> gates.Clerk | None:
        if self.authority is None or self.contracts is None or self.history is None or self.ledger is None:
            return None
        return gates.Clerk(
            self.session, self.world, self.contracts, self.history, self.authority, self.ledger
        )

    def ck3_mode(self, command: str, mode: str | None = None) -> Reply:
        if command == "status":
            return sessions.mode_status(self.session, sealed=modes.sealed(self.session, self.authority))
        if command == "init":
            if mode is None:
                return _missing("mode")
            if self.authority is None:
                return ReplyBuilder().invalid("MCP-CFG-I-003", {"hint": "configure ROOT_CK3RAVEN_DATA"})
            reply = modes.init_mode(self.session, Mode(mode), self.authority)
            self.world.set_view(evolve(self.world.view, mode=self.session.mode))
            return reply
        raise ValueError(f"unknown ck3_mode command {command!r}")

    def decide_approval(self, approval_id: str, *, approve: bool) -> bool:
        """Record a human's decision arriving through the client (elicitation); False if undecidable."""
        if self.authority is None:
            return False
        return approvals.human_decision(self.authority, approval_id, approve=approve) is not None

    def ck3_playset(self, command: str, name: str | None) -> Reply:
        refusal = sessions.mode_required(self.session, "ck3_playset")
        if refusal is not None:
            return refusal
        try:
            catalog = Catalog(tuple(self.playsets.load()), self.active_playset)
        except Unavailable:
            return ReplyBuilder().error("WA-IO-E-001", {"address": "ROOT_CK3RAVEN_DATA:/playsets"})
        if command == "list":
            return playsets.list_playsets(catalog)
        if command == "show":
            return playsets.show_playset(catalog, name, self.session.mode)
        if command == "switch":
            return self._switch(catalog, name)
        raise ValueError(f"unknown ck3_playset command {command!r}")

    def _switch(self, catalog: Catalog, name: str | None) -> Reply:
        record = catalog.usable(name or "")
        if isinstance(record, Reply):
            return record
        folders = mod_folders(record)
        reply = ReplyBuilder().success(
            "MCP-CFG-S-004", {"name": record.name, "mods": [folder.name for folder in folders]}
        )
        # One assignment swaps the whole view: no call ever sees the old mods with the new name.
        self.world.set_view(evolve(self.world.view, mods=folders))
        self.active_playset = record.name
        return reply


def _missing(argument: str) -> Reply:
    return ReplyBuilder().invalid(
        "MCP-VAL-I-001", {"errors": [{"field": argument, "problem": "required by this command"}]}
    )
