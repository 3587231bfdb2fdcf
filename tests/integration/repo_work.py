"""A core over real files on disk (a git repository or a plain folder) with in-memory state and a clock that
stands still, called by tool, command and arguments as an MCP client calls the server: the contract law's
gates (open, write, close, carry-over) run end to end without the MCP stack."""

import json
from pathlib import Path
from typing import Any

from attrs import evolve
from dulwich import porcelain

from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from app.config import Settings
from app.embedding import Embedded
from domain.policy.pacing import Rates
from domain.replies.builder import Reply
from domain.session import Session
from domain.use_cases.core import Core
from domain.vocabulary import Mode, RootCategory
from tests.fakes import FakeClock

IDENTITY = b"T <t@x>"


def committed(repo: Path, files: dict[str, str]) -> None:
    """Write `files` (root-relative path to text) into `repo`, a git repository made if need be, and
    commit them."""
    if not (repo / ".git").is_dir():
        porcelain.init(str(repo))
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / path) for path in files])
    porcelain.commit(str(repo), message=b"work", author=IDENTITY, committer=IDENTITY)


class Work:
    """One server's core over `root` (ROOT_REPO, ck3raven-dev; or the world `settings` give), its state
    and its clock."""

    def __init__(
        self,
        base: Path,
        root: Path,
        *,
        state: MemoryState | None = None,
        budget_kib: int = 32,
        settings: Settings | None = None,
    ):
        self.base, self.root = base, root
        self.state = state or MemoryState()
        self.clock = FakeClock()
        self.settings = settings or Settings(
            "test",
            {RootCategory.ROOT_REPO: root},
            RootCategory.ROOT_REPO,
            Mode.CK3RAVEN_DEV,
            state_dir=base / "state",
            limits=Rates(0, 0),
            budget_kib=budget_kib,
        )
        settings = self.settings
        self.core = build_core(settings, stored=self.state, clock=self.clock)
        self.host = Embedded(self.core, self.core.services.files, self.state)  # type: ignore[arg-type]

    def with_services(self, **changed: Any) -> None:
        """Stand other parts in for some services (a failing store, a smaller budget)."""
        self.core = Core(evolve(self.core.services, **changed), self.core.defaults)
        self.host = Embedded(self.core, self.core.services.files, self.state)  # type: ignore[arg-type]

    def session(self, session_id: str = "s-1") -> Session:
        return self.host.session(session_id)

    def call(self, session: Session, tool: str, command: str, **args: Any) -> Reply:
        return self.host.call(session, tool, command, **args)

    def open(self, session: Session, *targets: tuple[str, str], root: str = "ROOT_REPO") -> Reply:
        """Open a contract on `root` declaring `targets` (path below it, edit kind)."""
        kinds = {kind for _, kind in targets}
        ops = tuple(
            op for op, needed in (("WRITE", kinds - {"delete"}), ("DELETE", "delete" in kinds)) if needed
        )
        return self.call(
            session,
            "ck3_contract",
            "open",
            root_category=root,
            intent="the work",
            work_declaration="the work",
            operations=list(ops),
            targets=[{"path": f"{root}:/{path}", "edit_kind": kind} for path, kind in targets],
        )

    def write(self, session: Session, path: str, content: str) -> Reply:
        return self.call(session, "ck3_file", "write", path=f"ROOT_REPO:/{path}", content=content)

    def close(self, session: Session, **args: Any) -> Reply:
        return self.call(session, "ck3_contract", "close", **args)

    def evidence(self, kind: str, name: str) -> str:
        document = self.state.evidence.document(kind, name)
        assert document is not None, (kind, name)
        return document


def section(reply: Reply) -> dict[str, Any] | None:
    """The carry-over section of an open that succeeded, as plain data (None: the reply has none)."""
    assert reply.code == "CT-GATE-S-001", (reply.code, dict(reply.data))
    carried = json.loads(json.dumps(reply.data["carry_over"]))
    return dict(carried) if carried is not None else None
