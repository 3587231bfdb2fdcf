"""Port: an external validator of CK3 mods (ck3-tiger), run on one mod of the playset, bounded in time.

The mod is named by its folder in root form (`ROOT_USER_DOCS:/mod/Local Fix`); what it reports names files
by their path below that folder, `/`-separated, never a host path (a report about a file outside the mod,
the game's own included, names it with `path` empty)."""

from typing import Final, Protocol

from attrs import frozen

RAN: Final = "ran"
ABSENT: Final = "absent"
TIMEOUT: Final = "timeout"
FAILED: Final = "failed"


@frozen
class Reported:
    """One report: the validator's key for it, its severity, the file (below the mod folder, "" outside
    it), the line (0: none), what it says."""

    key: str
    severity: str
    path: str
    line: int
    message: str


@frozen
class Run:
    """How a run went (`ran`, `absent`: the validator is not installed, `timeout`, `failed`), what it
    reported, and a short detail for the evidence (never a host path)."""

    status: str
    reported: tuple[Reported, ...] = ()
    detail: str = ""


class ExternalValidator(Protocol):
    """Port: runs the validator on one mod folder within `seconds`; never raises (a fault is a Run)."""

    name: str

    def run(self, mod: str, seconds: float) -> Run: ...
