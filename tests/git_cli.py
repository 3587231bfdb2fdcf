"""The git command line for tests that need what only git makes (a submodule), with a fixed identity and
no user or system configuration."""

import os
import shutil
import subprocess
import time
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@x",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@x",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


GIT = shutil.which("git") or "git"


def git(folder: Path, *args: str) -> str:
    """Run git in `folder` (a local submodule's clone allowed); its standard output."""
    done = subprocess.run(
        [GIT, "-c", "protocol.file.allow=always", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **_ENV},
        timeout=60,
    )
    return done.stdout


def repository(folder: Path, files: dict[str, str]) -> None:
    """A repository at `folder` with `files` (name to text) committed."""
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "first")


def with_submodule(base: Path, mod: Path) -> Path:
    """A repository at `mod` (`a.txt`, `b.txt`) holding a checked-out submodule `sub` (`u.txt`, `v.txt`)
    cloned from `base/upstream`, its files stamped an hour ago and each index refreshed, as git leaves a
    tree some time after its checkout: no file is racily clean, so only the stat speaks for it. The
    upstream repository's path."""
    upstream = base / "upstream"
    repository(upstream, {"u.txt": "upstream\n", "v.txt": "vee\n"})
    repository(mod, {"a.txt": "alpha\n", "b.txt": "bravo\n"})
    git(mod, "submodule", "add", "-q", str(upstream), "sub")
    git(mod, "commit", "-q", "-m", "Add the submodule")
    past = int((time.time() - 3600) * 1_000_000_000)
    for folder, subfolders, files in os.walk(mod):
        subfolders[:] = [name for name in subfolders if name != ".git"]
        for name in files:
            if name != ".git":
                os.utime(Path(folder) / name, ns=(past, past))
    for top in (mod / "sub", mod):
        git(top, "update-index", "-q", "--really-refresh")
    return upstream
