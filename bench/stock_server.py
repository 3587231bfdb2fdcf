# ruff: noqa: ARG001, PTH105, PTH108, PTH118, PTH120, PTH123 - unused parameters are the input schema; plain os calls are the raw work
"""Stock FastMCP 4 doing ck3raven's raw work with no governance: what a user compares ck3raven with.

It offers the same ten tools with the same parameters (so the same input schemas, validated the same
strict way), and takes their descriptions, annotations and output schemas from ck3raven's own `tools/list`,
saved by the bench to the JSON file named on the command line: its `tools/list` is ck3raven's, byte for
byte in what matters. Each call answers the same envelope (SPEC §6) as structured content and as its
compact JSON text. The calls the bench makes do the same raw work as ck3raven's, and nothing else:
addresses mapped to host paths by a lookup, `list` (scandir, an lstat each, sorted rows), `tree` (folders
only, depth-first in name order), `read` (whole file, decoded, its sha256 and line counts), `write` (atomic,
file and folder fsynced, and one row committed to an SQLite database in WAL mode with synchronous=FULL),
`search names` (a sorted walk, the glob matched on each relative path). Every other command answers an
Invalid envelope.

    python bench/stock_server.py TOOLS_JSON STATE_DB ROOT=PATH [ROOT=PATH ...] [--http=PORT]
"""

import hashlib
import json
import os
import re
import sqlite3
import sys
import tempfile
import threading
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastmcp import Context, FastMCP
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import BaseModel, ConfigDict, Field

Address = Annotated[
    str | None, Field(description="ROOT_X:/rel/path, mod:<Name>:/rel/path or a path relative to the home")
]
ContractId = Annotated[
    str | None, Field(description="a contract's id (default: the session's open contract)")
]
Sha256 = Annotated[
    str | None,
    Field(
        pattern="^[0-9a-fA-F]{64}$",
        description="the sha256 a read returned: refused if the file changed since (a missing file too)",
    ),
]


class Replacement(BaseModel):
    """One replacement of an edit."""

    model_config = ConfigDict(extra="forbid", strict=True)
    old_string: str = Field(description="text that occurs exactly once when this replacement's turn comes")
    new_string: str = Field(description="its replacement")


