"""Packaging: the wheel carries the sample world (`examples/world`) as package data, `app/sample_world`.

Everything else is configured in pyproject.toml. The sample world stays in one place in the tree; the build
copies it under the `app` package instead of installing a top-level `examples` package, so an installed
ck3raven claims no name in site-packages for it (`app.setup` reads it with importlib.resources). An
editable install serves it from the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

WORLD = Path("examples") / "world"
TARGET = ("app", "sample_world")
# A server once run on the world directly leaves these behind (git ignores them): a scratch copy starts clean.
LEFTOVERS = {("ck3raven_data", name) for name in ("logs", "state", "wip", "artifacts")}


def world_files() -> list[Path]:
    """The sample world's files, relative to it; an error when the world is missing (a broken source tree)."""
    if not WORLD.is_dir():
        raise FileNotFoundError(f"{WORLD} is missing: the wheel must carry the sample world")
    found = (path.relative_to(WORLD) for path in WORLD.rglob("*") if path.is_file())
    return sorted(
        path for path in found if path.parts[:2] not in LEFTOVERS and "__pycache__" not in path.parts
    )


class BuildPyWithSampleWorld(build_py):
    """`build_py`, plus the sample world copied into the built `app` package (not in editable mode)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        # A build/ folder left by an earlier build must not bring back a file since removed from the world.
        shutil.rmtree(Path(self.build_lib, *TARGET), ignore_errors=True)
        for source, target in self._world():
            self.mkpath(str(target.parent))
            self.copy_file(str(WORLD / source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:  # noqa: FBT001, FBT002 - the base's signature
        outputs = list(super().get_outputs(include_bytecode))
        return outputs if self.editable_mode else outputs + [str(target) for _, target in self._world()]

    def _world(self) -> list[tuple[Path, Path]]:
        return [(path, Path(self.build_lib, *TARGET, path)) for path in world_files()]


setup(cmdclass={"build_py": BuildPyWithSampleWorld})
