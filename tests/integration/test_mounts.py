"""Which mount holds a folder, read from mountinfo text, and which mounts are Windows drives seen from WSL."""

from pathlib import Path

import pytest

from app.mounts import MOUNTINFO, Mount, holding, parse, read_mountinfo, windows_drive

WSL2 = (
    "22 1 8:32 / / rw,relatime shared:1 - ext4 /dev/sdc rw,discard,errors=remount-ro,data=ordered\n"
    "63 22 0:58 / /mnt/c rw,noatime shared:30 - 9p C:\\134 rw,dirsync,aname=drvfs;path=C:\\;uid=1000;"
    "gid=1000;symlinkroot=/mnt/,mmap,access=client,msize=65536,trans=fd,rfd=5,wfd=5\n"
    "64 22 0:59 / /mnt/wslg rw,relatime shared:31 - tmpfs none rw\n"
    "65 63 0:60 / /mnt/c/Users/ada/My\\040Games rw,relatime - ext4 /dev/sdd rw\n"
)
WSL1 = "8 0 0:8 / /mnt/d rw,noatime shared:1 - drvfs D: rw,uid=1000,gid=1000,case=off\n"


def test_a_wsl2_drive_is_a_9p_mount_of_drvfs():
    mounts = parse(WSL2)

    assert windows_drive(Path("/mnt/c/Users/ada/Documents"), mounts) == Mount(
        Path("/mnt/c"), "9p", "C:\\", mounts[1].options
    )


def test_a_wsl1_drive_is_a_drvfs_mount():
    assert windows_drive(Path("/mnt/d/SteamLibrary"), parse(WSL1)) is not None


def test_the_distros_own_disk_is_no_windows_drive():
    assert windows_drive(Path("/home/ada/.local/state/ck3raven"), parse(WSL2)) is None


def test_a_mount_inside_a_drive_holds_what_lies_below_it():
    mounts = parse(WSL2)

    assert holding(Path("/mnt/c/Users/ada/My Games/x"), mounts) == mounts[3]
    assert windows_drive(Path("/mnt/c/Users/ada/My Games/x"), mounts) is None


def test_a_folder_beside_a_mount_point_whose_name_extends_it_is_not_held_by_it():
    assert holding(Path("/mnt/cc/x"), parse(WSL2)) == parse(WSL2)[0]


def test_lines_that_are_not_mountinfo_are_left_out():
    assert parse("garbage\n1 2 3\n - \n" + WSL1) == parse(WSL1)


@pytest.mark.skipif(not MOUNTINFO.is_file(), reason="this system has no /proc/self/mountinfo")
def test_this_machines_own_mount_table_holds_the_filesystem_top(tmp_path: Path):
    assert holding(tmp_path.resolve(), parse(read_mountinfo())) is not None
