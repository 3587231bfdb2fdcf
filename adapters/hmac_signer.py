"""HMAC-SHA256 Sigil: a 32-byte key made when the signer is made, held in memory only.

The key never leaves this object: not on disk, not in a log or reply, not in any environment (the repr
hides it). A new process makes a new key, so every earlier signature stops verifying.
"""

import hashlib
import hmac
import secrets

from ports.signer import Signer

_HEX_LENGTH = 64
_HEX = frozenset("0123456789abcdef")


class HmacSigner(Signer):
    """Sign and verify with HMAC-SHA256 under a fresh random key."""

    __slots__ = ("__key",)

    def __init__(self, key: bytes | None = None) -> None:
        self.__key = key if key is not None else secrets.token_bytes(32)
        if len(self.__key) < 32:  # noqa: PLR2004 - the key size SPEC §7 fixes
            raise ValueError("a Sigil key has 32 bytes at least")

    def __repr__(self) -> str:
        return "HmacSigner(<key withheld>)"

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a signer cannot be pickled")

    def sign(self, payload: bytes) -> str:
        return hmac.new(self.__key, payload, hashlib.sha256).hexdigest()

    def verify(self, payload: bytes, signature: str) -> bool:
        if not isinstance(signature, str) or len(signature) != _HEX_LENGTH or not _HEX.issuperset(signature):
            return False
        return hmac.compare_digest(self.sign(payload), signature)
