"""A real folder on a filesystem that ignores case, where this machine can make one: a FAT image or an ext4
image with casefolding on a loop device (the kernel's own drivers), else an exFAT image through FUSE. Each
needs root and the tools; when none can be had, `case_insensitive_folder` says why each could not, and the
tests that need one skip with that reason. A mount is named after the process that made it, so one left
behind by a run killed before its teardown is released by the next."""

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from app.mounts import parse, read_mountinfo

IMAGE_BYTES = 16 * 1024 * 1024
_OURS = re.compile(r"folding-(\d+)")


class Unavailable(Exception):
    """No filesystem that ignores case can be mounted here; the message says what each way lacked."""


def _run(*command: str) -> str:
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=60).stdout


def _kernel_has(filesystem: str) -> bool:
    try:
        listed = Path("/proc/filesystems").read_text(encoding="utf-8").split()
    except OSError:
        return False
    return filesystem in listed


def _needs(*tools: str) -> str | None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    return f"no {', '.join(missing)}" if missing else None


def _vfat(image: Path, mount: Path) -> str | None:
    """Mount a FAT image through the kernel's vfat; None when done, else why not."""
    if not _kernel_has("vfat"):
        return "the kernel has no vfat"
    lacking = _needs("mkfs.vfat", "mount")
    if lacking:
        return lacking
    _run("mkfs.vfat", str(image))
    _run("mount", "-t", "vfat", "-o", "loop", str(image), str(mount))
    return None


def _ext4_casefold(image: Path, mount: Path) -> str | None:
    """Mount an ext4 image with casefolding and make `mount/folded` a casefolded folder."""
    if not Path("/sys/fs/ext4/features/casefold").exists():
        return "the kernel's ext4 has no casefold"
    lacking = _needs("mkfs.ext4", "mount", "chattr")
    if lacking:
        return lacking
    _run("mkfs.ext4", "-q", "-O", "casefold", str(image))
    _run("mount", "-o", "loop", str(image), str(mount))
    return None


def _exfat_fuse(image: Path, mount: Path) -> str | None:
    """Mount an exFAT image through FUSE (exfat-fuse wants a block device: a loop device)."""
    if not Path("/dev/fuse").exists():
        return "no /dev/fuse"
    lacking = _needs("mkfs.exfat", "mount.exfat-fuse", "losetup")
    if lacking:
        return lacking
    _run("mkfs.exfat", str(image))
    device = _run("losetup", "--find", "--show", str(image)).strip()
    try:
        _run("mount.exfat-fuse", device, str(mount))
    except subprocess.CalledProcessError:
        _run("losetup", "--detach", device)
        raise
    return None


WAYS = (("vfat", _vfat), ("ext4 casefold", _ext4_casefold), ("exFAT through FUSE", _exfat_fuse))


@contextmanager
def case_insensitive_folder(base: Path) -> Iterator[Path]:
    """A folder below `base` on a mounted filesystem that ignores case, unmounted afterwards; Unavailable
    naming why each way failed when none works."""
    if os.geteuid() != 0:
        raise Unavailable("mounting a filesystem image needs root")
    _release_left_behind()
    image, mount = base / f"folding-{os.getpid()}.img", base / f"folding-{os.getpid()}"
    reasons = []
    for name, way in WAYS:
        mount.mkdir(exist_ok=True)
        with image.open("wb") as made:
            made.truncate(IMAGE_BYTES)
        try:
            reason = way(image, mount)
        except (OSError, subprocess.SubprocessError) as exc:
            reason = f"failed ({_said(exc)})"
        if reason is None:
            break
        reasons.append(f"{name}: {reason}")
    else:
        raise Unavailable("no filesystem that ignores case can be mounted here: " + "; ".join(reasons))
    try:
        yield _prepared(mount, name)
    finally:
        _unmount(mount)
        image.unlink(missing_ok=True)


def _prepared(mount: Path, way: str) -> Path:
    if way != "ext4 casefold":
        return mount
    folded = mount / "folded"  # casefolding is a property of an empty folder, inherited below it
    folded.mkdir()
    _run("chattr", "+F", str(folded))
    return folded


def _said(exc: BaseException) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        lines = str(exc.stderr or "").strip().splitlines()
        return lines[-1] if lines else f"exit {exc.returncode}"
    return str(exc)


def _unmount(mount: Path) -> None:
    """Unmount `mount` and release its loop device (a mount still held open by this process is detached
    from the tree now and released when the process ends)."""
    device = next((found.source for found in parse(read_mountinfo()) if found.point == mount), "")
    try:
        _run("umount", str(mount))
    except (subprocess.SubprocessError, OSError):
        with suppress(subprocess.SubprocessError, OSError):
            _run("umount", "--lazy", str(mount))
    if device.startswith("/dev/loop"):
        with suppress(subprocess.SubprocessError, OSError):  # gone already where mount set it up itself
            _run("losetup", "--detach", device)


def _release_left_behind() -> None:
    """Unmount what a run that no longer lives left mounted here."""
    for found in parse(read_mountinfo()):
        made_by = _OURS.fullmatch(found.point.name)
        if made_by is not None and not _alive(int(made_by[1])):
            _unmount(found.point)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
