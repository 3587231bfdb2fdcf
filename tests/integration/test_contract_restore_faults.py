"""Restoring files for a revert or a stash when the disk or the store fails: nothing is touched until every
file's content is saved; a restore that stops partway puts back what it restored and names what it could
not; a counter that cannot start over never turns landed work into an Error."""

from pathlib import Path
from typing import ClassVar

from adapters.local_files import LocalFiles
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, Revert, StashCarryOver
from ports.errors import Unavailable
from ports.files import Location
from tests.gates import Desk, worked


class Failing(LocalFiles):
    """The disk, except that once armed it fails to write or delete the paths named in `broken` (and a
    write of exactly the bytes named for a path)."""

    armed: ClassVar[bool] = False
    broken: ClassVar[dict[tuple[str, ...], bytes | None]] = {}

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        if (
            Failing.armed
            and location.parts in Failing.broken
            and Failing.broken[location.parts] in {None, data}
        ):
            raise Unavailable("injected: the disk failed here")
        super().write(location, data, exclusive=exclusive)

    def delete(self, location: Location) -> None:
        if Failing.armed and location.parts in Failing.broken:
            raise Unavailable("injected: the disk failed here")
        super().delete(location)


def failing(base: Path, broken: dict[tuple[str, ...], bytes | None]) -> Desk:
    Failing.armed, Failing.broken = False, broken
    bench = worked(base, files=Failing)
    Failing.armed = True
    return bench


def text(bench: Desk, name: str) -> str | None:
    path = bench.repo / "src" / name
    return path.read_text(encoding="utf-8") if path.exists() else None


def approved_revert(bench: Desk):
    bench.approve(bench.ask(Revert()))
    return bench.ask(Revert())


def test_a_revert_that_stops_partway_puts_back_what_it_restored(tmp_path: Path):
    bench = failing(tmp_path, {("src", "b.py"): None})
    stopped = approved_revert(bench)
    data = thaw(stopped.data)
    reverted = [(e.address, e.state) for e in bench.core.services.journal.entries() if e.kind == "revert"]

    assert stopped.code == "CT-GATE-E-004"
    assert data == {
        "contract_id": bench.session.contract_id,
        "saved_as": data["saved_as"],
        "left_changed": [],
    }
    assert reverted == [("ROOT_REPO:/src/a.py", "done"), ("ROOT_REPO:/src/b.py", "failed")]
    assert bench.core.services.evidence.document("revert", data["saved_as"]) is not None
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 2\n", None, "new\n")


def test_a_file_that_cannot_be_put_back_either_is_named(tmp_path: Path):
    bench = failing(tmp_path, {("src", "b.py"): None, ("src", "a.py"): b"a = 2\n"})
    stopped = approved_revert(bench)

    assert (stopped.code, thaw(stopped.data["left_changed"])) == ("CT-GATE-E-004", ["ROOT_REPO:/src/a.py"])
    assert text(bench, "a.py") == "a = 1\n"


def test_a_removal_that_fails_puts_back_the_files_restored_before_it(tmp_path: Path):
    bench = failing(tmp_path, {("src", "new.py"): None})
    stopped = approved_revert(bench)

    assert (stopped.code, thaw(stopped.data["left_changed"])) == ("CT-GATE-E-004", [])
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 2\n", None, "new\n")


def test_when_the_content_cannot_be_saved_first_nothing_is_restored(tmp_path: Path):
    bench = failing(tmp_path, {})
    evidence = bench.core.services.evidence

    def down(*_: object) -> str:
        raise Unavailable("injected: the store is down")

    evidence.put = down  # type: ignore[method-assign]
    refused = approved_revert(bench)

    assert (refused.code, thaw(refused.data)) == ("CT-GATE-E-001", {"root": "ROOT_REPO"})
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 2\n", None, "new\n")


def test_a_stash_that_stops_partway_says_what_it_is_for_and_what_is_left(tmp_path: Path):
    bench = failing(tmp_path, {("src", "b.py"): None, ("src", "a.py"): b"a = 2\n"})
    contract_id = str(bench.session.contract_id)
    bench.ask(Cancel())
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stopped = bench.ask(StashCarryOver("ROOT_REPO", contract_id))
    data = thaw(stopped.data)

    assert stopped.code == "CT-GATE-E-004"
    assert (data["contract_id"], data["left_changed"]) == (contract_id, ["ROOT_REPO:/src/a.py"])
    assert bench.core.services.evidence.document("stash", data["saved_as"]) is not None


def test_a_stash_whose_counters_cannot_start_over_still_succeeds(tmp_path: Path):
    bench = failing(tmp_path, {})
    contract_id = str(bench.session.contract_id)
    bench.ask(Cancel())
    ledger = bench.core.services.ledger

    def down(*_: object) -> None:
        raise Unavailable("injected: the store is down")

    ledger.save = down  # type: ignore[method-assign]
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert stashed.code == "CT-GATE-S-007"
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 1\n", "b = 1\n", None)
