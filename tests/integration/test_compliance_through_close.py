"""Compliance at close (law Phase 1.5, SPEC §14) through the core on a real git repository: what the work
added is judged against what each file held when the contract opened, so a finding or symbol the file
already had needs nothing, and each new symbol, finding and removed file is named in the close's evidence."""

import json
from pathlib import Path

from dulwich import porcelain

from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest
from domain.policy.pacing import Rates
from domain.replies.frozen import thaw
from domain.session import Session
from domain.use_cases.contract_work import Close, Open, Renew
from domain.use_cases.core import Core
from domain.use_cases.file_access import Delete, Write
from domain.use_cases.token_work import DeclareNst, ListTokens, ProposeLxe
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord
from tests.fakes import FakeClock

TRAITS = "mod/common/traits/00_traits.txt"
BASELINE = {
    "src/a.py": "import os\na = 1\n",
    TRAITS: "brave = {\n}\n",
    "mod/common/traits/zz_gone.txt": "gone = {\n}\n",
}
VALUES = "mod/common/script_values/v.txt"
WORK = {
    "src/a.py": "import os\na = 1\n\n\ndef greet():\n    return a\n",
    TRAITS: "brave = {\n}\ncraven = {\n}\n",
    "b.py": "import sys\n",
    "README.md": "notes\n",  # a file no analyser reads
    VALUES: "\ufeffmy_value = 5\n",
    "tools/z.py": "print(1)\n",  # a Python file added after one with a baseline
}


def opened(base: Path, clock: FakeClock | None = None, ttl: int = 60) -> tuple[Core, Session, str]:
    """A repository at BASELINE (its Python file with an unused import, its trait file without the
    byte-order mark), and a contract open over WORK and the deletion of zz_gone.txt."""
    repo = base / "repo"
    for path, text in BASELINE.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    porcelain.init(str(repo))
    porcelain.add(str(repo), paths=[str(repo / path) for path in BASELINE])
    porcelain.commit(str(repo), message=b"baseline", author=b"T <t@x>", committer=b"T <t@x>")
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: repo},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=base / "state",
        limits=Rates(0, 0),
    )
    core = build_core(settings, stored=MemoryState(), clock=clock or FakeClock())
    session = core.start_session("s")
    targets = (
        TargetRecord("ROOT_REPO:/src/a.py", "modify"),
        TargetRecord(f"ROOT_REPO:/{TRAITS}", "modify"),
        TargetRecord("ROOT_REPO:/b.py", "add"),
        TargetRecord("ROOT_REPO:/README.md", "add"),
        TargetRecord(f"ROOT_REPO:/{VALUES}", "add"),
        TargetRecord("ROOT_REPO:/tools/z.py", "add"),
        TargetRecord("ROOT_REPO:/mod/common/traits/zz_gone.txt", "delete"),
    )
    declared = OpenRequest("ROOT_REPO", "i", ("WRITE", "DELETE"), targets, "w", "t", ttl)
    reply = core.answer(session, Open(declared))
    assert reply.code == "CT-GATE-S-001", reply.code
    contract_id = str(reply.data["contract_id"])
    for path, text in WORK.items():
        assert core.answer(session, Write(path, text)).code.startswith("WA-WRITE-S"), path
    assert core.answer(session, Delete("mod/common/traits/zz_gone.txt")).code.startswith("WA-WRITE-S")
    return core, session, contract_id


def test_each_new_symbol_needs_an_nst_and_what_the_baseline_had_needs_none(tmp_path: Path):
    core, session, _ = opened(tmp_path)

    refused = core.answer(session, Close())

    assert refused.code == "CT-GATE-I-009"
    assert thaw(refused.data["uncovered"]) == [
        {"name": "my_value", "address": f"ROOT_REPO:/{VALUES}"},
        {"name": "craven", "address": f"ROOT_REPO:/{TRAITS}"},
        {"name": "greet", "address": "ROOT_REPO:/src/a.py"},
    ]


def test_only_findings_the_work_added_need_an_lxe_and_a_complying_close_records_every_fact(tmp_path: Path):
    core, session, contract_id = opened(tmp_path)
    nsts = (("greet", "ROOT_REPO:/src/a.py"), ("craven", None), ("my_value", None))
    assert core.answer(session, DeclareNst(nsts, "asked for")).code == "CT-GATE-S-010"

    linted = core.answer(session, Close())
    core.answer(session, Write("b.py", "import sys\n\nprint(sys.argv)\n"))
    closed = core.answer(session, Close())

    assert linted.code == "CT-GATE-I-010"
    assert thaw(linted.data["over"]) == [
        {"rule": "F401", "path": "ROOT_REPO:/b.py", "found": 1, "excused": 0}
    ]
    assert closed.code == "CT-GATE-S-002"
    evidence = json.loads(core.services.evidence.document("close", contract_id) or "{}")["compliance"]
    assert evidence["outcome"] == "complies"
    assert evidence["recorded_ruleset_hash"] == evidence["ruleset_hash"]
    assert evidence["symbols"] == [
        {"address": "ROOT_REPO:/b.py", "kind": "python", "added": [], "problem": None},
        {"address": f"ROOT_REPO:/{VALUES}", "kind": "ck3-script", "added": ["my_value"], "problem": None},
        {"address": f"ROOT_REPO:/{TRAITS}", "kind": "ck3-script", "added": ["craven"], "problem": None},
        {"address": "ROOT_REPO:/src/a.py", "kind": "python", "added": ["greet"], "problem": None},
        {"address": "ROOT_REPO:/tools/z.py", "kind": "python", "added": [], "problem": None},
    ]
    assert evidence["nsts"] == [
        {"name": "greet", "address": "ROOT_REPO:/src/a.py", "reason": "asked for"},
        {"name": "craven", "address": None, "reason": "asked for"},
        {"name": "my_value", "address": None, "reason": "asked for"},
    ]
    assert sorted((f["rule"], f["path"], f["line"]) for f in evidence["findings"]) == [
        ("CK3-BOM", f"ROOT_REPO:/{TRAITS}", 1),
        ("F401", "ROOT_REPO:/src/a.py", 1),
    ]
    assert (evidence["over"], evidence["lxes"], evidence["uncovered"]) == ([], [], [])


