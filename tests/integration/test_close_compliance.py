"""Compliance refusals at close (law Phase 1.5; SPEC §14) on a real repository: new symbols without NSTs,
lint findings beyond live LXEs and a ruleset changed since open each keep the contract open with an
Invalid that names what is wrong, a page at a time within the reply budget, with the ready call that
declares the page; each refusal is kept as evidence, and compliance that cannot be assessed is an Error."""

import json
from pathlib import Path
from typing import Any

from app.bootstrap import state_folder
from domain.compliance.tokens import EVERY_SYMBOL
from domain.replies import budget
from domain.replies.builder import Reply
from ports.errors import Unavailable
from tests.integration.repo_work import Work, committed


def plain(reply: Reply) -> dict[str, Any]:
    return dict(json.loads(json.dumps(reply.data)))


def functions(names: list[str]) -> str:
    return "".join(f"def {name}():\n    return 1\n\n\n" for name in names)


def served(tmp_path: Path, *, budget_kib: int = 32) -> Work:
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    return Work(tmp_path, repo, budget_kib=budget_kib)


def test_new_symbols_are_named_and_the_nst_call_declares_a_file_of_many_as_a_whole(tmp_path: Path):
    work = served(tmp_path)
    session = work.session()
    ten = [f"ten_{n:02}" for n in range(10)]
    eleven = [f"eleven_{n:02}" for n in range(11)]
    targets = (("src/a.py", "modify"), ("src/ten.py", "add"), ("src/eleven.py", "add"))
    contract_id = work.open(session, *targets).data["contract_id"]
    work.write(session, "src/a.py", "a = 1\n\n\ndef greet():\n    return a\n")
    work.write(session, "src/ten.py", functions(ten))
    work.write(session, "src/eleven.py", functions(eleven))

    refused = work.close(session)

    uncovered = [
        {"name": "greet", "address": "ROOT_REPO:/src/a.py"},
        *({"name": name, "address": "ROOT_REPO:/src/eleven.py"} for name in eleven),
        *({"name": name, "address": "ROOT_REPO:/src/ten.py"} for name in ten),
    ]
    assert refused.code == "CT-GATE-I-009"
    assert plain(refused) == {
        "contract_id": contract_id,
        "uncovered": uncovered,
        "count": 22,
        "request": {
            "tool": "ck3_token",
            "arguments": {
                "command": "nst",
                "contract_id": contract_id,
                "symbols": [
                    {"name": EVERY_SYMBOL, "path": "ROOT_REPO:/src/eleven.py"},  # more than ten: the file
                    {"name": "greet", "path": "ROOT_REPO:/src/a.py"},
                    *({"name": name, "path": "ROOT_REPO:/src/ten.py"} for name in ten),
                ],
                "reason": "<why these symbols are intended>",
            },
        },
        "next_cursor": None,
    }
    kept = json.loads(work.evidence("close-refused", contract_id))
    assert work.evidence("close-refused", contract_id) == json.dumps(kept, indent=1)
    assert kept["contract_id"] == contract_id
    assert [c["address"] for c in kept["changes"]] == [
        f"ROOT_REPO:/src/{n}" for n in ("a.py", "eleven.py", "ten.py")
    ]
    assert (kept["compliance"]["outcome"], kept["compliance"]["uncovered"]) == ("symbols", uncovered)
    arguments = {k: v for k, v in plain(refused)["request"]["arguments"].items() if k != "command"}
    declared = work.call(session, "ck3_token", "nst", **{**arguments, "reason": "asked for"})
    assert declared.code == "CT-GATE-S-010"
    assert work.close(session).code == "CT-GATE-S-002"


def test_new_symbols_are_shown_half_a_reply_at_a_time_with_the_nst_call_for_that_half(tmp_path: Path):
    work = served(tmp_path, budget_kib=4)
    session = work.session()
    names = [f"symbol_{n:03}" for n in range(60)]
    contract_id = work.open(session, ("src/many.py", "add")).data["contract_id"]
    work.write(session, "src/many.py", functions(names))
    uncovered = [{"name": name, "address": "ROOT_REPO:/src/many.py"} for name in names]

    first = work.close(session)
    second = work.close(session, cursor=first.data["next_cursor"])

    half = budget.room(work.core.services.budget) // 2
    shown = budget.rows_fitting(uncovered, half)
    assert 0 < shown < budget.rows_fitting(uncovered, half * 2) < 60
    assert plain(first)["uncovered"] == uncovered[:shown]
    assert (first.data["count"], first.data["next_cursor"], first.data["contract_id"]) == (
        60,
        str(shown),
        contract_id,
    )
    assert plain(first)["request"]["arguments"]["symbols"] == [
        {"name": EVERY_SYMBOL, "path": "ROOT_REPO:/src/many.py"}
    ]
    more = budget.rows_fitting(uncovered[shown:], half)
    assert plain(second)["uncovered"] == uncovered[shown : shown + more]


def test_a_lint_finding_beyond_the_live_lxes_is_counted_per_rule_and_file_and_listed(tmp_path: Path):
    work = served(tmp_path)
    session = work.session()
    contract_id = work.open(session, ("src/lint.py", "add")).data["contract_id"]
    work.write(session, "src/lint.py", "import os\nimport sys\n")

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-010"
    assert plain(refused) == {
        "contract_id": contract_id,
        "over": [{"rule": "F401", "path": "ROOT_REPO:/src/lint.py", "found": 2, "excused": 0}],
        "over_count": 1,
        "findings": [
            {
                "rule": "F401",
                "path": "ROOT_REPO:/src/lint.py",
                "line": 1,
                "message": "`os` imported but unused",
            },
            {
                "rule": "F401",
                "path": "ROOT_REPO:/src/lint.py",
                "line": 2,
                "message": "`sys` imported but unused",
            },
        ],
        "count": 2,
        "next_cursor": None,
        "fixes": [],  # no write mends an unused import
        "lxe": {
            "tool": "ck3_token",
            "arguments": {
                "command": "lxe",
                "contract_id": contract_id,
                "rules": ["F401"],
                "paths": ["ROOT_REPO:/src/lint.py"],
                "max_violations": 2,
                "reason": "<why these findings are intended>",
            },
        },
        "request": plain(refused)["lxe"],  # the call that would let the close succeed, as in every refusal
    }
    assert json.loads(work.evidence("close-refused", contract_id))["compliance"]["outcome"] == "lint"


