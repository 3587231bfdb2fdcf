"""What close reads back from the state store about a contract: its NSTs and removal tokens, each only
while their signature holds (and of NSTs only those naming a root or a mod, so no stored record can make a
reply fail); a record of another shape counts for nothing and never fails the reply."""

import json
from pathlib import Path

import pytest

from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from app.config import Settings
from domain.compliance import closeout, tokens
from domain.services import Services
from domain.vocabulary import Mode, RootCategory


def services(base: Path) -> Services:
    repo = base / "repo"
    repo.mkdir()
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: repo},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=base / "state",
    )
    return build_core(settings, stored=MemoryState()).services


def test_a_genuine_stored_nst_counts_only_with_no_address_or_one_naming_its_root_or_mod(tmp_path: Path):
    kept = services(tmp_path)
    addresses = [
        None,
        "ROOT_REPO:/src/a.py",
        "mod:Local Fix:/common/x.txt",
        "src/a.py",
        "/etc/passwd",
        "",
        "ROOT_REPO:/src/../a.py",
    ]
    stored = [tokens.Nst(f"s{n}", address, "r") for n, address in enumerate(addresses)]
    stored.append(tokens.Nst("t", None, "r"))
    signature = kept.authority.signer.sign(tokens.nst_payload("ct-1", stored))
    nsts = [{"name": n.name, "address": n.address, "reason": n.reason} for n in stored[:-1]]
    document = {"nsts": [*nsts, {"name": "t", "reason": "r"}], "signature": signature}
    kept.evidence.put("nst", "ct-1", json.dumps(document))

    assert closeout.nsts_of(kept, "ct-1") == [
        tokens.Nst("s0", None, "r"),
        tokens.Nst("s1", "ROOT_REPO:/src/a.py", "r"),
        tokens.Nst("s2", "mod:Local Fix:/common/x.txt", "r"),
        tokens.Nst("t", None, "r"),
    ]
    assert closeout.nsts_of(kept, "ct-2") == []


def test_removal_tokens_count_while_their_signature_holds_and_for_their_contract_only(tmp_path: Path):
    kept = services(tmp_path)
    declared = [tokens.Removal("brave", "traits", "ROOT_REPO:/common/traits/a.txt")]
    signature = kept.authority.signer.sign(tokens.removal_payload("ct-1", declared))
    rows = [{"key": "brave", "kind": "traits", "address": "ROOT_REPO:/common/traits/a.txt"}]
    kept.evidence.put("removal", "ct-1", json.dumps({"removals": rows, "signature": signature}))
    edited = [{**rows[0], "key": "craven"}]
    kept.evidence.put("removal", "ct-2", json.dumps({"removals": edited, "signature": signature}))
    kept.evidence.put("removal", "ct-3", json.dumps({"removals": rows, "signature": signature}))

    assert closeout.removals_of(kept, "ct-1") == declared
    assert closeout.removals_of(kept, "ct-2") == []
    assert closeout.removals_of(kept, "ct-3") == []
    assert closeout.removals_of(kept, "ct-4") == []


@pytest.mark.parametrize(
    "stored",
    [
        "not json",
        "[]",
        '{"nsts": [{"name": 1, "reason": "r"}], "signature": "s"}',
        '{"nsts": {}, "signature": "s"}',
        '{"nsts": [], "signature": 5}',
        '{"nsts": [["brave", null, "r"]], "signature": "s"}',
        '{"nsts": [{"name": "brave", "address": 3, "reason": "r"}], "signature": "s"}',
        '{"removals": [{"key": "brave", "kind": "traits"}], "signature": "s"}',
    ],
)
def test_a_token_record_of_another_shape_counts_for_nothing_and_raises_nothing(tmp_path: Path, stored: str):
    kept = services(tmp_path)
    kept.evidence.put("nst", "ct-1", stored)
    kept.evidence.put("removal", "ct-1", stored)

    assert closeout.nsts_of(kept, "ct-1") == []
    assert closeout.removals_of(kept, "ct-1") == []
