"""The scripts of `.ci/` (not a package), loaded as modules so that tests can call what they hold."""

import importlib.util
from pathlib import Path
from types import ModuleType

CI = Path(__file__).resolve().parents[1] / ".ci"


def load(name: str) -> ModuleType:
    """`.ci/<name>.py` as a module."""
    spec = importlib.util.spec_from_file_location(f"ci_{name}", CI / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