def test_lint_refusals_show_what_exceeds_in_a_third_of_the_reply_and_a_page_of_findings_in_the_rest(
    tmp_path: Path,
):
    work = served(tmp_path, budget_kib=4)
    session = work.session()
    files = [f"src/lint_{n:02}.py" for n in range(24)]
    work.open(session, *((name, "add") for name in files))
    for name in files:
        work.write(session, name, "import os\n")

    first = work.close(session)
    second = work.close(session, cursor=first.data["next_cursor"])

    over = [{"rule": "F401", "path": f"ROOT_REPO:/{name}", "found": 1, "excused": 0} for name in files]
    message = "`os` imported but unused"
    findings = [
        {"rule": "F401", "path": f"ROOT_REPO:/{name}", "line": 1, "message": message} for name in files
    ]
    space = budget.room(work.core.services.budget)
    shown_over = over[: budget.rows_fitting(over, space // 3)]
    ways = {
        "fixes": plain(first)["fixes"],
        "lxe": plain(first)["lxe"],
    }  # the ready calls come before the page
    request = budget.cost(plain(first)["request"])  # the LXE call again, as data.request
    shown = budget.rows_fitting(findings, space - budget.cost(shown_over) - budget.cost(ways) - request)
    assert len(shown_over) < budget.rows_fitting(over, space // 2)
    assert shown < budget.rows_fitting(findings, space) < 24
    assert (plain(first)["over"], first.data["over_count"]) == (shown_over, 24)
    assert (plain(first)["findings"], first.data["count"], first.data["next_cursor"]) == (
        findings[:shown],
        24,
        str(shown),
    )
    assert plain(second)["findings"][0] == findings[shown]


def test_a_ruleset_changed_since_open_is_refused_naming_the_recorded_and_the_current_ruleset(tmp_path: Path):
    work = served(tmp_path)
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    ruleset = state_folder(work.settings) / "lint-ruleset.json"
    ruleset.parent.mkdir(parents=True, exist_ok=True)
    ruleset.write_text(json.dumps({"select": ["E9"]}), encoding="utf-8")

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-011"
    kept = json.loads(work.evidence("close-refused", contract_id))["compliance"]
    assert plain(refused) == {
        "contract_id": contract_id,
        "recorded": kept["recorded_ruleset_hash"],
        "current": kept["ruleset_hash"],
    }
    assert kept["recorded_ruleset_hash"] != kept["ruleset_hash"]
    assert kept["outcome"] == "ruleset"


def test_compliance_that_cannot_be_assessed_is_an_error_and_the_contract_stays_open(tmp_path: Path):
    work = served(tmp_path)
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    linter = work.core.services.linter

    class Failing:
        def __getattr__(self, name: str) -> Any:
            def failing(*args: object, **kwargs: object) -> object:
                raise Unavailable("injected: the linter cannot run")

            return failing if hasattr(linter, name) else getattr(linter, name)

    work.with_services(linter=Failing())

    failed = work.close(session)

    assert failed.code == "CT-GATE-E-003"
    assert plain(failed) == {"contract_id": contract_id}
    assert work.state.contracts.get(contract_id).status == "open"  # type: ignore[union-attr]


def test_a_refusal_whose_evidence_cannot_be_kept_still_stands(tmp_path: Path):
    work = served(tmp_path)
    session = work.session()
    contract_id = work.open(session, ("src/lint.py", "add")).data["contract_id"]
    work.write(session, "src/lint.py", "import os\n")
    put = work.state.evidence.put

    def failing(what: str, name: str, text: str) -> str:
        if what == "close-refused":
            raise Unavailable("injected: the store failed here")
        return put(what, name, text)

    work.state.evidence.put = failing  # type: ignore[method-assign]

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-010"
    assert refused.data["contract_id"] == contract_id
    assert work.state.evidence.document("close-refused", contract_id) is None


def test_a_finding_an_approved_lxe_excuses_closes_and_the_lxe_file_the_server_wrote_is_no_work(
    tmp_path: Path,
):
    work = served(tmp_path)
    session = work.session()
    contract_id = work.open(session, ("src/lint.py", "add")).data["contract_id"]
    work.write(session, "src/lint.py", "import os\n")
    lxe = {"rules": ["F401"], "paths": ["src/lint.py"], "max_violations": 1, "reason": "kept for later"}
    asked = work.call(session, "ck3_token", "lxe", **lxe)
    work.core.decide_approval(asked.data["approval_id"], approve=True)
    granted = work.call(session, "ck3_token", "lxe", **lxe)
    assert granted.code == "CT-GATE-S-011"
    assert (work.root / "policy" / "tokens" / f"{granted.data['lxe_id']}.json").is_file()

    closed = work.close(session)

    assert closed.code == "CT-GATE-S-002", dict(closed.data)
    assert [c["address"] for c in plain(closed)["changes"]] == ["ROOT_REPO:/src/lint.py"]
    assert json.loads(work.evidence("close", contract_id))["compliance"]["lxes"] == [granted.data["lxe_id"]]
