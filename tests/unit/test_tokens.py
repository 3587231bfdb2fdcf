"""Compliance tokens never stand in for a Sigil signature or a human approval, nor the reverse (law §11.5)."""

import json
from datetime import UTC, datetime, timedelta

import attrs
import pytest

from adapters.hmac_signer import HmacSigner
from domain.compliance import tokens
from domain.compliance.tokens import Lxe, Nst

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LXE = Lxe(
    "lxe-1",
    "ct-1",
    ("F401",),
    ("ROOT_REPO:/b.py",),
    1,
    "later",
    "ap-1",
    NOW.isoformat(),
    (NOW + tokens.LXE_TTL).isoformat(),
)


def test_an_lxe_payload_is_no_contract_mode_or_approval_payload():
    payloads = [tokens.lxe_payload(LXE), tokens.nst_payload("ct-1", [Nst("f", None, "why")])]

    assert all(not p.startswith((b"contract:", b"mode-init:", b"approval")) for p in payloads)
    assert payloads[0].startswith(b"lxe:")
    assert payloads[1].startswith(b"nst:")


def test_a_contract_signature_does_not_make_an_lxe_file_verify():
    signer = HmacSigner()
    document = tokens.lxe_document(LXE, signer).decode()
    contract_signature = signer.sign(b"contract:ct-1|2030-01-01T00:00:00+00:00|" + b"0" * 64)
    forged = document.replace(document.split('"signature": "')[1].split('"')[0], contract_signature)

    assert tokens.lxe_from(forged.encode(), signer) is None


def test_an_lxe_signature_does_not_verify_a_contract_payload():
    signer = HmacSigner()
    signature = signer.sign(tokens.lxe_payload(LXE))

    assert not signer.verify(b"contract:ct-1|" + NOW.isoformat().encode(), signature)


def test_an_lxe_signed_by_another_server_counts_for_nothing():
    assert tokens.lxe_from(tokens.lxe_document(LXE, HmacSigner()), HmacSigner()) is None


def test_an_lxe_counts_for_its_contract_and_renewals_until_eight_hours_pass():
    assert tokens.live(LXE, {"ct-2", "ct-1"}, NOW + timedelta(hours=7, minutes=59))
    assert not tokens.live(LXE, {"ct-1"}, NOW + timedelta(hours=8))
    assert not tokens.live(LXE, {"ct-3"}, NOW)


def test_exceptions_of_the_same_rule_and_path_add_up():
    other = Lxe(
        "lxe-2",
        "ct-1",
        ("F401", "E999"),
        ("ROOT_REPO:/b.py",),
        2,
        "x",
        "ap-2",
        LXE.approved_at,
        LXE.expires_at,
    )

    assert tokens.allowance([LXE, other]) == {("F401", "ROOT_REPO:/b.py"): 3, ("E999", "ROOT_REPO:/b.py"): 2}


def test_an_lxe_file_is_a_field_a_line_for_review_in_history_and_reads_back_as_the_same_lxe():
    signer = HmacSigner()
    document = tokens.lxe_document(LXE, signer)

    assert tokens.lxe_from(document, signer) == LXE
    assert document.startswith(b'{\n "lxe_id": "lxe-1",\n "contract_id": "ct-1",\n')
    assert document.endswith(b'"\n}\n')


def test_an_lxe_file_with_any_field_changed_counts_for_nothing():
    signer = HmacSigner()
    written = json.loads(tokens.lxe_document(LXE, signer))
    changes = {
        "lxe_id": "lxe-9",
        "contract_id": "ct-9",
        "rules": ["E999"],
        "paths": ["ROOT_REPO:/c.py"],
        "max_violations": 9,
        "reason": "other",
        "approval_id": "ap-9",
        "approved_at": NOW.replace(year=2031).isoformat(),
        "expires_at": NOW.replace(year=2031).isoformat(),
    }

    for field, value in changes.items():
        edited = json.dumps({**written, field: value}).encode()
        assert tokens.lxe_from(edited, signer) is None, field


FIELDS = {**LXE.body(), "signature": "s"}


@pytest.mark.parametrize(
    "document",
    [
        b"\xff",
        b"not json",
        b"[]",
        b'{"lxe_id": "lxe-1"}',
        json.dumps({**FIELDS, "rules": 1}).encode(),
        json.dumps({**FIELDS, "max_violations": "many"}).encode(),
    ],
)
def test_a_token_file_that_is_no_lxe_counts_for_nothing(document: bytes):
    assert tokens.lxe_from(document, HmacSigner()) is None


def test_each_tokens_payload_covers_what_it_declares():
    removal = tokens.Removal("brave", "trait", "ROOT_REPO:/common/traits/a.txt")
    other = Lxe(*[*attrs.astuple(LXE)[:3], ("ROOT_REPO:/c.py",), *attrs.astuple(LXE)[4:]])

    assert tokens.nst_payload("ct-1", [Nst("f", None, "why")]) != tokens.nst_payload(
        "ct-1", [Nst("g", None, "why")]
    )
    assert tokens.removal_payload("ct-1", [removal]) != tokens.removal_payload(
        "ct-1", [attrs.evolve(removal, key="craven")]
    )
    assert tokens.lxe_payload(LXE) != tokens.lxe_payload(other)