class Symbol(BaseModel):
    """A symbol intended as new: its name, and the address of the file it is in (optional)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(description="the symbol's name, or * for every symbol the file adds")
    path: str | None = Field(default=None, description="the address of the file it is in")


class DeclaredTarget(BaseModel):
    """A target declared in a contract."""

    model_config = ConfigDict(extra="forbid", strict=True)
    path: str = Field(description="the target's address")
    edit_kind: Literal["add", "modify", "delete"] = Field(description="what the work does to it")


class Stock:
    """The raw work, over roots named as ck3raven names them; home ROOT_GAME."""

    def __init__(self, roots: Mapping[str, str], database: str) -> None:
        self.roots = dict(roots)
        self.home = "ROOT_GAME"
        self._db = sqlite3.connect(database, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, address TEXT, sha256 TEXT)"
        )
        self._lock = threading.Lock()

    def host(self, address: str) -> tuple[str, str]:
        """The address made whole (ROOT:/rel, no trailing slash) and its host path."""
        root, _, rel = address.partition(":/")
        rel = rel.strip("/")
        base = self.roots[root]
        return (f"{root}:/{rel}" if rel else f"{root}:/"), (os.path.join(base, rel) if rel else base)

    def pwd(self) -> tuple[str, str, dict[str, Any]]:
        return (
            "MCP-CFG-S-001",
            f"The session home is {self.home}.",
            {"home": self.home, "address": f"{self.home}:/"},
        )

    def listing(self, address: str, limit: int) -> tuple[str, str, dict[str, Any]]:
        whole, folder = self.host(address)
        rows = []
        with os.scandir(folder) as it:
            for entry in sorted(it, key=lambda e: e.name):
                info = entry.stat(follow_symlinks=False)
                kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
                rows.append({"name": entry.name, "kind": kind, "size": info.st_size})  # below the folder
        shown = rows[:limit]
        more = len(shown) < len(rows)
        data: dict[str, Any] = {
            "address": whole,
            "entries": shown,
            "count": len(shown),
            "total": len(rows),
            "truncated": more,
            "next_cursor": shown[-1]["name"] if more else None,
            "hint": "More entries follow: call again with cursor=next_cursor." if more else None,
        }
        return "WA-READ-S-001", f"{whole}: {len(shown)} entries of {len(rows)} that match.", data

    def tree(self, address: str, depth: int) -> tuple[str, str, dict[str, Any]]:
        whole, folder = self.host(address)
        prefix = whole.rstrip("/") + "/"
        found: list[str] = []

        def walk(path: str, rel: str, left: int) -> None:
            with os.scandir(path) as it:
                names = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
            for name in names:
                found.append(prefix + rel + name)
                if left > 1:
                    walk(f"{path}/{name}", f"{rel}{name}/", left - 1)

        walk(folder, "", depth)
        data = {
            "address": whole,
            "depth": depth,
            "directories": found,
            "count": len(found),
            "truncated": False,
            "next_cursor": None,
            "hint": None,
        }
        return "WA-READ-S-002", f"{len(found)} folders below {whole}, down {depth} levels.", data

    def read(self, address: str) -> tuple[str, str, dict[str, Any]]:
        whole, path = self.host(address)
        with open(path, "rb") as handle:
            raw = handle.read()
        text = raw.decode("utf-8")
        lines = len(text.splitlines())
        data = {
            "address": whole,
            "content": text,
            "size": len(raw),
            "sha256": hashlib.sha256(raw).hexdigest(),
            "total_lines": lines,
            "first_line": 1,
            "last_line": lines,
            "truncated": False,
            "next_offset": None,
        }
        return "WA-READ-S-003", f"{whole}: lines 1 to {lines} of {lines} ({len(raw)} bytes in all).", data

    def write(self, address: str, content: str) -> tuple[str, str, dict[str, Any]]:
        whole, path = self.host(address)
        raw = content.encode("utf-8")
        folder = os.path.dirname(path)
        created = not os.path.lexists(path)
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".stock-")
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        sha = hashlib.sha256(raw).hexdigest()
        with self._lock:
            self._db.execute("INSERT INTO writes (address, sha256) VALUES (?, ?)", (whole, sha))
        data = {"address": whole, "created": created, "adjusted": [], "size": len(raw), "sha256": sha}
        return "WA-WRITE-S-001", f"Wrote {len(raw)} bytes to {whole}.", data

    def names(self, address: str, glob: str, limit: int) -> tuple[str, str, dict[str, Any]]:
        whole, folder = self.host(address)
        prefix = whole.rstrip("/") + "/"
        pattern = _glob_regex(glob)
        matches: list[dict[str, str]] = []
        scanned = 0

        def walk(path: str, rel: str) -> None:
            nonlocal scanned
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
            for entry in entries:
                scanned += 1
                child = rel + entry.name
                is_dir = entry.is_dir(follow_symlinks=False)
                if pattern.fullmatch(child) and len(matches) < limit:
                    matches.append({"address": prefix + child, "kind": "dir" if is_dir else "file"})
                if is_dir:
                    walk(entry.path, child + "/")

        walk(folder, "")
        data = {
            "glob": glob,
            "matches": matches,
            "count": len(matches),
            "scanned": scanned,
            "truncated": False,
            "next_cursor": None,
            "hint": None,
        }
        return "WA-READ-S-007", f"{len(matches)} names match {glob} ({scanned} entries looked at).", data


def _glob_regex(glob: str) -> re.Pattern[str]:
    """`*` within a name, `**/` any folders, `?` one character; without a `/`, a name at any depth."""
    body = glob if "/" in glob else "**/" + glob
    out, index = [], 0
    while index < len(body):
        if body.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        char = body[index]
        out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return re.compile("".join(out))


def envelope(tool: str, code: str, message: str, data: Mapping[str, Any]) -> ToolResult:
    """The envelope as structured content and as its compact JSON text."""
    kind = code.split("-")[2]
    trace = uuid.uuid4().hex
    whole = {
        "status": {"S": "success", "I": "invalid", "D": "denied", "E": "error"}[kind],
        "reply_type": kind,
        "code": code,
        "message": message,
        "data": data,
        "meta": {"trace_id": trace, "duration_ms": 0.0, "tool": tool},
        "error": {"trace_id": trace} if kind == "E" else None,
    }
    text = json.dumps(whole, separators=(",", ":"), ensure_ascii=False)
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=whole)


def unserved(tool: str) -> ToolResult:
    return envelope(tool, "MCP-VAL-I-001", "This command is not offered here.", {})


def build(stock: Stock, described: Mapping[str, Mapping[str, Any]]) -> FastMCP:  # noqa: C901
    server = FastMCP("stock", strict_input_validation=True, mask_error_details=True, on_duplicate="error")

    def tool(name: str):  # noqa: ANN202 - the decorator with ck3raven's own description and schemas
        spec = described[name]
        return server.tool(
            name=name,
            description=spec.get("description"),
            output_schema=spec.get("outputSchema"),
            annotations=spec.get("annotations"),
        )

    @tool("ck3_dir")
    def ck3_dir(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[Literal["pwd", "list", "tree"], Field(description="what to do")] = "pwd",
        path: Address = None,
        depth: Annotated[
            int | None, Field(ge=1, le=64, description="tree: folder levels to descend (3)")
        ] = None,
        glob: Annotated[str | None, Field(description="list: only names matching, e.g. *.yml")] = None,
        cursor: Annotated[str | None, Field(description="list: next_cursor of the page before")] = None,
        limit: Annotated[
            int | None,
            Field(ge=1, le=20_000, description="list: entries per page; tree: folders (what fits)"),
        ] = None,
        include_ignored: Annotated[
            bool | None, Field(description="list, tree: include git-ignored entries and .git (false)")
        ] = None,
    ) -> ToolResult:
        if command == "pwd":
            return envelope("ck3_dir", *stock.pwd())
        if glob is not None or cursor is not None:
            return unserved("ck3_dir")
        where = path or f"{stock.home}:/"
        if command == "list":
            return envelope("ck3_dir", *stock.listing(where, limit or 1000))
        return envelope("ck3_dir", *stock.tree(where, depth or 3))

    @tool("ck3_read")
    def ck3_read(  # noqa: PLR0913, PLR0917
        ctx: Context,
        path: Address,
        offset: Annotated[int | None, Field(ge=1, description="the first line (1-based)")] = None,
        limit: Annotated[int | None, Field(ge=1, description="how many lines from offset")] = None,
        head: Annotated[int | None, Field(ge=1, description="the first N lines")] = None,
        tail: Annotated[int | None, Field(ge=1, description="the last N lines")] = None,
    ) -> ToolResult:
        if path is None or offset or limit or head or tail:
            return unserved("ck3_read")
        return envelope("ck3_read", *stock.read(path))

    @tool("ck3_search")
    def ck3_search(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[Literal["names", "contents"], Field(description="what to search")],
        glob: Annotated[
            str | None, Field(description="names: the glob to match; contents: only in files it matches")
        ] = None,
        pattern: Annotated[str | None, Field(description="contents: the text to find")] = None,
        regex: Annotated[
            bool | None, Field(description="contents: pattern is an RE2 regex, no lookaround (false)")
        ] = None,
        ignore_case: Annotated[bool | None, Field(description="match case-insensitively (false)")] = None,
        path: Annotated[
            str | None, Field(description="the folder to search, an address (default: the whole world)")
        ] = None,
        include_ignored: Annotated[
            bool | None, Field(description="include git-ignored files and .git (false)")
        ] = None,
        limit: Annotated[
            int | None, Field(ge=1, le=10_000, description="names: matches (500); contents: lines (200)")
        ] = None,
        max_files: Annotated[
            int | None, Field(ge=1, le=200_000, description="contents: files read (20000)")
        ] = None,
        max_bytes: Annotated[int | None, Field(ge=1, le=2**31, description="contents: bytes read")] = None,
        max_seconds: Annotated[
            int | None, Field(ge=1, le=120, description="contents: time budget in seconds (2)")
        ] = None,
    ) -> ToolResult:
        if command != "names" or glob is None:
            return unserved("ck3_search")
        return envelope("ck3_search", *stock.names(path or f"{stock.home}:/", glob, limit or 500))

    @tool("ck3_git")
    def ck3_git(
        ctx: Context,
        command: Annotated[Literal["status", "diff", "log"], Field(description="what to show")],
        path: Annotated[
            str | None,
            Field(description="status, log: an address in the repository (ROOT_REPO); diff: the file"),
        ] = None,
        limit: Annotated[int | None, Field(ge=1, le=200, description="log: newest commits (20)")] = None,
    ) -> ToolResult:
        return unserved("ck3_git")

    @tool("ck3_mode")
    async def ck3_mode(
        ctx: Context,
        command: Annotated[Literal["status", "init", "cd"], Field(description="what to do")] = "status",
        mode: Annotated[
            Literal["ck3lens", "ck3raven-dev"] | None, Field(description="init: the mode to ask for")
        ] = None,
        root_category: Annotated[
            str | None, Field(description="cd: the root to make home, e.g. ROOT_GAME")
        ] = None,
    ) -> ToolResult:
        return unserved("ck3_mode")

    @tool("ck3_playset")
    def ck3_playset(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[
            Literal["list", "show", "switch", "which", "overrides"], Field(description="what to do")
        ] = "list",
        name: Annotated[str | None, Field(description="show, switch: a playset; overrides: a mod")] = None,
        path: Annotated[
            str | None,
            Field(description="which, overrides: a game-relative path, e.g. common/traits/00_traits.txt"),
        ] = None,
        cursor: Annotated[str | None, Field(description="overrides: next_cursor of the page before")] = None,
        limit: Annotated[
            int | None, Field(ge=1, le=1_000, description="overrides: paths per page (100)")
        ] = None,
    ) -> ToolResult:
        return unserved("ck3_playset")

    @tool("ck3_file")
    def ck3_file(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[Literal["write", "edit", "delete"], Field(description="what to do")],
        path: Address,
        content: Annotated[str | None, Field(description="write: the whole new text")] = None,
        old_string: Annotated[str | None, Field(description="edit: text that occurs exactly once")] = None,
        new_string: Annotated[str | None, Field(description="edit: its replacement")] = None,
        edits: Annotated[
            list[Replacement] | None,
            Field(max_length=50, description="edit: several replacements (up to 50), in order, all or none"),
        ] = None,
        expected_sha256: Sha256 = None,
        create_only: Annotated[
            bool | None, Field(description="write: refuse if the file exists (false)")
        ] = None,
        dry_run: Annotated[
            bool | None, Field(description="write, edit: answer with a unified diff, write nothing")
        ] = None,
    ) -> ToolResult:
        if command != "write" or path is None or content is None:
            return unserved("ck3_file")
        return envelope("ck3_file", *stock.write(path, content))

    @tool("ck3_commit")
    def ck3_commit(
        ctx: Context,
        command: Annotated[Literal["add", "commit"], Field(description="what to do")],
        path: Annotated[
            str | None, Field(description="commit: an address in the repository (ROOT_REPO)")
        ] = None,
        paths: Annotated[list[str] | None, Field(description="add: the files' addresses")] = None,
        message: Annotated[str | None, Field(description="commit: the commit message")] = None,
    ) -> ToolResult:
        return unserved("ck3_commit")

    @tool("ck3_contract")
    async def ck3_contract(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[
            Literal["open", "close", "cancel", "renew", "status", "list", "stash_carry_over", "revert"],
            Field(description="what to do"),
        ],
        root_category: Annotated[
            str | None, Field(description="open, stash_carry_over: the root the work is in")
        ] = None,
        intent: Annotated[str | None, Field(description="open: why the work is done")] = None,
        operations: Annotated[
            list[Literal["READ", "WRITE", "DELETE"]] | None, Field(description="open: what the work does")
        ] = None,
        targets: Annotated[
            list[DeclaredTarget] | None, Field(description="open: each file the work changes")
        ] = None,
        work_declaration: Annotated[
            str | None, Field(description="open: what the work is, in a sentence")
        ] = None,
        contract_id: ContractId = None,
        ttl_minutes: Annotated[
            int | None, Field(ge=1, le=480, description="open, renew: minutes it lasts (120)")
        ] = None,
        dry_run: Annotated[bool | None, Field(description="revert: only show what it would do")] = None,
        cursor: Annotated[
            str | None, Field(description="close: the next_cursor of a refusal, for the rest of its list")
        ] = None,
    ) -> ToolResult:
        return unserved("ck3_contract")

    @tool("ck3_token")
    async def ck3_token(  # noqa: PLR0913, PLR0917
        ctx: Context,
        command: Annotated[Literal["nst", "lxe", "list"], Field(description="what to do")],
        symbols: Annotated[list[Symbol] | None, Field(description="nst: the symbols intended as new")] = None,
        reason: Annotated[str | None, Field(description="nst, lxe: why")] = None,
        rules: Annotated[list[str] | None, Field(description="lxe: rule codes, e.g. F401, CK3-BOM")] = None,
        paths: Annotated[list[str] | None, Field(description="lxe: addresses in the contract's root")] = None,
        max_violations: Annotated[
            int | None, Field(ge=1, le=10_000, description="lxe: at most this many")
        ] = None,
        contract_id: ContractId = None,
    ) -> ToolResult:
        return unserved("ck3_token")

    return server


def main() -> None:
    tools_json, database, *pairs = sys.argv[1:]
    with open(tools_json, encoding="utf-8") as handle:
        described = {tool["name"]: tool for tool in json.load(handle)}
    http = [pair.removeprefix("--http=") for pair in pairs if pair.startswith("--http=")]
    roots = dict(pair.split("=", 1) for pair in pairs if not pair.startswith("--"))
    server = build(Stock(roots, database), described)
    if http:
        server.run(
            transport="http", host="127.0.0.1", port=int(http[0]), show_banner=False, log_level="warning"
        )
    else:
        server.run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    main()
