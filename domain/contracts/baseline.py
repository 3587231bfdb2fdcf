"""The baseline a contract is bound to (SPEC §7): every git repository whose top lies inside its scope, with
its commit, and a manifest of the whole scope.

The scope is what the contract's mode sees of its root: in `ROOT_USER_DOCS` only the `mod/` folder (the
game's saves, logs and settings and the launcher's database are never in it), elsewhere the whole visible
root. The manifest records every entry below it (`.git` folders aside) with kind, size, `mtime_ns`,
`ctime_ns`, inode and a link's target text, and the content digest of every file that a stat cannot vouch
for: one modified in the two seconds before (git's racily-clean rule) and one a repository already shows
as changed at open. A file a repository tracks unchanged needs no digest: the repository holds its content.
The baseline set is stored as one canonical JSON document whose SHA-256 is the contract's `baseline_sha`,
so editing any of it in the store is seen, and a renewal shares the same document.
"""

import hashlib
import json
from bisect import bisect_left
from itertools import compress, repeat
from operator import ge, itemgetter
from typing import Final

from attrs import frozen

from domain.contracts import manifest_text
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from domain.world.visibility import VisibilityRef
from ports.errors import PortError, TooLarge
from ports.files import SURVEY_DEPTH, Kind, Stat

RACY_NS: Final = 2_000_000_000
"""A file modified this close to the manifest may change again within the same clock tick unseen."""
DIGEST_LIMIT: Final = 64 * 1024 * 1024
"""The largest file whose content is digested; a larger one is known by its stat only."""
USER_DOCS_SCOPE: Final = ("mod",)
KEPT: Final = 8
"""How many parsed baselines a server keeps (one per open contract, and a few more)."""
Row = tuple[str, int, int, int, int, str | None, str | None]
"""A manifest row: kind, size, mtime_ns, ctime_ns, inode, a link's target, a content digest."""
_COMPACT: Final = (",", ":")


class BaselineChanged(Exception):
    """The stored baseline no longer matches the digest the contract was signed with."""


class ScopeTooDeep(Exception):
    """Folders of the scope nest deeper than a survey goes: what lies below them cannot be compared."""

    PROBLEM: Final = (
        f"folders in its scope nest deeper than {SURVEY_DEPTH} levels, so no change below them could be seen"
    )


@frozen
class Baseline:
    """One root's baseline set: its repositories (top path, commit) and its manifest (path → row)."""

    root: str
    repositories: tuple[tuple[str, str | None], ...]
    manifest: dict[str, Row]

    def document(self, place: int | str | None = None) -> str:
        """The canonical JSON the baseline is stored as, and digested: `json.dumps` of root, repositories
        and manifest with sorted keys and no spaces, byte for byte, the rows' order and text taken from
        the last manifest of `place` where they did not move (domain.contracts.manifest_text): most of a
        scope is as it was at the last open, and encoding every row anew cost an open as much as the rest
        of it after the survey."""
        _, rows = manifest_text.ordered(self.manifest, place)
        repositories, root = json.dumps(self.repositories, separators=_COMPACT), json.dumps(self.root)
        return f'{{"manifest":{{{",".join(rows)}}},"repositories":{repositories},"root":{root}}}'

    def repository_of(self, path: str) -> tuple[str, str | None] | None:
        """The deepest repository (top, commit) holding `path`, if any."""
        holding = [(t, c) for t, c in self.repositories if not t or path == t or path.startswith(t + "/")]
        return max(holding, key=lambda held: len(held[0]), default=None)


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def parts_of(path: str) -> tuple[str, ...]:
    return tuple(path.split("/")) if path else ()


def survey(
    session: Session, root: str, named: tuple[str, ...] = ()
) -> tuple[dict[str, Row], list[str], list[str]]:
    """The scope of `root` as the session sees it now (path → row without digests, links by target), the
    tops of the repositories found in it (a `.git` folder), and the folders holding a `.git` file (a
    submodule, or a linked worktree: which, only the history can tell); `named`: paths of declared
    targets, in scope even where the scope's folders do not reach (the launcher registry). Raises
    PortError."""
    base = USER_DOCS_SCOPE if root == RootCategory.ROOT_USER_DOCS.value else ()
    try:
        manifest, tops, pointers = _walked(session, root, base)
        for path in named:
            target = parts_of(path)
            if target and target[: len(base)] != base:
                manifest.update(_one(session, root, target))
    except TooLarge as exc:
        raise ScopeTooDeep from exc
    return manifest, sorted(tops), sorted(pointers)


