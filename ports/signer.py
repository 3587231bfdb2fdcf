"""Port: the session's signing substrate (Sigil, law §11.1): sign and verify byte payloads."""

from typing import Protocol


class Signer(Protocol):
    """Port: signatures that only this server process can make.

    `verify` answers False (never raises) for anything but a signature this signer made over exactly
    `payload`: a malformed signature (wrong length, not hex, not ASCII) simply does not verify."""

    def sign(self, payload: bytes) -> str:
        """A hex signature over `payload`."""
        ...

    def verify(self, payload: bytes, signature: str) -> bool:
        """Whether `signature` is this signer's signature over `payload`."""
        ...
