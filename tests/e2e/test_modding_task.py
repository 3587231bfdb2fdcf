"""The modding task an agent is given, driven end to end through the tools: find a trait where the game
loads it from, read it, change it and add a new trait with its localisation in a local mod, close the
contract with an NST, commit.

After a refusal, every call is built only from fields of earlier replies — `data.request` (a tool and its
arguments), `data.required`, `data.root_category`, `data.mods`, the addresses replies name — and the task
statement, which fills the placeholders a ready call leaves for the agent's own words. Nothing below names
a root, a reply code or an argument of a call that follows a refusal.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build, build_core, client_tokens
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.e2e.test_http_sessions import http_server
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio

TASK = "Make the trait brave give prowess 4 and add a new trait fearless, with its English localisation."
GAME_FILE = "common/traits/zz_better_traits.txt"
"""The task's file, as the game names it (game-relative)."""


class Agent:
    """Calls tools and follows refusals the way an agent reading the replies would."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.transcript: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        env = dict((await self.client.call_tool(tool, args, raise_on_error=False)).structured_content)
        self.transcript.append((tool, args, env))
        return env

    async def ready(self, refusal: dict[str, Any]) -> dict[str, Any]:
        """The refusal's ready call, its placeholders filled from the refusal and the task."""
        request = refusal["data"]["request"]
        return await self.call(request["tool"], filled(request["arguments"], refusal["data"]))


def filled(value: Any, data: dict[str, Any]) -> Any:
    """`<one of data.X>` becomes the first of data.X; any other `<...>` the task statement."""
    if isinstance(value, dict):
        return {key: filled(item, data) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item, data) for item in value]
    if isinstance(value, str) and value.startswith("<") and value.endswith(">"):
        if value.startswith("<one of data."):
            return data[value.removeprefix("<one of data.").rstrip(">")][0]
        return TASK
    return value


@asynccontextmanager
async def connected(settings: Settings, over: str) -> AsyncIterator[Client]:
    """A client of the server for `settings`: in memory, or over streamable HTTP with a client token of its
    own (the 2026-07-28 revision: no protocol session, so the task's session is the token's)."""
    if over == "memory":
        async with Client(build(settings)) as client:
            yield client
        return
    core = build_core(settings)
    token = client_tokens(core).add("agent")  # type: ignore[union-attr]
    with http_server(settings, core) as url:
        async with Client(url, auth=token) as client:
            yield client


@pytest.mark.parametrize("over", ["memory", "http"])
async def test_the_modding_task_runs_from_discovery_to_commit_on_what_replies_say(tmp_path: Path, over: str):  # noqa: PLR0915 - one task, its calls in order
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    mod = settings.roots[RootCategory.ROOT_USER_DOCS] / "mod" / "LocalFix"  # the modder keeps it in git
    porcelain.init(str(mod))
    porcelain.add(str(mod), paths=[str(path) for path in mod.rglob("*") if path.is_file()])
    porcelain.commit(str(mod), message=b"Local Fix", author=b"M <m@x>", committer=b"M <m@x>")
    async with connected(settings, over) as client:
        agent = Agent(client)
        # find and read (nothing refused yet)
        where = await agent.call("ck3_playset", {"command": "which", "path": GAME_FILE})
        traits = await agent.call("ck3_read", {"path": where["data"]["winner"]})
        found = await agent.call("ck3_search", {"command": "contents", "pattern": "trait_brave"})
        texts = [hit for hit in found["data"]["hits"] if hit["address"].endswith(".yml")]
        words = await agent.call("ck3_read", {"path": texts[0]["address"]})
        brave = next(line for line in traits["data"]["content"].splitlines() if "prowess" in line)
        described = next(line for line in words["data"]["content"].splitlines() if "trait_brave" in line)
        edits = [
            {
                "command": "edit",
                "path": traits["data"]["address"],
                "old_string": brave,
                "new_string": brave.split("=")[0]
                + "= 4\n}\nfearless = {\n\tcategory = personality\n\tprowess = 1",
            },
            {
                "command": "edit",
                "path": words["data"]["address"],
                "old_string": described,
                "new_string": described
                + '\n trait_fearless:0 "Fearless"\n trait_fearless_desc:0 "Fears nothing"',
            },
        ]
        # each edit is refused: the file is the workshop's; the refusal names the local mod to copy it to
        refused = [await agent.call("ck3_file", edit) for edit in edits]
        copies = [await agent.ready(refusal) for refusal in refused]  # refused too: no contract yet
        openings = [copy["data"]["request"] for copy in copies]
        opening = openings[0] | {
            "arguments": openings[0]["arguments"]
            | {"targets": [t for o in openings for t in o["arguments"]["targets"]]}
        }
        opened = await agent.ready({"data": {"request": opening}})
        copied = [await agent.ready(refusal) for refusal in refused]
        edited = [
            await agent.call("ck3_file", edit | {"path": copy["data"]["address"]})
            for edit, copy in zip(edits, copied, strict=True)
        ]
        refused_close = await agent.call("ck3_contract", {"command": "close"})
        declared = await agent.ready(refused_close)
        closed = await agent.call("ck3_contract", {"command": "close"})
        # commit: after the close, the commit is refused until the next contract opens
        staged_args = {"command": "add", "paths": [copy["data"]["address"] for copy in copied]}
        not_staged = await agent.call("ck3_commit", staged_args)
        reopened = await agent.ready(not_staged)
        staged = await agent.call("ck3_commit", staged_args)
        committed = await agent.call(
            "ck3_commit", {"command": "commit", "message": TASK, "path": copied[0]["data"]["address"]}
        )
        finished = await agent.call("ck3_contract", {"command": "close"})
        if finished["reply_type"] == "I":  # the next contract's own new files: declared the same way
            await agent.ready(finished)
            finished = await agent.call("ck3_contract", {"command": "close"})

    assert [r["reply_type"] for r in refused] == ["D", "D"]
    assert [r["data"]["required"] for r in refused] == ["local_mod", "local_mod"]
    assert [c["data"]["required"] for c in copies] == ["contract", "contract"]
    assert {c["data"]["root_category"] for c in copies} == {opening["arguments"]["root_category"]}
    assert opened["reply_type"] == "S", opened
    assert [c["reply_type"] for c in copied] == ["S", "S"], copied
    assert [e["reply_type"] for e in edited] == ["S", "S"], edited
    assert refused_close["reply_type"] == "I"
    assert declared["reply_type"] == "S", declared
    assert closed["reply_type"] == "S", closed
    assert not_staged["data"]["required"] == "contract"
    assert (reopened["reply_type"], staged["reply_type"]) == ("S", "S"), (reopened, staged)
    assert committed["reply_type"] == "S", committed
    assert finished["reply_type"] == "S", (finished["data"], reopened["data"].get("targets"))
    assert [env["code"] for _, _, env in agent.transcript if env["reply_type"] == "E"] == []
    words_copy = mod / "localization" / "english" / "better_traits_l_english.yml"
    assert words_copy.read_bytes().startswith(b"\xef\xbb\xbf")  # the copy kept the workshop file's BOM
    assert "trait_fearless" in words_copy.read_text(encoding="utf-8-sig")