def _walked(
    session: Session, root: str, base: tuple[str, ...]
) -> tuple[dict[str, Row], list[str], list[str]]:
    """Every entry below the scope's folder (`.git` entries aside, noted as repository tops: a folder's,
    or a file's)."""
    manifest: dict[str, Row] = {}
    tops: list[str] = []
    pointers: list[str] = []

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        if parts[-1] != ".git":
            return False
        if kind in {"dir", "file"}:
            (tops if kind == "dir" else pointers).append("/".join(base + parts[:-1]))
        return True  # a repository's own data is the repository's business, never the work's

    ref = _folder(session, root, base)
    if ref is not None:
        manifest = session.world.survey_table(ref, skip, _SKIPPED)
    return manifest, tops, pointers


_SKIPPED: Final = frozenset({".git"})
"""The only name a survey of the scope refuses of its own (the view's hidden names aside)."""


def _one(session: Session, root: str, target: tuple[str, ...]) -> dict[str, Row]:
    """What stands at one path outside the scope's folders (and below it, for a folder)."""
    parent = _folder(session, root, target[:-1])
    if parent is None:
        return {}

    def other(parts: tuple[str, ...], _: Kind) -> bool:
        return parts[0] != target[-1]

    return {"/".join(parts): _row(found) for parts, found in session.world.survey(parent, other)}


def take(
    session: Session, services: Services, root: str, named: tuple[str, ...] = ()
) -> tuple[Baseline, dict[str, str]]:
    """The baseline of `root` now, and each change the repositories already show at open (path → kind).
    Raises PortError."""
    manifest, tops, pointers = survey(session, root, named)
    now_ns = int(services.authority.clock.now().timestamp() * 1_000_000_000)
    repositories = []
    dirty: dict[str, str] = {}
    tops = served(services, root, tops, pointers)
    owned = shares(manifest, tops, pointers)
    for top in tops:
        head, changed = repository_state(services, root, top, owned[top])
        repositories.append((top, head))
        dirty.update(changed)
    racy = now_ns - RACY_NS
    # files whose stat vouches for nothing (modified since `racy`, or shown changed): digested. The recent
    # ones are picked out by one pass the interpreter makes without a step of ours per entry
    recent = compress(manifest.keys(), map(ge, map(itemgetter(2), manifest.values()), repeat(racy)))
    suspects = dict.fromkeys([*recent, *(path for path in dirty if path in manifest)])
    unproved = [path for path in suspects if manifest[path][0] == "file" and manifest[path][6] is None]
    for path in unproved:
        manifest[path] = (*manifest[path][:6], content_digest(session, root, path))
    return Baseline(root, tuple(repositories), manifest), dirty


def served(services: Services, root: str, tops: list[str], pointers: list[str]) -> list[str]:
    """The tops of the repositories in the scope: every `.git` folder's, and each folder whose `.git` file
    the history serves as a repository of its own (a submodule's; a linked worktree's is none, and the
    manifest covers what lies below it). Raises PortError."""
    found = [top for top in pointers if services.history.repository(root, parts_of(top)) == parts_of(top)]
    return sorted([*tops, *found])


