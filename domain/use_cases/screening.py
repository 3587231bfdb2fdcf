"""Arguments that name something — an address, a glob, a root category, a playset or a mod, a cursor, a
contract, a key, a kind, a language, a symbol's name and kind — are screened before any handler sees them:
one that carries a host path, or is not of its form (`domain.names`), is Invalid, and the reply names the
argument and the form it takes, never the value (a reply that repeated it would be withheld as a leak, an
Error for what is the caller's mistake). A token's `reason` is kept and shown again: it carries no host path
either.

Addresses are left to the address grammar for their host forms (it refuses them with its own code); here
they are held only to the leak gate, which sets a canonical address aside. Content (file text, old and new
strings, search patterns, commit messages) is never screened: it is used as given.
"""

from collections.abc import Mapping
from typing import Final

from domain import names
from domain.addresses import host_form
from domain.leaks import LeakGate
from domain.replies.refusal import Refused

FORMS: Final = {
    "path": "an address: ROOT_X:/rel/path, mod:<Name>:/rel/path or a path relative to the home",
    "paths": "addresses: ROOT_X:/rel/path, mod:<Name>:/rel/path or paths relative to the home",
    "targets": "targets whose path is an address: ROOT_X:/rel/path or mod:<Name>:/rel/path",
    "symbols": "symbols whose path is an address: ROOT_X:/rel/path or mod:<Name>:/rel/path",
    "glob": "a glob below the folder searched, e.g. *.txt or common/**/*.yml",
    "root_category": "a root category such as ROOT_GAME (ck3_mode status lists them)",
    "name": "a playset's or a mod's name as ck3_playset list or show gives it",
    "cursor": "the next_cursor of the reply before",
    "contract_id": "a contract id as ck3_contract list gives it",
    "key": "a key of the game's script or localisation, e.g. brave or trait_brave (no spaces)",
    "kind": "a kind of definition, e.g. traits, event or localisation",
    "language": "a language the game reads, e.g. french",
    "reason": "why, in words",
}
"""The form each screened argument takes, as the refusal states it."""
NAMES: Final = frozenset(
    {"glob", "root_category", "name", "cursor", "contract_id", "key", "kind", "language", "reason"}
)
"""Arguments that are never a host path in any form: one starting like a host path is refused outright."""
SYMBOL: Final = (
    "each symbol's name a key or a name of the code, e.g. brave or greet (no spaces), and its kind one "
    "such as traits"
)


def host_named(leaks: LeakGate, args: Mapping[str, object], *, relative: frozenset[str]) -> None:
    """Raises Refused (Invalid) naming every screened argument that carries a host path, or is not of its
    form. `relative`: the other arguments of this command that are never absolute either (a game-relative
    path)."""
    errors = [
        {"field": name, "problem": f"names a host path; give {FORMS[name]}"}
        for name, value in sorted(args.items())
        if name in FORMS and _carries(leaks, value, starts=name in NAMES or name in relative)
    ]
    hosted = {error["field"] for error in errors}
    errors += [
        {"field": name, "problem": f"is not of its form; give {FORMS[name]}"}
        for name, value in sorted(args.items())
        if name in names.FORMED and name not in hosted and isinstance(value, str)
        if not names.FORMED[name](value)
    ]
    if "symbols" not in hosted and not all(_symbol(leaks, item) for item in _items(args.get("symbols"))):
        errors.append({"field": "symbols", "problem": f"give {SYMBOL}"})
    if errors:
        raise Refused.invalid("MCP-VAL-I-001", {"errors": errors})


def _items(value: object) -> list[Mapping[str, object]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list | tuple) else []


def _symbol(leaks: LeakGate, item: Mapping[str, object]) -> bool:
    """Whether a symbol's name and kind (where given) are of their forms, a host path in neither."""
    name, kind = item.get("name"), item.get("kind")
    named = not isinstance(name, str) or names.passes(leaks, "key", name)
    return named and (not isinstance(kind, str) or names.passes(leaks, "kind", kind))


def _carries(leaks: LeakGate, value: object, *, starts: bool) -> bool:
    if isinstance(value, str):
        if host_form(value):  # an address that starts like a host path is the address grammar's to refuse
            return starts
        return bool(leaks.findings(value))
    if isinstance(value, Mapping):
        return _carries(leaks, value.get("path"), starts=False)
    if isinstance(value, list | tuple):
        return any(_carries(leaks, item, starts=starts) for item in value)
    return False
