"""The registry is pinned: renaming, retyping, reusing or dropping a code, or changing what its data holds,
must fail here."""

import json
from pathlib import Path

from domain.replies.registry import REGISTRY

GOLDEN = Path(__file__).with_name("golden_codes.json")


def test_registry_matches_the_pinned_codes_and_the_shapes_of_their_data():
    pinned = json.loads(GOLDEN.read_text(encoding="utf-8"))

    current = {code: spec.data_schema() for code, spec in REGISTRY.items()}

    assert current == pinned
