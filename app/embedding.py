"""Embedding: the core for a host program, held in memory, with no host path and nothing on disk.

`in_memory(roots)` wires the core over in-memory files (each root a nested dict of names to bytes or
folders), no repository (`MemoryHistory`), a linter of no rules (`MemoryLinter`) and in-memory state
(`MemoryState`: contracts, approvals, the journal, the audit log), with a fresh Sigil. A host calls it as
an MCP client calls the server, by tool, command and arguments (`ck3_file`, `write`, `path=…`,
`content=…`), and each call goes through the same door of the core (`Core.admit`, then `Core.decide`); the
answer is the domain's `Reply` (`reply_type`, `code`, `data`, `message()`).
"""

from collections.abc import Mapping
from typing import Any, Final

from adapters.hmac_signer import HmacSigner
from adapters.json_playsets import JsonPlaysets
from adapters.lxe_files import LxeFiles
from adapters.memory_files import MemoryFiles
from adapters.memory_history import MemoryHistory
from adapters.memory_linter import MemoryLinter
from adapters.memory_state import MemoryState
from adapters.re2_patterns import Re2Patterns
from adapters.system_clock import RandomIds, SystemClock
from domain.leaks import LeakGate
from domain.policy.approvals import Authority
from domain.replies.builder import Reply
from domain.services import Services
from domain.session import Session
from domain.use_cases.core import Core, Defaults
from domain.vocabulary import Mode, RootCategory
from domain.world.view import WorldView
from ports.audit import CallFacts
from ports.clock import Clock

APPROVE: Final = "the host's approval of {id}"
"""What a reply that asks a human names as the way to approve (the host decides through `approve`)."""


class Embedded:
    """An in-memory core and the way a host calls it. `session()` starts a governance session (its own
    mode, home and contract); `call` answers one command in it; `files` and `state` are the memory the core
    works on (the host may look, and should change files only through calls)."""

    def __init__(self, core: Core, files: MemoryFiles, state: MemoryState) -> None:
        self.core = core
        self.files = files
        self.state = state

    def session(self, session_id: str = "embedded") -> Session:
        """A fresh governance session at the defaults given to `in_memory`."""
        return self.core.start_session(session_id)

    def call(self, session: Session, tool: str, command: str, **args: Any) -> Reply:  # noqa: ANN401 - a tool's arguments, as JSON gives them
        """The one reply to `tool`'s `command` with these arguments, as the MCP tool would answer it (an
        unknown tool: MCP-VAL-I-002; an unknown command, or an argument out of its shape or place:
        MCP-VAL-I-001; an argument naming something by a host path: Invalid, before any handler)."""
        request = self.core.admit(session, tool, command, args)
        if isinstance(request, Reply):
            return request
        return self.core.decide(session, request, paced=True, call=CallFacts(tool, command)).reply

    def approve(self, approval_id: str, *, approve: bool = True) -> bool:
        """Record the host's human decision on an approval a reply asked for; False if undecidable."""
        return self.core.decide_approval(approval_id, approve=approve)


def in_memory(
    roots: Mapping[str, dict[str, object]],
    *,
    mode: str | None = Mode.CK3RAVEN_DEV.value,
    home: str | None = None,
    clock: Clock | None = None,
) -> Embedded:
    """The core over `roots` (root name, e.g. "ROOT_REPO", to its folder: names to bytes or folders), in
    `mode` (None: each session asks for one), sessions starting at `home` (default: the first root)."""
    files = MemoryFiles(roots)
    state = MemoryState()
    clock = clock or SystemClock()
    authority = Authority(state.approvals, clock, RandomIds(), HmacSigner(), APPROVE)
    services = Services(
        files=files,
        playsets=JsonPlaysets(files),
        authority=authority,
        contracts=state.contracts,
        history=MemoryHistory(),
        ledger=state.ledger,
        evidence=state.evidence,
        leaks=LeakGate(()),
        transactions=state,
        audit=state.audit,
        linter=MemoryLinter(),
        tokens=LxeFiles(files),
        journal=state.journal,
        patterns=Re2Patterns(),
        clock=clock,
    )
    chosen = Mode(mode) if mode is not None else None
    named = frozenset(RootCategory(root) for root in roots)
    start = RootCategory(home) if home is not None else RootCategory(next(iter(roots)))
    defaults = Defaults(start, chosen, None, WorldView(chosen, named))
    return Embedded(Core(services, defaults), files, state)
