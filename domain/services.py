"""What every handler shares across sessions: the stores, the history, the clock, ids and the Sigil.

Session state (mode, home, playset lens, open contract) is not here: it is the handler's `Session`.
"""

from collections.abc import Callable

from attrs import frozen

from domain.ck3.rechecks import Rechecks
from domain.leaks import LeakGate
from domain.policy.approvals import Authority
from domain.world.view import WorldView
from ports.audit import AuditLog, CallFacts
from ports.clock import Clock
from ports.content_index import Build, ContentIndex
from ports.contracts import ContractStore
from ports.evidence import EvidenceStore
from ports.files import Files
from ports.history import History
from ports.journal import Journal
from ports.ledger import Ledger
from ports.linter import Linter
from ports.patterns import Patterns
from ports.playsets import PlaysetStore
from ports.servers import Servers
from ports.tokens import TokenFiles
from ports.transactions import Transactions
from ports.validators import ExternalValidator


@frozen
class Services:
    """The driven ports and the approval authority, wired once by the composition root."""

    files: Files
    playsets: PlaysetStore
    authority: Authority
    contracts: ContractStore
    history: History
    ledger: Ledger
    evidence: EvidenceStore
    leaks: LeakGate
    """What a reply may not carry: a mutation whose reply would be withheld is refused before it happens."""
    transactions: Transactions
    """One decision, one transaction: the state changes of one call land together or not at all."""
    audit: AuditLog
    """One row per tool call, written by the driving adapter once the reply is known."""
    linter: Linter
    """The locked lint ruleset close runs on changed Python files."""
    tokens: TokenFiles
    """Lint exception tokens (LXE), kept under `policy/tokens/` of a root."""
    journal: Journal
    """Every governed change, recorded before the file changes (SPEC §7)."""
    patterns: Patterns
    """The engine a content search finds agents' patterns with, in time linear in the text."""
    clock: Clock
    """The time, for what has a budget in seconds (a content search)."""
    index: ContentIndex | None = None
    """The playset's content index (SPEC §15); None where the server keeps none."""
    background: Callable[[str, Callable[[], object]], None] | None = None
    """Runs named work off the request path (the index's builds), logging what it returns; None: never."""
    index_builder: Callable[[WorldView, str], Build | None] | None = None
    """Builds the index of a playset (its view, its name) in a process of its own, for `background` to
    wait on; None: a build parses in this process."""
    rechecks: Rechecks | None = None
    """Spares a question the stat re-check of folders in which nothing changed (change notification);
    None: every question re-checks its folders."""
    budget: int = 32 * 1024
    """The bytes one reply's envelope may take unless the call asks for more (SPEC §16)."""
    language: str = "english"
    """The playset's reference language: the localisation a new key needs is looked for in it (SPEC §14)."""
    validator: ExternalValidator | None = None
    """ck3-tiger where the operator has it (config or PATH); None: close says it was not run."""
    validator_seconds: float = 120.0
    """The bound on one run of the validator; past it the run is cut and the evidence says so."""
    call: CallFacts | None = None
    """The tool call being decided (set for each decision): what the rows written with its changes name."""
    servers: Servers | None = None
    """This server and the others on its state directory; None: no other server can share the state
    (memory stores), so what another server stamped is judged as its records stand."""
