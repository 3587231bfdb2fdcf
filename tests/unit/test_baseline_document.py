"""The document a baseline is stored as, and digested: canonical JSON, whichever rows a process encoded
before."""

import json

from hypothesis import given
from hypothesis import strategies as st

from domain.contracts.baseline import Baseline, shares

NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from('"\\/\udcff'))
ROWS = st.tuples(
    st.sampled_from(["file", "dir", "symlink", "special"]),
    st.integers(0, 2**40),
    st.integers(0, 2**63),
    st.integers(0, 2**63),
    st.integers(0, 2**64),
    st.none() | NAMES,
    st.none() | st.text("0123456789abcdef", min_size=64, max_size=64),
)
MANIFESTS = st.dictionaries(NAMES, ROWS, max_size=20)
REPOSITORIES = st.lists(st.tuples(NAMES, st.none() | st.text("0123456789abcdef", max_size=40)), max_size=3)


def canonical(baseline: Baseline) -> str:
    document = {"root": baseline.root, "repositories": baseline.repositories, "manifest": baseline.manifest}
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


@given(MANIFESTS, MANIFESTS, REPOSITORIES, NAMES)
def test_a_baseline_document_is_its_canonical_json_whether_its_rows_were_encoded_before_or_not(
    first, changed, repositories, root
):
    earlier = Baseline(root, tuple(repositories), first)
    later = Baseline(root, tuple(repositories), {**first, **changed})

    fewer = Baseline(root, tuple(repositories), {k: v for k, v in first.items() if k not in changed})

    assert earlier.document() == canonical(earlier)
    assert later.document() == canonical(later)  # rows of the earlier one reused, the changed ones not
    assert later.document() == canonical(later)
    assert fewer.document() == canonical(fewer)  # rows gone from the last one of the same place
    assert earlier.document() == canonical(earlier)  # and back


PARTS = st.sampled_from(["a", "b", "a b", "a-b", "a0", "c", ".d"])
PATHS = st.lists(PARTS, min_size=1, max_size=4).map("/".join)
FOLDERS = st.lists(st.lists(PARTS, max_size=3).map("/".join), max_size=4, unique=True)


def owned_by_walking_up(manifest, tops, pointers):
    """Each entry's owner found by walking up its folders to the deepest mark: the rule, spelled plainly."""
    marks = {*tops, *pointers}
    owned = {top: {} for top in tops}
    for path, row in manifest.items():
        folder = path.rpartition("/")[0]
        while folder not in marks and folder:
            folder = folder.rpartition("/")[0]
        if folder in marks and folder in owned:
            owned[folder][path[len(folder) + 1 :] if folder else path] = row
    return owned


@given(st.dictionaries(PATHS, ROWS, max_size=30), FOLDERS, FOLDERS)
def test_each_repository_owns_the_entries_below_it_and_below_no_deeper_mark(manifest, tops, pointers):
    tops = sorted(set(tops))
    pointers = sorted(set(pointers) - set(tops))

    assert shares(manifest, tops, pointers) == owned_by_walking_up(manifest, tops, pointers)
