"""A search never returns what a read would refuse: every hit is a visible, readable file or folder."""

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.memory_files import SPECIAL, Link, MemoryFiles
from adapters.re2_patterns import Re2Patterns
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases import file_access, search
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from tests.fakes import FakeClock
from tests.worlds import MODS

R = RootCategory
NAMES = ["a.txt", ".env", "id_rsa", "key.pem", "notes.md", "x.yml", "sub", ".git", "link", "fifo", "data.bin"]
CONTENT = b"needle in text\n"


class NoRepository:
    """History with no repository anywhere: nothing is ignored but `.git`."""

    def ignores(self, root: str, folder: tuple[str, ...] = ()) -> None:
        return None


def node(name: str, depth: int, draw: st.DrawFn) -> object:
    if name == "link":
        return Link("/etc/passwd")
    if name == "fifo":
        return SPECIAL
    if name == "data.bin":
        return b"needle\x00binary"
    if name in {"sub", ".git"} and depth < 3:
        return folder(depth + 1, draw)
    return CONTENT


def folder(depth: int, draw: st.DrawFn) -> dict[str, object]:
    chosen = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=6))
    return {name: node(name, depth, draw) for name in chosen}


@st.composite
def worlds(draw: st.DrawFn) -> dict[str, dict[str, object]]:
    return {
        "ROOT_GAME": folder(0, draw),
        "ROOT_REPO": folder(0, draw),
        "ROOT_STEAM": {"2217000001": folder(0, draw), "2217000099": folder(0, draw)},
        "ROOT_USER_DOCS": {"mod": {"LocalFix": folder(0, draw), "Other": folder(0, draw)}},
        "ROOT_CK3RAVEN_DATA": {"wip": folder(0, draw), "state": folder(0, draw)},
    }


def session_over(roots: dict[str, dict[str, object]], mode: Mode) -> tuple[Session, Services]:
    view = WorldView(mode, frozenset(R) - {R.ROOT_VSCODE}, MODS)
    world = WorldAdapter(MemoryFiles(roots), view)
    services = Services(
        None,
        None,
        None,
        None,
        NoRepository(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        Re2Patterns(),
        FakeClock(),
    )  # type: ignore[arg-type]
    return Session("s-1", R.ROOT_REPO, world, mode=mode), services


def readable(session: Session, services: Services, address: str) -> bool:
    try:
        reply = file_access.read(session, services, file_access.Read(address))
    except Refused:  # a use case raises its refusal; the core makes it the reply
        return False
    return reply.code == "WA-READ-S-003"


@settings(max_examples=60, deadline=None)
@given(worlds(), st.sampled_from([Mode.CK3LENS, Mode.CK3RAVEN_DEV]), st.booleans())
def test_every_content_hit_is_a_file_read_answers(roots, mode, include_ignored):
    session, services = session_over(roots, mode)

    reply = search.contents(
        session, services, search.SearchContents("needle", include_ignored=include_ignored)
    )

    assert reply.code == "WA-READ-S-008"
    for hit in reply.data["hits"]:
        assert readable(session, services, str(hit["address"])), hit


@settings(max_examples=60, deadline=None)
@given(worlds(), st.sampled_from([Mode.CK3LENS, Mode.CK3RAVEN_DEV]))
def test_every_name_found_resolves_and_every_file_found_reads(roots, mode):
    session, services = session_over(roots, mode)

    reply = search.names(session, services, search.SearchNames("**", limit=10_000))

    assert reply.code == "WA-READ-S-007"
    for match in reply.data["matches"]:
        address = str(match["address"])
        resolved, ref = session.world.resolve(address, session.home)
        assert ref is not None, (address, resolved.code)
        if match["kind"] == "file":
            assert readable(session, services, address) or address.endswith("data.bin"), address


@settings(max_examples=60, deadline=None)
@given(worlds(), st.sampled_from([Mode.CK3LENS, Mode.CK3RAVEN_DEV]))
def test_no_secret_name_and_no_git_folder_is_ever_found_by_default(roots, mode):
    session, services = session_over(roots, mode)

    reply = search.names(session, services, search.SearchNames("**", limit=10_000))

    secrets = {".env", "id_rsa", "key.pem", ".git"}
    for match in reply.data["matches"]:
        assert not set(str(match["address"]).split("/")) & secrets, match


@settings(max_examples=60, deadline=None)
@given(
    worlds(),
    st.sampled_from([Mode.CK3LENS, Mode.CK3RAVEN_DEV]),
    st.sampled_from(["*.txt", "**/x.yml", "*.*"]),
)
def test_a_name_search_counts_the_visible_entries_it_looked_at_however_it_tests_names(roots, mode, glob):
    # a glob of a name lets the walk leave a folder's other files out at once; ignoring case, every
    # entry is tested on its own: the two look at the same visible entries, and neither counts a secret
    session, services = session_over(roots, mode)

    sifted = search.names(session, services, search.SearchNames(glob, limit=10_000))
    one_by_one = search.names(session, services, search.SearchNames(glob, ignore_case=True, limit=10_000))

    assert sifted.code == one_by_one.code == "WA-READ-S-007"
    assert sifted.data["scanned"] == one_by_one.data["scanned"]
    assert sifted.data["matches"] == one_by_one.data["matches"]  # every name here is lower case
