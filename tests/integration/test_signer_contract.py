"""The Signer port contract, for the fake and the HMAC signer alike; and the HMAC key's hygiene."""

import copy
import pickle

import pytest

from adapters.hmac_signer import HmacSigner
from ports.signer import Signer
from tests.fakes import FakeSigner


@pytest.fixture(params=["fake", "hmac"])
def signer(request: pytest.FixtureRequest) -> Signer:
    return FakeSigner() if request.param == "fake" else HmacSigner()


def test_a_signature_verifies_for_its_payload(signer: Signer):
    assert signer.verify(b"contract:c-1|2026", signer.sign(b"contract:c-1|2026"))


def test_a_changed_payload_does_not_verify(signer: Signer):
    assert not signer.verify(b"contract:c-2|2026", signer.sign(b"contract:c-1|2026"))


@pytest.mark.parametrize("bad", ["", "zz", "0" * 63, "0" * 65, "g" * 64, "é" * 64, "A" * 64])
def test_a_malformed_signature_simply_does_not_verify(signer: Signer, bad: str):
    assert signer.verify(b"x", bad) is False


def test_another_session_cannot_verify_this_sessions_signatures():
    assert not HmacSigner().verify(b"x", HmacSigner().sign(b"x"))


def test_the_key_is_not_shown_by_repr_or_copied_by_pickle():
    signer = HmacSigner(b"k" * 32)

    assert "k" * 8 not in repr(signer)
    with pytest.raises(TypeError):
        pickle.dumps(signer)
    with pytest.raises(TypeError):
        copy.deepcopy(signer)


def test_a_short_key_is_refused():
    with pytest.raises(ValueError, match="32 bytes"):
        HmacSigner(b"short")
