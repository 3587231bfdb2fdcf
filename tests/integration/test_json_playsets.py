"""Playset files are structured strictly and judged by the domain, field by field."""

import json
from pathlib import Path

import pytest

from adapters.json_playsets import JsonPlaysets
from adapters.local_files import LocalFiles
from app.bootstrap import build_core
from app.config import ConfigError
from domain.replies.builder import Reply
from domain.replies.refusal import Refused
from domain.world.catalog import Catalog
from tests.worlds import sample_world_on_disk

GOOD_MOD = {"name": "A", "folder": "ROOT_STEAM:/1", "workshop_id": "1"}


def store_with(tmp_path: Path, content: object, name: str = "p.json") -> JsonPlaysets:
    folder = tmp_path / "playsets"
    folder.mkdir(exist_ok=True)
    text = content if isinstance(content, str) else json.dumps(content)
    (folder / name).write_text(text, encoding="utf-8")
    return JsonPlaysets(LocalFiles({"ROOT_CK3RAVEN_DATA": tmp_path}))


def judged(tmp_path: Path, content: object) -> Reply | object:
    store = store_with(tmp_path, content)
    try:
        return Catalog(tuple(store.load()), "P").usable("P")
    except Refused as refused:
        return refused.reply


def test_a_valid_playset_is_loaded(tmp_path: Path):
    record = judged(tmp_path, {"name": "P", "mods": [GOOD_MOD]})

    assert not isinstance(record, Reply)


@pytest.mark.parametrize(
    ("mods", "field"),
    [
        ([{**GOOD_MOD, "colour": "red"}], "$"),
        ([{**GOOD_MOD, "enabled": "yes"}], "enabled"),
        ([{**GOOD_MOD, "load_order": "1"}], "load_order"),
        ([{**GOOD_MOD, "workshop_id": 7}], "workshop_id"),
    ],
)
def test_unknown_keys_and_wrong_types_make_the_file_unusable(tmp_path: Path, mods, field):
    store = store_with(tmp_path, {"name": "P", "mods": mods})

    (loaded,) = store.load()

    assert loaded.record is None
    assert any(field in where for where, _ in loaded.problems)


@pytest.mark.parametrize(
    "folder",
    ["ROOT_GAME:/mod", "ROOT_USER_DOCS:/launcher", "ROOT_USER_DOCS:/mod", "/home/x/mod", "ROOT_STEAM:/"],
)
def test_a_mod_folder_outside_the_workshop_and_local_mods_makes_the_playset_invalid(
    tmp_path: Path, folder: str
):
    reply = judged(tmp_path, {"name": "P", "mods": [{**GOOD_MOD, "folder": folder}]})

    assert isinstance(reply, Reply)
    assert reply.code == "WA-PARSE-I-001"
    assert reply.data["errors"][0]["field"] == "$.mods[0].folder"


@pytest.mark.parametrize("name", ["", "a:b", "a/b", " padded", "bell\x07"])
def test_a_mod_name_that_cannot_be_addressed_makes_the_playset_invalid(tmp_path: Path, name: str):
    reply = judged(tmp_path, {"name": "P", "mods": [{**GOOD_MOD, "name": name}]})

    assert isinstance(reply, Reply)
    assert reply.data["errors"][0]["field"] == "$.mods[0].name"


def test_two_mods_with_one_name_make_the_playset_invalid(tmp_path: Path):
    reply = judged(tmp_path, {"name": "P", "mods": [GOOD_MOD, {**GOOD_MOD, "workshop_id": "2"}]})

    assert isinstance(reply, Reply)
    assert reply.code == "WA-PARSE-I-001"


def test_text_that_is_not_json_makes_the_file_unusable(tmp_path: Path):
    (loaded,) = store_with(tmp_path, "{not json").load()

    assert loaded.problems == (("$", "is not UTF-8 JSON"),)


def test_a_playset_file_that_is_a_link_is_not_read(tmp_path: Path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"name": "P"}), encoding="utf-8")
    (tmp_path / "data" / "playsets").mkdir(parents=True)
    (tmp_path / "data" / "playsets" / "p.json").symlink_to(outside)
    store = JsonPlaysets(LocalFiles({"ROOT_CK3RAVEN_DATA": tmp_path / "data"}))

    assert store.load() == []


def test_the_server_refuses_to_start_on_an_active_playset_that_does_not_exist(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    renamed = type(settings)(settings.source, settings.roots, settings.home, settings.mode, "No Such Playset")

    with pytest.raises(ConfigError, match="No Such Playset"):
        build_core(renamed)
