"""Packaging: the wheel installs one top-level package, `ck3raven`, with the four layers inside it.

The checkout keeps the layers as top-level folders (`domain/`, `ports/`, `adapters/`, `app/`: the design
names them, and mypy, import-linter and the tests see them so). A name as generic as `app` must not be
claimed in a shared site-packages, where another distribution's `app/config.py` would overwrite ours (and
uninstalling it would delete ours); so the wheel's build places each layer under `ck3raven/` and rewrites
the absolute imports of the layers (`from domain.x import y` → `from ck3raven.domain.x import y`). It also
carries the sample world (`examples/world`) as `ck3raven/app/sample_world`, which `app.setup` reads with
importlib.resources. An editable install (`make install`) maps the folders as they are, under their own
names: nothing is copied or rewritten then. Everything else is configured in pyproject.toml.
"""

import ast
import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

PACKAGE = "ck3raven"
LAYERS = ("domain", "ports", "adapters", "app")
WORLD = Path("examples") / "world"
TARGET = (PACKAGE, "app", "sample_world")
# A server once run on the world directly leaves these behind (git ignores them): a scratch copy starts clean.
LEFTOVERS = {("ck3raven_data", name) for name in ("logs", "state", "wip", "artifacts")}
_FROM = re.compile(r"from\s+")


def world_files() -> list[Path]:
    """The sample world's files, relative to it; an error when the world is missing (a broken source tree)."""
    if not WORLD.is_dir():
        raise FileNotFoundError(f"{WORLD} is missing: the wheel must carry the sample world")
    found = (path.relative_to(WORLD) for path in WORLD.rglob("*") if path.is_file())
    return sorted(
        path for path in found if path.parts[:2] not in LEFTOVERS and "__pycache__" not in path.parts
    )


def _of_a_layer(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in LAYERS


def namespaced(source: str, name: str) -> str:
    """`source` with every absolute import of a layer moved under `ck3raven.`; a form that cannot be moved
    without changing the names it binds (`import domain.x` binds `domain`) fails the build."""
    lines = source.splitlines(keepends=True)
    places = [place for node in ast.walk(ast.parse(source, name)) for place in _places(node, lines, name)]
    for line, column in sorted(places, reverse=True):
        text = lines[line]
        lines[line] = f"{text[:column]}{PACKAGE}.{text[column:]}"
    return "".join(lines)


def _places(node: ast.AST, lines: list[str], name: str) -> list[tuple[int, int]]:
    """Where `ck3raven.` goes in this node, if it imports a layer: (line index, column) pairs."""
    if isinstance(node, ast.ImportFrom) and node.level == 0 and _of_a_layer(node.module):
        found = _FROM.match(lines[node.lineno - 1], node.col_offset)
        if found is None:
            raise ValueError(f"{name}:{node.lineno}: the module of this import is not on its first line")
        return [(node.lineno - 1, found.end())]
    if not isinstance(node, ast.Import):
        return []
    aliases = [alias for alias in node.names if _of_a_layer(alias.name)]
    if any(alias.asname is None for alias in aliases):  # `import domain.x` binds `domain`: not in the wheel
        raise ValueError(f"{name}:{node.lineno}: write `from … import …`, or name the import with `as`")
    return [(alias.lineno - 1, alias.col_offset) for alias in aliases]


class BuildPyUnderOnePackage(build_py):
    """`build_py`, then the layers moved under `ck3raven/` with their imports rewritten, and the sample
    world copied in (not in editable mode, which maps the checkout's folders as they are)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        package = Path(self.build_lib, PACKAGE)
        for layer in LAYERS:
            # A build/ folder left by an earlier build must not bring back a file since removed.
            shutil.rmtree(package / layer, ignore_errors=True)
            shutil.move(Path(self.build_lib, layer), package / layer)
        for module in sorted(package.rglob("*.py")):
            module.write_text(namespaced(module.read_text(encoding="utf-8"), str(module)), encoding="utf-8")
        for source, target in self._world():
            self.mkpath(str(target.parent))
            self.copy_file(str(WORLD / source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:  # noqa: FBT001, FBT002 - the base's signature
        outputs = list(super().get_outputs(include_bytecode))
        if self.editable_mode:
            return outputs
        placed = [str(self._placed(Path(output))) for output in outputs]
        return placed + [str(target) for _, target in self._world()]

    def _placed(self, output: Path) -> Path:
        inside = output.relative_to(self.build_lib)
        return Path(self.build_lib, PACKAGE, inside) if inside.parts[0] in LAYERS else output

    def _world(self) -> list[tuple[Path, Path]]:
        return [(path, Path(self.build_lib, *TARGET, path)) for path in world_files()]


class BdistWheelOfOnePackage(bdist_wheel):
    """`bdist_wheel`, its metadata naming the one top-level package the wheel installs."""

    def egg2dist(self, egginfo_path: str, distinfo_path: str) -> None:
        super().egg2dist(egginfo_path, distinfo_path)
        Path(distinfo_path, "top_level.txt").write_text(f"{PACKAGE}\n", encoding="utf-8")


setup(cmdclass={"build_py": BuildPyUnderOnePackage, "bdist_wheel": BdistWheelOfOnePackage})
