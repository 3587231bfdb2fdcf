"""A file store that fails mid-call: the reply is an Error with a trace id, and the file is as it was."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from adapters.local_files import LocalFiles
from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from ports.errors import Unavailable
from ports.files import Location

pytestmark = pytest.mark.anyio
R = RootCategory


class FailingWrites(LocalFiles):
    """The local disk, whose writes fail (a full disk, a lost mount)."""

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        raise Unavailable("injected: no space left on the device")

    def delete(self, location: Location) -> None:
        raise Unavailable("injected: the folder cannot be changed")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    data = tmp_path / "data"
    (data / "wip").mkdir(parents=True)
    (data / "wip" / "a.txt").write_text("before\n", encoding="utf-8")
    return Settings("test", {R.ROOT_CK3RAVEN_DATA: data}, R.ROOT_CK3RAVEN_DATA, Mode.CK3LENS)


async def call(client: Client, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool("ck3_file", args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.mark.parametrize(
    "args",
    [
        {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/a.txt", "content": "after\n"},
        {
            "command": "edit",
            "path": "ROOT_CK3RAVEN_DATA:/wip/a.txt",
            "old_string": "before",
            "new_string": "after",
        },
        {"command": "delete", "path": "ROOT_CK3RAVEN_DATA:/wip/a.txt"},
    ],
)
async def test_a_mutation_whose_store_fails_is_an_error_and_leaves_the_file_as_it_was(
    settings: Settings, args: dict[str, Any]
):
    files = FailingWrites({root.value: path for root, path in settings.roots.items()})
    async with Client(build(settings, core=build_core(settings, files=files))) as client:
        answered = await call(client, args)

    assert (answered["reply_type"], answered["code"]) == ("E", "WA-IO-E-001")
    assert answered["meta"]["trace_id"]
    assert (settings.roots[R.ROOT_CK3RAVEN_DATA] / "wip" / "a.txt").read_text(encoding="utf-8") == "before\n"
