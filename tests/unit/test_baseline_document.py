"""The document a baseline is stored as, and digested: canonical JSON, whichever rows a process encoded
before."""

import json

from hypothesis import given
from hypothesis import strategies as st

from domain.contracts.baseline import Baseline

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

    assert earlier.document() == canonical(earlier)
    assert later.document() == canonical(later)  # rows of the earlier one reused, the changed ones not
    assert later.document() == canonical(later)
