"""Detection finds Steam, its libraries, the game, the workshop and the Paradox documents folder in a fake
home built from real folders, and reports what it could not find without raising."""

from pathlib import Path

import pytest

from app.detection import detect, library_paths, platform_name, steam_libraries, windows_root

GAME = Path("steamapps", "common", "Crusader Kings III", "game")
WORKSHOP = Path("steamapps", "workshop", "content", "1158310")
PARADOX = Path("Paradox Interactive", "Crusader Kings III")
ROOTS = {"ROOT_GAME", "ROOT_STEAM", "ROOT_USER_DOCS"}


def vdf(*libraries: Path | str) -> str:
    entries = "".join(
        f'\t"{number}"\n\t{{\n\t\t"path"\t\t"{path}"\n\t\t"apps"\n\t\t{{\n\t\t}}\n\t}}\n'
        for number, path in enumerate(libraries)
    )
    return f'"libraryfolders"\n{{\n{entries}}}\n'


def write_vdf(steam: Path, text: str) -> None:
    (steam / "steamapps").mkdir(parents=True, exist_ok=True)
    (steam / "steamapps" / "libraryfolders.vdf").write_text(text, encoding="utf-8")


def folder(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


@pytest.fixture
def linux_home(tmp_path: Path) -> Path:
    """Steam in ~/.local/share/Steam with the workshop; the game in a second library elsewhere."""
    home = tmp_path / "home"
    steam = home / ".local" / "share" / "Steam"
    second = tmp_path / "games" / "SteamLibrary"
    write_vdf(steam, vdf(steam, second))
    folder(steam / WORKSHOP)
    folder(second / GAME)
    folder(home / ".local" / "share" / PARADOX)
    return home


def test_a_linux_home_yields_the_game_from_the_second_library(linux_home: Path, tmp_path: Path):
    detected = detect(linux_home, {}, "linux")

    assert detected.roots["ROOT_GAME"] == tmp_path / "games" / "SteamLibrary" / GAME


def test_a_linux_home_yields_the_workshop_from_the_steam_root(linux_home: Path):
    detected = detect(linux_home, {}, "linux")

    assert detected.roots["ROOT_STEAM"] == linux_home / ".local" / "share" / "Steam" / WORKSHOP


def test_a_linux_home_yields_the_paradox_documents_folder(linux_home: Path):
    detected = detect(linux_home, {}, "linux")

    assert detected.roots["ROOT_USER_DOCS"] == linux_home / ".local" / "share" / PARADOX
    assert detected.missing == ()


def test_a_found_game_line_names_the_library_it_was_found_in(linux_home: Path, tmp_path: Path):
    detected = detect(linux_home, {}, "linux")

    library = tmp_path / "games" / "SteamLibrary"
    assert f"ROOT_GAME: {library / GAME} (Steam library {library})" in detected.found


def test_a_flatpak_steam_is_found(tmp_path: Path):
    steam = folder(tmp_path / ".var" / "app" / "com.valvesoftware.Steam" / ".local" / "share" / "Steam")
    folder(steam / GAME)

    detected = detect(tmp_path, {}, "linux")

    assert detected.roots["ROOT_GAME"] == steam / GAME


def test_steam_dir_is_looked_at_before_the_usual_places(linux_home: Path, tmp_path: Path):
    custom = folder(tmp_path / "custom-steam" / GAME).parents[3]

    detected = detect(linux_home, {"STEAM_DIR": str(custom)}, "linux")

    assert detected.roots["ROOT_GAME"] == custom / GAME


def test_a_wsl_layout_is_found_under_the_windows_root(tmp_path: Path):
    windows = tmp_path / "mnt" / "c"
    steam = windows / "Program Files (x86)" / "Steam"
    folder(steam / GAME)
    folder(tmp_path / "mnt" / "d" / "SteamLibrary" / WORKSHOP)
    write_vdf(steam, vdf("C:\\\\Program Files (x86)\\\\Steam", "D:\\\\SteamLibrary"))
    folder(windows / "Users" / "Public" / "Documents" / PARADOX)
    docs = folder(windows / "Users" / "ada" / "Documents" / PARADOX)

    detected = detect(tmp_path / "linux-home", {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert detected.roots == {
        "ROOT_GAME": steam / GAME,
        "ROOT_STEAM": tmp_path / "mnt" / "d" / "SteamLibrary" / WORKSHOP,
        "ROOT_USER_DOCS": docs,
    }


def test_a_wsl_user_folder_named_public_is_not_taken_for_the_operator(tmp_path: Path):
    windows = tmp_path / "c"
    folder(windows / "Users" / "Public" / "Documents" / PARADOX)

    detected = detect(tmp_path, {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert "ROOT_USER_DOCS" not in detected.roots


def test_a_macos_layout_is_found(tmp_path: Path):
    steam = tmp_path / "Library" / "Application Support" / "Steam"
    folder(steam / GAME)
    folder(steam / WORKSHOP)
    docs = folder(tmp_path / "Documents" / PARADOX)

    detected = detect(tmp_path, {}, "darwin")

    assert detected.roots == {
        "ROOT_GAME": steam / GAME,
        "ROOT_STEAM": steam / WORKSHOP,
        "ROOT_USER_DOCS": docs,
    }


def test_a_windows_layout_is_found_through_program_files_and_onedrive(tmp_path: Path):
    steam = tmp_path / "PF86" / "Steam"
    folder(steam / GAME)
    docs = folder(tmp_path / "home" / "OneDrive" / "Documents" / PARADOX)

    detected = detect(tmp_path / "home", {"PROGRAMFILES(X86)": str(tmp_path / "PF86")}, "windows")

    assert detected.roots == {"ROOT_GAME": steam / GAME, "ROOT_USER_DOCS": docs}


def test_an_empty_home_reports_every_root_missing_and_finds_none(tmp_path: Path):
    detected = detect(tmp_path, {}, "linux")

    assert detected.roots == {}
    assert detected.found == ()
    assert [line.split(":")[0] for line in detected.missing] == ["Steam", *sorted(ROOTS)]


def test_a_missing_steam_line_names_where_it_was_looked_for(tmp_path: Path):
    detected = detect(tmp_path, {}, "darwin")

    assert (
        detected.missing[0]
        == f"Steam: not found (looked in {tmp_path / 'Library/Application Support/Steam'})"
    )


def test_a_missing_game_line_names_the_libraries_that_were_searched(tmp_path: Path):
    steam = folder(tmp_path / ".steam" / "steam")

    detected = detect(tmp_path, {}, "linux")

    expected = f'ROOT_GAME: no "steamapps/common/Crusader Kings III/game" in the Steam libraries at {steam}'
    assert expected in detected.missing


def test_an_unknown_platform_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="beos"):
        detect(tmp_path, {}, "beos")


def test_steam_libraries_lists_the_root_then_the_vdf_folders_once_each(tmp_path: Path):
    steam = folder(tmp_path / "steam")
    other = folder(tmp_path / "other")
    write_vdf(steam, vdf(steam, other, other))

    assert steam_libraries(steam) == [steam, other]


def test_steam_libraries_leaves_out_folders_that_do_not_exist(tmp_path: Path):
    steam = folder(tmp_path / "steam")
    write_vdf(steam, vdf(tmp_path / "unplugged-drive"))

    assert steam_libraries(steam) == [steam]


def test_a_truncated_vdf_yields_the_libraries_read_before_the_cut(tmp_path: Path):
    steam = folder(tmp_path / "steam")
    other = folder(tmp_path / "other")
    write_vdf(steam, vdf(other, tmp_path / "never-read")[:-40])

    assert steam_libraries(steam) == [steam, other]


@pytest.mark.parametrize(
    "text",
    ['"libraryfolders" { "0" { "path" "/x', '}}}} {{{ "\\', '"a" "b" "c"', "{" * 100_000, "\x00\xff garbage"],
)
def test_a_malformed_vdf_does_not_raise(tmp_path: Path, text: str):
    steam = folder(tmp_path / "steam")
    write_vdf(steam, text)

    assert steam_libraries(steam) == [steam]


def test_doubled_backslashes_in_a_vdf_path_are_read_as_one_separator():
    text = '"libraryfolders"\n{\n\t"1"\n\t{\n\t\t"path"\t\t"D:\\\\Games\\\\SteamLibrary"\n\t}\n}\n'

    assert library_paths(text) == ["D:\\Games\\SteamLibrary"]


def test_the_pre_2021_vdf_layout_of_bare_numbered_paths_is_read():
    text = '"LibraryFolders"\n{\n\t"TimeNextStatsReport"\t"1700000000"\n\t"1"\t"E:\\\\SteamLibrary"\n}\n'

    assert library_paths(text) == ["E:\\SteamLibrary"]


@pytest.mark.parametrize(
    ("sys_platform", "release", "expected"),
    [
        ("linux", "6.5.0-41-generic", "linux"),
        ("linux", "5.15.153.1-microsoft-standard-WSL2", "wsl"),
        ("darwin", "23.4.0", "darwin"),
        ("win32", "10", "windows"),
    ],
)
def test_the_platform_name_follows_sys_platform_and_the_kernel_release(
    sys_platform: str, release: str, expected: str
):
    assert platform_name(sys_platform, release) == expected


def test_under_wsl_a_documents_folder_onedrive_moved_for_an_organisation_is_found(tmp_path: Path):
    windows = tmp_path / "mnt" / "c"
    docs = folder(windows / "Users" / "ada" / "OneDrive - Contoso" / "Documents" / PARADOX)

    detected = detect(tmp_path / "home", {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert detected.roots["ROOT_USER_DOCS"] == docs


def test_under_wsl_a_onedrive_documents_folder_with_a_translated_name_is_found(tmp_path: Path):
    windows = tmp_path / "mnt" / "c"
    folder(windows / "Users" / "ada" / "OneDrive" / "Bilder")
    docs = folder(windows / "Users" / "ada" / "OneDrive" / "Dokumente" / PARADOX)

    detected = detect(tmp_path / "home", {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert detected.roots["ROOT_USER_DOCS"] == docs


def test_under_wsl_the_documents_folder_in_the_profile_comes_before_a_onedrive_copy(tmp_path: Path):
    windows = tmp_path / "mnt" / "c"
    docs = folder(windows / "Users" / "ada" / "Documents" / PARADOX)
    folder(windows / "Users" / "ada" / "OneDrive" / "Documents" / PARADOX)

    detected = detect(tmp_path / "home", {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert detected.roots["ROOT_USER_DOCS"] == docs


def test_under_wsl_steam_installed_on_another_drive_is_found(tmp_path: Path):
    steam = folder(tmp_path / "mnt" / "d" / "Steam" / GAME).parents[3]
    folder(tmp_path / "mnt" / "c")

    detected = detect(tmp_path / "home", {"CK3RAVEN_WINDOWS_ROOT": str(tmp_path / "mnt" / "c")}, "wsl")

    assert detected.roots["ROOT_GAME"] == steam / GAME
    assert f"Steam: {steam}" in detected.found


def test_under_wsl_a_steam_library_on_another_drive_is_found_without_a_vdf_naming_it(tmp_path: Path):
    windows = tmp_path / "mnt" / "c"
    folder(windows / "Program Files (x86)" / "Steam")
    library = folder(tmp_path / "mnt" / "e" / "SteamLibrary" / WORKSHOP).parents[3]

    detected = detect(tmp_path / "home", {"CK3RAVEN_WINDOWS_ROOT": str(windows)}, "wsl")

    assert detected.roots["ROOT_STEAM"] == library / WORKSHOP


@pytest.mark.parametrize(
    ("conf", "expected"),
    [
        ("[automount]\nroot = /win/\n", Path("/win/c")),
        ('[automount]\nenabled = true\nroot = "/"\n', Path("/c")),
        ("[network]\nhostname = box\n", Path("/mnt/c")),
        ("not an ini file [", Path("/mnt/c")),
        ("", Path("/mnt/c")),
    ],
)
def test_drive_c_is_where_the_automount_root_of_wsl_conf_puts_it(conf: str, expected: Path):
    assert windows_root({}, conf) == expected


def test_the_environment_names_drive_c_before_wsl_conf():
    assert windows_root({"CK3RAVEN_WINDOWS_ROOT": "/elsewhere/c"}, "[automount]\nroot = /win/\n") == Path(
        "/elsewhere/c"
    )


def test_a_linux_kernel_whose_environment_names_a_wsl_distribution_is_wsl():
    assert platform_name("linux", "6.6.87.2-custom", distro="Ubuntu-24.04") == "wsl"


FLATPAK = Path(".var", "app", "com.valvesoftware.Steam")


@pytest.mark.parametrize(
    "documents",
    [
        Path(".local", "share"),
        FLATPAK / ".local" / "share",
        FLATPAK / "data",
        Path("snap", "steam", "common", ".local", "share"),
    ],
    ids=["steam-native", "flatpak", "flatpak-older", "snap"],
)
def test_the_paradox_documents_folder_is_found_wherever_linux_steam_keeps_it(tmp_path: Path, documents: Path):
    found = folder(tmp_path / documents / PARADOX)

    detected = detect(tmp_path, {}, "linux")

    assert detected.roots["ROOT_USER_DOCS"] == found


def test_a_snap_steam_is_found(tmp_path: Path):
    steam = folder(tmp_path / "snap" / "steam" / "common" / ".local" / "share" / "Steam")
    folder(steam / GAME)

    detected = detect(tmp_path, {}, "linux")

    assert detected.roots["ROOT_GAME"] == steam / GAME
