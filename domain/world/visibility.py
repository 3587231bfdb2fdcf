"""VisibilityRef, the World Adapter's proof of resolution (seed 004 §5; docs/design/visibility-ref.md).

Use this module for the type; only `domain.world.adapter` may mint or open refs (an import contract says so).
"""

from domain.world._seal import ForgedRefError, VisibilityRef

__all__ = ["ForgedRefError", "VisibilityRef"]
