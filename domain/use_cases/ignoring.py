"""Which entries a listing, tree or search leaves out by default: git's own data (`.git`) and what the
repository holding the folder ignores (its `.gitignore` files, `.git/info/exclude`, the user's excludes
file). A call asks for everything with `include_ignored`; hidden and invisible entries stay out either way.

The rules are the repository's ignore patterns only: a tracked file that a pattern matches is left out
too (git would still track it); folders outside any repository ignore nothing but `.git`.
"""

from typing import Final

from domain.services import Services
from domain.session import Session
from domain.world.visibility import VisibilityRef
from domain.world.walks import NamedSkip, Skip
from ports.errors import PortError
from ports.files import Kind

GIT: Final = NamedSkip(frozenset({".git"}))


def skip_for(
    session: Session, services: Services, ref: VisibilityRef, *, include_ignored: bool
) -> Skip | None:
    """The filter for a walk or listing below the folder behind `ref` (None: keep everything visible)."""
    if include_ignored:
        return None
    location = session.world.location_of(ref)
    try:
        rules = services.history.ignores(location.root, location.parts)
    except PortError:  # an unreadable repository ignores nothing
        rules = None
    if rules is None:  # nothing ignored below: git's own data alone is left out, by its name
        return GIT
    base = location.parts

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        if parts[-1] == ".git":
            return True
        return rules(base + parts, folder=kind == "dir")

    return skip