def test_an_nst_edited_in_the_store_stops_covering_its_symbols_at_close(tmp_path: Path):
    core, session, contract_id = opened(tmp_path)
    core.answer(session, Write("b.py", "import sys\n\nprint(sys.argv)\n"))
    nsts = (("greet", "ROOT_REPO:/src/a.py"), ("craven", None), ("my_value", None))
    assert core.answer(session, DeclareNst(nsts, "asked for")).code == "CT-GATE-S-010"
    stored = json.loads(core.services.evidence.document("nst", contract_id) or "{}")
    stored["nsts"][0]["reason"] = "asked for, and for more"
    core.services.evidence.put("nst", contract_id, json.dumps(stored))

    refused = core.answer(session, Close())
    listed = core.answer(session, ListTokens())

    assert refused.code == "CT-GATE-I-009"
    assert [symbol["name"] for symbol in thaw(refused.data["uncovered"])] == ["my_value", "craven", "greet"]
    assert (listed.data["count"], thaw(listed.data["nsts"])) == (0, [])


def excused(core: Core, session: Session) -> str:
    """NSTs for the new symbols, and an LXE for b.py's unused import a human approved: its id."""
    nsts = (("greet", "ROOT_REPO:/src/a.py"), ("craven", None), ("my_value", None))
    assert core.answer(session, DeclareNst(nsts, "asked for")).code == "CT-GATE-S-010"
    lxe = ProposeLxe(("F401",), ("b.py",), 1, "kept for later")
    asked = core.answer(session, lxe)
    assert asked.code == "CT-GATE-I-005", asked.code
    core.decide_approval(str(asked.data["approval_id"]), approve=True)
    granted = core.answer(session, lxe)
    assert granted.code == "CT-GATE-S-011", granted.code
    return str(granted.data["lxe_id"])


def test_an_lxe_and_the_ruleset_carry_to_a_renewal_and_the_lxe_file_is_no_work_of_the_agent(tmp_path: Path):
    clock = FakeClock()
    core, session, contract_id = opened(tmp_path, clock)
    lxe_id = excused(core, session)
    for _ in range(2):  # a renewal of a renewal: the line goes back to the first contract
        clock.advance(minutes=61)
        renewed = core.answer(session, Renew(contract_id, 60))
        assert renewed.code.startswith("CT-GATE-S"), renewed.code
        contract_id = str(renewed.data["contract_id"])

    closed = core.answer(session, Close())

    assert closed.code == "CT-GATE-S-002", closed.code
    evidence = json.loads(core.services.evidence.document("close", str(renewed.data["contract_id"])) or "{}")
    assert evidence["compliance"]["lxes"] == [lxe_id]
    assert evidence["compliance"]["recorded_ruleset_hash"] == evidence["compliance"]["ruleset_hash"]
    assert [n["name"] for n in evidence["compliance"]["nsts"]] == ["greet", "craven", "my_value"]


def test_an_lxe_no_longer_excuses_a_finding_eight_hours_after_its_approval(tmp_path: Path):
    clock = FakeClock()
    core, session, contract_id = opened(tmp_path, clock, ttl=300)
    excused(core, session)
    clock.advance(hours=5, minutes=1)
    renewed = core.answer(session, Renew(contract_id, 240))
    assert renewed.code.startswith("CT-GATE-S"), renewed.code
    clock.advance(hours=3)

    refused = core.answer(session, Close())

    assert refused.code == "CT-GATE-I-010"
    assert thaw(refused.data["over"]) == [
        {"rule": "F401", "path": "ROOT_REPO:/b.py", "found": 1, "excused": 0}
    ]


def test_a_ruleset_changed_before_a_renewal_still_makes_its_close_invalid(tmp_path: Path):
    clock = FakeClock()
    core, session, contract_id = opened(tmp_path, clock)
    excused(core, session)
    (tmp_path / "state" / "lint-ruleset.json").write_text(json.dumps({"select": ["E9"]}), encoding="utf-8")
    clock.advance(minutes=61)
    assert core.answer(session, Renew(contract_id, 60)).code.startswith("CT-GATE-S")

    refused = core.answer(session, Close())

    assert refused.code == "CT-GATE-I-011"
    recorded = json.loads(core.services.evidence.document("ruleset", contract_id) or "{}")
    assert recorded["ruleset"]["python"]["select"] == ["E9", "F"]
