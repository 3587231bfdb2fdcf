"""`ck3raven playsets import`: the launcher's playsets written as ck3raven playsets (operator command).

The launcher database is read-only to ck3raven; the playsets land in `ROOT_CK3RAVEN_DATA:/playsets/`, one
file per playset (a playset of the same name is replaced in its own file). The operator runs this, so it
needs no contract; a running server's sessions see the files at their next playset list or switch.
"""

from adapters.json_playsets import JsonPlaysets
from adapters.launcher_db import SqliteLauncher
from adapters.local_files import LocalFiles
from app.config import Settings
from domain.ck3.launcher_import import Imported, imported
from domain.vocabulary import RootCategory
from ports.errors import PortError


def import_playsets(settings: Settings, only: str | None) -> tuple[list[str], int, str | None]:
    """Lines to print, the exit status (0 when every chosen playset was written, 1 when one could not be,
    2 when nothing could be read), and the name the launcher's active playset was written under (None:
    none was, or the launcher has none active)."""
    if RootCategory.ROOT_CK3RAVEN_DATA not in settings.roots:
        return ["ck3raven: ROOT_CK3RAVEN_DATA is not configured: playsets have nowhere to go"], 2, None
    roots = {root.value: path for root, path in settings.roots.items()}
    files = LocalFiles(roots)
    try:
        state = SqliteLauncher(roots, files).read()
    except PortError as exc:
        return [f"ck3raven: {exc}"], 2, None
    if state is None:
        return ["ck3raven: no launcher-v2.sqlite in ROOT_USER_DOCS"], 2, None
    chosen = [p for p in state.playsets if only is None or p.name == only]
    if not chosen:
        names = ", ".join(p.name for p in state.playsets) or "none"
        return [f"ck3raven: the launcher has no playset {only!r} (it has: {names})"], 2, None
    store, lines = JsonPlaysets(files), [f"launcher schema: {state.schema}"]
    results = [(playset, imported(playset)) for playset in chosen]
    written = [_one(store, result, lines) for _, result in results]
    active = next(
        (
            result.record.name
            for (playset, result), ok in zip(results, written, strict=True)
            if ok and playset.active
        ),
        None,
    )
    return lines, 0 if all(written) else 1, active


def _one(store: JsonPlaysets, result: Imported, lines: list[str]) -> bool:
    """Save one imported playset, saying what happened; whether it was written."""
    name = result.record.name
    lines += [f"  renamed {a!r} -> {b!r} (':' and '/' cannot be in an address)" for a, b in result.renamed]
    lines += [f"  left out {mod!r}: its folder lies in no configured root" for mod in result.left_out]
    if result.problems:
        lines.append(f"not written: {name!r}: " + "; ".join(f"{w} {p}" for w, p in result.problems))
        return False
    try:
        file = store.save(result.record)
    except PortError as exc:
        lines.append(f"not written: {name!r}: {exc}")
        return False
    count = len(result.record.mods)
    lines.append(
        f"wrote {name!r} ({count} mod{'' if count == 1 else 's'}) to ROOT_CK3RAVEN_DATA:/playsets/{file}"
    )
    return True
