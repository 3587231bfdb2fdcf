"""A desk for the contract gates: the real core over a small git repository on disk, its state in memory, a
clock that stands still until moved, and short ways to open, write and ask."""

from pathlib import Path

from attrs import define
from dulwich import porcelain

from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest
from domain.policy.pacing import Rates
from domain.replies.builder import Reply
from domain.session import Session
from domain.use_cases.contract_work import Open
from domain.use_cases.core import Core
from domain.use_cases.file_access import Delete, Write
from domain.use_cases.request import Request
from domain.vocabulary import Mode, RootCategory
from ports.contracts import ContractRecord, TargetRecord
from tests.fakes import FakeClock
from tests.worlds import small_git_repo


@define
class Desk:
    """One core and one session of it, over `repo` (`src/a.py` committed as "a = 1")."""

    core: Core
    session: Session
    clock: FakeClock
    state: MemoryState
    repo: Path
    settings: Settings

    def ask(self, request: Request, session: Session | None = None) -> Reply:
        return self.core.answer(session or self.session, request)

    def open(
        self, *targets: tuple[str, str], operations: tuple[str, ...] = ("WRITE", "DELETE"), **more
    ) -> Reply:
        declared = tuple(TargetRecord(address, kind) for address, kind in targets)
        fields = {"intent": "rework", "work_declaration": "the work", "author": "agent", "ttl_minutes": 60}
        fields.update(more)
        root = str(fields.pop("root_category", "ROOT_REPO"))
        return self.ask(Open(OpenRequest(root, operations=operations, targets=declared, **fields)))  # type: ignore[arg-type]

    def write(self, path: str, content: str) -> Reply:
        return self.ask(Write(path, content))

    def delete(self, path: str) -> Reply:
        return self.ask(Delete(path))

    def stored(self, contract_id: object) -> ContractRecord:
        record = self.core.services.contracts.get(str(contract_id))
        assert record is not None
        return record

    def approve(self, reply: Reply, *, approve: bool = True) -> None:
        assert reply.code == "CT-GATE-I-005", reply
        assert self.core.decide_approval(str(reply.data["approval_id"]), approve=approve)


def desk(
    base: Path, mode: Mode = Mode.CK3RAVEN_DEV, *, budget_kib: int = 32, files: type | None = None
) -> Desk:
    """A fresh desk over a small git repository under `base` (and a game folder that is never writable),
    replies cut to `budget_kib`; `files`: a LocalFiles class standing in for the disk (one that fails)."""
    repo, data = small_git_repo(base)
    game = base / "game"
    (game / "common").mkdir(parents=True)
    (game / "common" / "traits.txt").write_text("brave = {}\n", encoding="utf-8")
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: repo, RootCategory.ROOT_CK3RAVEN_DATA: data, RootCategory.ROOT_GAME: game},
        RootCategory.ROOT_REPO,
        mode,
        state_dir=base / "state",
        limits=Rates(0, 0),
        budget_kib=budget_kib,
    )
    clock, state = FakeClock(), MemoryState()
    disk = files({root.value: path for root, path in settings.roots.items()}) if files else None
    core = build_core(settings, stored=state, clock=clock, files=disk)
    return Desk(core, core.start_session("s-1"), clock, state, repo, settings)


WORK = (
    ("ROOT_REPO:/src/a.py", "modify"),
    ("ROOT_REPO:/src/b.py", "delete"),
    ("ROOT_REPO:/src/new.py", "add"),
)
"""The work of `worked`: a.py modified, b.py deleted, new.py added."""


def worked(base: Path, files: type | None = None) -> Desk:
    """A desk whose open contract modified a.py, deleted b.py (committed before) and added new.py."""
    bench = desk(base, files=files)
    (bench.repo / "src" / "b.py").write_text("b = 1\n", encoding="utf-8")
    porcelain.add(str(bench.repo), paths=[str(bench.repo / "src" / "b.py")])
    porcelain.commit(str(bench.repo), message=b"b", author=b"T <t@x>", committer=b"T <t@x>")
    assert bench.open(*WORK).code == "CT-GATE-S-001"
    assert bench.write("src/a.py", "a = 2\n").reply_type.value == "S"
    assert bench.delete("src/b.py").reply_type.value == "S"
    assert bench.write("src/new.py", "new\n").reply_type.value == "S"
    return bench


def nested_repository(bench: Desk) -> Path:
    """A second git repository inside the first, at `vendor/lib`, with `x.py` ("x = 1") committed."""
    lib = bench.repo / "vendor" / "lib"
    lib.mkdir(parents=True)
    (lib / "x.py").write_text("x = 1\n", encoding="utf-8")
    porcelain.init(str(lib))
    porcelain.add(str(lib), paths=[str(lib / "x.py")])
    porcelain.commit(str(lib), message=b"lib", author=b"T <t@x>", committer=b"T <t@x>")
    return lib
