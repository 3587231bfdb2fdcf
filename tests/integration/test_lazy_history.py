"""The history as the composition root wires it: git loaded on first use, answering as the git adapter."""

import subprocess
import sys
from pathlib import Path

from dulwich import porcelain

from adapters.dulwich_history import DulwichHistory
from adapters.lazy_history import LazyHistory


def repository(base: Path) -> Path:
    repo = base / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    porcelain.init(str(repo))
    porcelain.add(str(repo), paths=[str(repo / "a.txt")])
    identity = b"t <t@t>"
    porcelain.commit(str(repo), message=b"one", author=identity, committer=identity)
    return repo


def test_the_lazy_history_answers_as_the_git_adapter_does(tmp_path: Path):
    repo = repository(tmp_path)
    (repo / "a.txt").write_text("b\n", encoding="utf-8")
    lazy, real = LazyHistory({"ROOT_REPO": repo}), DulwichHistory({"ROOT_REPO": repo})

    head = real.head("ROOT_REPO")

    assert lazy.head("ROOT_REPO") == head
    assert lazy.changes_since("ROOT_REPO", head or "") == real.changes_since("ROOT_REPO", head or "")


def test_a_repositorys_state_is_its_head_and_what_changed_since_it_read_at_once(tmp_path: Path):
    repo = repository(tmp_path)
    (repo / "a.txt").write_text("b\n", encoding="utf-8")
    (repo / "new.txt").write_text("n\n", encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    porcelain.init(str(empty))
    roots = {"ROOT_REPO": repo, "ROOT_USER_DOCS": empty}
    lazy, real = LazyHistory(roots), DulwichHistory(roots)

    head, changed = lazy.state("ROOT_REPO")

    assert head == real.head("ROOT_REPO")
    assert changed == real.changes_since("ROOT_REPO", head or "")
    assert {change.parts for change in changed} == {("a.txt",), ("new.txt",)}
    assert real.state("ROOT_USER_DOCS") == (None, [])  # no commit yet: no head, no change


def test_building_the_core_does_not_load_git(tmp_path: Path):
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from app.bootstrap import build_core\n"
        "from app.config import Settings\n"
        "from domain.vocabulary import Mode, RootCategory\n"
        "base = Path(sys.argv[1])\n"
        "roots = {RootCategory.ROOT_REPO: base / 'repo'}\n"
        "settings = Settings('t', roots, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=base / 's')\n"
        "build_core(settings)\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'dulwich'))\n"
    )
    repository(tmp_path)

    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True, timeout=60
    )

    assert done.stdout.strip() == "[]", done.stderr
