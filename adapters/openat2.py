"""openat2(2) for the local files adapter: a folder below a pinned one, opened in one call that refuses
every symbolic link, magic link and escape on the way (Linux 5.6 and later).

Python 3.11 has no `os.openat2`, so the system call is made through ctypes. Whether the kernel offers it is
probed once per process, on first use: where it is missing (another OS, an older kernel, a seccomp filter
that answers ENOSYS or EPERM) `opener()` is None and the adapter walks one segment at a time instead.
"""

import ctypes
import errno
import functools
import os
import platform
import sys
from collections.abc import Callable
from typing import Final

RESOLVE_NO_MAGICLINKS: Final = 0x02
RESOLVE_NO_SYMLINKS: Final = 0x04
RESOLVE_BENEATH: Final = 0x08
"""From include/uapi/linux/openat2.h."""

RESOLVE: Final = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
"""Every lookup stays below the folder it starts from and crosses no link of any kind."""

_SYSCALL_NUMBERS: Final = {"x86_64": 437, "aarch64": 437}
"""__NR_openat2 (asm/unistd_64.h on x86_64, asm-generic/unistd.h on aarch64)."""

Opener = Callable[[int, str, int], int]
"""`open(dir_fd, relative_path, flags)`: a new descriptor, or OSError with the kernel's errno."""


class _OpenHow(ctypes.Structure):
    """struct open_how."""

    _fields_ = (("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64))


@functools.cache
def opener() -> Opener | None:
    """openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, or None where this
    process cannot use it (decided once, by a probe that must open a folder and refuse an escape)."""
    number = _SYSCALL_NUMBERS.get(platform.machine()) if sys.platform == "linux" else None
    if number is None:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    call = libc.syscall
    call.restype = ctypes.c_long  # arguments go as ready-made C values (no per-call conversion)
    nr, size = ctypes.c_long(number), ctypes.c_size_t(ctypes.sizeof(_OpenHow))
    hows: dict[int, tuple[_OpenHow, ctypes.c_void_p]] = {}  # per set of flags: the struct, kept alive

    def open_beneath(dir_fd: int, path: str, flags: int) -> int:
        encoded = os.fsencode(path)
        if b"\0" in encoded:  # C would read the path only up to it
            raise ValueError("a path with a NUL byte reached openat2")
        how = hows.get(flags) or hows.setdefault(flags, _how(flags))
        fd = int(call(nr, ctypes.c_int(dir_fd), encoded, how[1], size))
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        return fd

    return open_beneath if _works(open_beneath) else None


def _how(flags: int) -> tuple[_OpenHow, ctypes.c_void_p]:
    how = _OpenHow(flags, 0, RESOLVE)
    return how, ctypes.c_void_p(ctypes.addressof(how))


def _works(open_beneath: Opener) -> bool:
    """Whether openat2 opens a folder below another and refuses `..` out of it, as the kernel promises."""
    top = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.close(open_beneath(top, ".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
    except OSError:
        return False  # ENOSYS, EPERM or EINVAL: no openat2 in this process
    else:
        try:
            os.close(open_beneath(top, "..", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        except OSError as exc:
            return exc.errno == errno.EXDEV
        return False  # it let `..` out: never rely on it
    finally:
        os.close(top)