def shares(manifest: dict[str, Row], tops: list[str], pointers: list[str]) -> dict[str, dict[str, Row]]:
    """Each repository's own entries of the manifest (paths relative to its top): those below no deeper
    repository, nor below a folder holding a `.git` file that is none (a linked worktree's, which git
    leaves to itself as well). The entries below a folder are one run of the manifest's sorted paths: a
    repository's share is its run less the runs of the marks inside it, each run cut and stored by passes
    the interpreter makes without a step of ours per entry."""
    owned: dict[str, dict[str, Row]] = {top: {} for top in tops}
    if not tops:
        return owned
    paths = sorted(manifest)  # a sort is a fraction of comparing every row with a kept manifest's
    marks = sorted({*tops, *pointers})

    def run(mark: str) -> tuple[int, int]:  # every path below `mark`: from "mark/" up to "mark0"
        return (bisect_left(paths, mark + "/"), bisect_left(paths, mark + "0")) if mark else (0, len(paths))

    for top in tops:
        start, end = run(top)
        inner = sorted(run(mark) for mark in marks if mark != top and (not top or mark.startswith(top + "/")))
        cut, share = len(top) + 1 if top else 0, owned[top]
        for begins, ends in [*inner, (end, end)]:
            if begins > start:
                held = paths[start:begins]
                cut_paths = map(str.__getitem__, held, repeat(slice(cut, None))) if cut else held
                share.update(zip(cut_paths, map(manifest.__getitem__, held), strict=True))
            start = max(start, ends)
    return owned


def repository_state(
    services: Services, root: str, top: str, seen: dict[str, Row] | None = None
) -> tuple[str | None, dict[str, str]]:
    """A repository's HEAD and what it shows changed since (path → kind), from `seen` (the survey's rows
    of its own entries, just taken) where given; a repository that cannot be read (a broken or empty
    `.git`) is none: the manifest covers its files all the same."""
    try:
        head, changed = services.history.state(root, parts_of(top), seen)
    except PortError:
        return None, {}
    return head, {"/".join(change.parts): change.kind for change in changed}


def store(services: Services, baseline: Baseline) -> str:
    """Store the baseline; its digest (the contract's `baseline_sha`). Raises PortError."""
    document = baseline.document(id(services.evidence))
    sha = hashlib.sha256(document.encode()).hexdigest()
    services.evidence.put("baseline", sha, document)
    _kept(sha, baseline)  # what its document parses to: the close after this open reads no JSON
    return sha


_PARSED: dict[str, Baseline] = {}
"""Baselines stored or read before, by digest: a stored document that still hashes to its digest is the
same (a baseline taken is never changed once stored)."""


def load(services: Services, sha: str) -> Baseline:
    """The stored baseline `sha` names. Raises BaselineChanged when it is missing or was edited, PortError."""
    document = services.evidence.document("baseline", sha)
    if document is None or hashlib.sha256(document.encode()).hexdigest() != sha:
        raise BaselineChanged
    parsed = _PARSED.get(sha)
    if parsed is None:
        parsed = _kept(sha, _parsed(document))
    return parsed


def _kept(sha: str, baseline: Baseline) -> Baseline:
    if len(_PARSED) >= KEPT:
        _PARSED.clear()
    _PARSED[sha] = baseline
    return baseline


def _parsed(document: str) -> Baseline:
    data = json.loads(document)
    repositories = tuple((str(top), commit) for top, commit in data["repositories"])
    manifest: dict[str, Row] = {str(path): tuple(row) for path, row in data["manifest"].items()}
    return Baseline(str(data["root"]), repositories, manifest)


def content_digest(session: Session, root: str, path: str) -> str | None:
    """The SHA-256 of a file's content now (None: absent or unreadable as a regular file)."""
    content = read(session, root, path)
    return digest(content)


def read(session: Session, root: str, path: str) -> bytes | None:
    world = session.world
    ref = world.ref_or_none(world.address_of(root, parts_of(path)), RootCategory(root))
    if ref is None or ref.kind != "file":
        return None
    try:
        return world.read_file(ref, DIGEST_LIMIT)
    except PortError:  # gone since, too large, unreadable: nothing vouches for its content
        return None


def _row(found: Stat) -> Row:
    return (found.kind, found.size, found.mtime_ns, found.ctime_ns, found.inode, found.link, found.digest)


def _folder(session: Session, root: str, base: tuple[str, ...]) -> VisibilityRef | None:
    world = session.world
    ref = world.ref_or_none(world.address_of(root, base), RootCategory(root))
    return ref if ref is not None and ref.kind == "dir" else None
