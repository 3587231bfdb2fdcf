"""Calls over stdio on the CK3-shaped world: ck3raven beside its floors, stock FastMCP 4 with the same tools
doing the same raw work (bench/stock_server.py) and (with --peers) the Node reference server, all up at
once, every case's contenders taken in turn each round (the order reversed every other round). A row held
against stock or a floor judges the per-round ratios (differences for a trivial call and a read), each
order's median averaged (bench/report.py), and shows their quartiles and range, and the load average
while its rounds ran. Stock's answers are
checked to carry the same data as ours.

Cases (medians of each contender's rounds; ours is timed from request to response by bench/rpc.py):
  trivial call   `ck3_dir pwd` against the stock server's one tool (and the reference's
                 `list_allowed_directories`): the per-call overhead.
  list           `ck3_dir list` of the 2,000-entry folder (limit 2,000: the whole folder in one page).
                 Floor: os.scandir, an lstat each, sorted rows, compact JSON. The reply middleware with the
                 leak gate is run in process on the same reply, as a share of the call (and, for the
                 smaller cases, to show where a call's time goes).
  tree           `ck3_dir tree` of the game folder, depth 3 and whole. ck3raven's tree lists folders, so
                 its floor walks folders only; the reference's `directory_tree` lists files too (depth 3
                 through its excludePatterns `*/*/*/*`), so its floor walks everything and builds its
                 nested JSON. Each is held against its own floor.
  read, write    10 KiB through `ck3_read` / `ck3_file write` (a wip file: no contract needed). Floors:
                 open+read+decode; an atomic write with the file and its folder fsynced, as ck3raven
                 writes. The reference fsyncs nothing: its floor (temp file, rename) neither.
  search         `ck3_search` names and contents, and a filtered `ck3_dir list`, against the floors in
                 bench/floors.py; with --peers the reference's `search_files` on the same names.
The handler column is the same command answered by the core in this process (no MCP). Peak resident sets
are read from each server just before it is shut down.

    python bench/calls.py [--rounds 9] [--peers]
"""

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floors
from common import (
    CONTENT,
    INDEX_ASK,
    WIDE,
    Place,
    ensure_world,
    ours,
    reference,
    scratch_place,
    stock,
    wait_for_index,
)
from inproc import Direct, Middleware
from report import Row, Target, table
from rpc import Answer, RawServer
from timing import Contender, clocked, interleave

FOLDER = f"ROOT_GAME:/{WIDE}"


class Call:
    """A stdio contender: one tools/call per round; keeps its last answer for the checks and byte counts."""

    def __init__(self, server: RawServer, tool: str, args: dict[str, Any]) -> None:
        self.server, self.tool, self.args = server, tool, args
        self.last: Answer | None = None

    def __call__(self) -> float:
        self.last = self.server.call_tool(self.tool, self.args)
        self.last.tool_result()
        return self.last.seconds

    def data(self) -> Any:  # noqa: ANN401 - ck3raven's reply data, or the reference's text
        assert self.last is not None
        content = self.last.tool_result()["structuredContent"]
        return content["data"] if "data" in content else content["content"]


@dataclass
class Peer:
    """The reference server's side of a case: its call, its own floor (None: it shares ours), a check."""

    tool: str
    args: dict[str, Any]
    floor_label: str = ""
    floor: Callable[[], object] | None = None
    same: Callable[[Any, object], bool] = lambda _, __: True
    target: Target | None = None


@dataclass
class Case:
    title: str
    tool: str
    args: dict[str, Any]
    floor_label: str
    floor: Callable[[], object]
    same: Callable[[Any, object], bool]
    target: Target | None = None
    weight: int = 1
    """At most this many rounds per --rounds, while they fit in the time budget of a case: fast cases
    take more, so that their medians settle."""
    peer: Peer | None = None
    short: str = ""
    """The title of the row against the reference server (the title itself when empty)."""
    note: str = ""
    breakdown: bool = False
    """Also run the reply middleware (and each piece of it) on this case's reply, in the same rounds."""
    share: Target | None = None
    """A target for the middleware's share of the call over stdio (a row of its own)."""
    stock: Target | bool | None = False
    """Stock FastMCP makes the same call too (with `stock_args` when given) and a paired row holds ours
    against it (False: it does not; None: a row without a target)."""
    stock_args: dict[str, Any] | None = None


@dataclass
class Servers:
    ours: RawServer
    stock: RawServer
    reference: RawServer | None
    direct: Direct
    middleware: Middleware
    problems: list[str] = field(default_factory=list)


def cases(place: Place) -> list[Case]:
    game, wip = place.game, place.wip
    read_file = wip / "read.txt"
    read_file.write_text(CONTENT, encoding="utf-8")
    (wip / "floor.txt").write_text(CONTENT, encoding="utf-8")
    (wip / "reference.txt").write_text(CONTENT, encoding="utf-8")
    (wip / "reference-floor.txt").write_text(CONTENT, encoding="utf-8")

    def listed(data: Any, floor: object) -> bool:  # noqa: ANN401
        return bool([dict(e) for e in data["entries"]] == json.loads(str(floor)))

    def folders(data: Any, floor: object) -> bool:  # noqa: ANN401
        return bool(list(data["directories"]) == json.loads(str(floor)))

    def hits(data: Any, floor: Any) -> bool:  # noqa: ANN401
        return [(h["address"], h["line"]) for h in data["hits"]] == [(h["address"], h["line"]) for h in floor]

    def nested(text: Any, floor: object) -> bool:  # noqa: ANN401
        return bool(json.loads(text) == json.loads(str(floor)))

    def lines(text: Any, floor: object) -> bool:  # noqa: ANN401
        return sorted(str(text).splitlines()) == sorted(str(floor).splitlines())

    tree_d3 = Peer(
        "directory_tree",
        {"path": str(game), "excludePatterns": ["*/*/*/*"]},
        "its floor: nested, files too",
        lambda: floors.nested_tree(game, 3),
        nested,
    )
    tree_all = Peer(
        "directory_tree",
        {"path": str(game)},
        "its floor: nested, files too",
        lambda: floors.nested_tree(game, 64),
        nested,
    )
    return [
        Case(
            "ck3_dir list, 2,000 entries",
            "ck3_dir",
            {"command": "list", "path": FOLDER, "limit": 2000},
            "floor: scandir + lstat, JSON",
            lambda: floors.listing(game / WIDE),
            listed,
            Target("ratio", 1.5),
            weight=3,
            breakdown=True,
            share=Target("share", 0.08),
            stock=Target("ratio", 1.15),
            short="ck3_dir list 2,000",
            peer=Peer(
                "list_directory_with_sizes",
                {"path": str(game / WIDE)},
                "its floor: scandir + stat, text",
                lambda: floors.sized_listing(game / WIDE),
                lines,
            ),
        ),
        Case(
            "ck3_dir tree, depth 3 (folders)",
            "ck3_dir",
            {"command": "tree", "path": "ROOT_GAME:/", "depth": 3, "limit": 20_000},
            "floor: scandir walk, folders only",
            lambda: floors.folders_tree(game, 3),
            folders,
            Target("ratio", 1.5),
            weight=3,
            breakdown=True,
            stock=Target("ratio", 1.15),
            short="ck3_dir tree depth 3",
            peer=tree_d3,
        ),
        Case(
            "ck3_dir tree, whole (folders)",
            "ck3_dir",
            {"command": "tree", "path": "ROOT_GAME:/", "depth": 64, "limit": 20_000},
            "floor: scandir walk, folders only",
            lambda: floors.folders_tree(game, 64),
            folders,
            Target("ratio", 1.2),
            weight=2,
            stock=None,
            short="ck3_dir tree whole",
            peer=tree_all,
        ),
        Case(
            "ck3_read, 10 KiB",
            "ck3_read",
            {"path": "ROOT_CK3RAVEN_DATA:/wip/read.txt"},
            "floor: open + read + decode",
            lambda: floors.read_text(read_file),
            lambda data, floor: data["content"] == floor,
            weight=5,
            breakdown=True,
            stock=Target("delta", 0.3),
            short="ck3_read 10 KiB",
            peer=Peer("read_text_file", {"path": str(read_file)}, same=lambda text, floor: text == floor),
        ),
        Case(
            "ck3_file write, 10 KiB (fsync)",
            "ck3_file",
            {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/ours.txt", "content": CONTENT},
            "floor: atomic write, fsync file+dir",
            lambda: floors.write_synced(wip / "floor.txt", CONTENT),
            lambda data, _: data["size"] == len(CONTENT),
            weight=5,
            stock=None,
            stock_args={"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/stock.txt", "content": CONTENT},
            short="ck3_file write 10 KiB",
            peer=Peer(
                "write_file",
                {"path": str(wip / "reference.txt"), "content": CONTENT},
                "its floor: temp + rename, no fsync",
                lambda: floors.write_unsynced(wip / "reference-floor.txt", CONTENT),
            ),
            note="ck3raven and its floor fsync the file and the folder; the reference and its floor do not",
        ),
        Case(
            f"ck3_search names, {floors.NAMES_GLOB}",
            "ck3_search",
            {"command": "names", "glob": floors.NAMES_GLOB, "path": "ROOT_GAME:/", "limit": 10_000},
            "floor: sorted scandir walk + regex",
            lambda: floors.names(game),
            lambda data, floor: [m["address"] for m in data["matches"]] == floor,
            Target("ratio", 1.5),
            stock=None,
            short="ck3_search names",
            peer=Peer(
                "search_files",
                {"path": str(game), "pattern": floors.NAMES_GLOB},
                same=lambda text, floor: len(str(text).splitlines()) == len(floor),  # type: ignore[arg-type]
                target=Target("faster", 30),
            ),
        ),
        Case(
            f"ck3_search contents, {floors.LITERAL}",
            "ck3_search",
            {
                "command": "contents",
                "pattern": floors.LITERAL,
                "glob": "*.txt",
                "path": "ROOT_GAME:/",
                "max_files": 200_000,
                "limit": 10_000,
                "max_bytes": 2**31,
                "max_seconds": 120,
            },
            "floor: walk, read each .txt, find",
            lambda: floors.contents(game),
            hits,
            Target("ratio", 2.0),
        ),
        Case(
            f"ck3_dir list, glob {floors.LIST_GLOB}",
            "ck3_dir",
            {"command": "list", "path": FOLDER, "glob": floors.LIST_GLOB},
            "floor: scandir + fnmatch + lstat",
            lambda: floors.filtered_listing(game / WIDE),
            lambda data, floor: [dict(e) for e in data["entries"]] == floor,
            Target("ratio", 1.5),
            weight=3,
            breakdown=True,
        ),
    ]


# ------------------------------------------------------------------ running


def trivial(servers: Servers, rounds: int) -> list[Row]:
    mine = Call(servers.ours, "ck3_dir", {"command": "pwd"})
    theirs = Call(servers.stock, "ck3_dir", {"command": "pwd"})
    contenders: dict[str, Contender] = {
        "handler": clocked(lambda: servers.direct.answer("ck3_dir", {"command": "pwd"})),
        "ours": mine,
        "stock": theirs,
    }
    node = None if servers.reference is None else Call(servers.reference, "list_allowed_directories", {})
    if node is not None:
        contenders["reference"] = node
    contenders |= middleware_parts("ck3_dir", {"command": "pwd"}, servers)
    load = os.getloadavg()[0]
    samples = interleave(contenders, rounds, most=rounds * 30)
    load = max(load, os.getloadavg()[0])
    middle = {name: statistics.median(values) for name, values in samples.items()}
    rows = [
        Row(
            "trivial call (ck3_dir pwd)",
            middle["ours"],
            "ms",
            STOCK,
            middle["stock"],
            Target("delta", 0.3),
            _size(mine),
            _size(theirs),
            handler=middle["handler"],
            note=breakdown_note(middle),
            samples={"ours": samples["ours"], "other": samples["stock"]},
            paired=True,
            load=load,
        )
    ]
    if node is not None:
        rows.append(
            Row(
                "trivial call: vs reference",
                middle["ours"],
                "ms",
                "reference list_allowed_directories",
                middle["reference"],
                ours_bytes=_size(mine),
                other_bytes=_size(node),
            )
        )
    return rows


STOCK = "stock FastMCP 4, same tools and raw work"


def run_case(case: Case, servers: Servers, rounds: int) -> list[Row]:  # noqa: C901 - one row per comparison
    mine = Call(servers.ours, case.tool, case.args)
    contenders: dict[str, Contender] = {
        "floor": clocked(case.floor),
        "handler": clocked(lambda: servers.direct.answer(case.tool, case.args)),
        "ours": mine,
    }
    theirs = None
    if case.stock is not False:
        theirs = Call(servers.stock, case.tool, case.stock_args or case.args)
        contenders["stock"] = theirs
    node = None
    if case.peer is not None and servers.reference is not None:
        node = Call(servers.reference, case.peer.tool, case.peer.args)
        if case.peer.floor is not None:
            contenders["reference floor"] = clocked(case.peer.floor)
        contenders["reference"] = node
    if case.breakdown:
        contenders |= middleware_parts(case.tool, case.args, servers)
    load = os.getloadavg()[0]
    samples = interleave(contenders, rounds, most=rounds * case.weight)
    load = max(load, os.getloadavg()[0])
    middle = {name: statistics.median(values) for name, values in samples.items()}
    _check(case, servers, mine, node)
    if theirs is not None and case.stock_args is None and _data(mine) != _data(theirs):
        servers.problems.append(
            f"{case.title}: stock FastMCP answered other data than ck3raven ({_differing(mine, theirs)})"
        )
    row = Row(
        case.title,
        middle["ours"],
        "ms",
        case.floor_label,
        middle["floor"],
        case.target,
        _size(mine),
        handler=middle["handler"],
        note="; ".join(
            part for part in (case.note, breakdown_note(middle) if case.breakdown else "") if part
        ),
        samples={"ours": samples["ours"], "other": samples["floor"]},
        paired=True,
        load=load,
    )
    rows = [row]
    if theirs is not None:
        rows.append(
            Row(
                f"{case.short or case.title}: vs stock",
                middle["ours"],
                "ms",
                STOCK,
                middle["stock"],
                case.stock if isinstance(case.stock, Target) else None,
                _size(mine),
                _size(theirs),
                samples={"ours": samples["ours"], "other": samples["stock"]},
                paired=True,
                load=load,
            )
        )
    if node is not None and case.peer is not None:
        rows.append(_peer_row(case, case.peer, middle, mine, node))
    if case.share is not None:
        rows.append(share_row(case.share, middle))
    return rows


def _peer_row(case: Case, peer: Peer, middle: dict[str, float], mine: Call, node: Call) -> Row:
    own = (
        f"its own floor ({peer.floor_label.removeprefix('its floor: ')})" if peer.floor else "the same floor"
    )
    theirs_floor = middle.get("reference floor", middle["floor"])
    return Row(
        f"{case.short or case.title}: vs reference",
        middle["ours"],
        "ms",
        f"reference {peer.tool}",
        middle["reference"],
        peer.target,
        _size(mine),
        _size(node),
        note=(
            f"each against its own floor: ck3raven {middle['ours'] / middle['floor']:.2f}x,"
            f" reference {middle['reference'] / theirs_floor:.2f}x {own}"
        ),
    )


PIECES = ("envelope", "leak gate", "audit row")


def middleware_parts(tool: str, args: dict[str, Any], servers: Servers) -> dict[str, Contender]:
    """The reply middleware on this call's reply, and (each alone) the pieces of its work."""
    parts = servers.middleware
    reply = servers.direct.answer(tool, args)
    text = parts.envelope(reply, tool)
    return {
        "middleware": lambda: parts.run(tool, args, reply)[0],
        "envelope": clocked(lambda: parts.envelope(reply, tool)),
        "leak gate": clocked(lambda: parts.gate.leaks_in_json(text)),
        "audit row": clocked(lambda: parts.audit(reply, tool)),
    }


def breakdown_note(middle: dict[str, float]) -> str:
    """Where the call's time goes, from the medians of its rounds."""
    rest = middle["ours"] - middle["handler"] - middle["middleware"]
    pieces = ", ".join(f"{name} {middle[name] * 1e3:.2f}" for name in PIECES)
    return (
        f"handler {middle['handler'] * 1e3:.2f} ms + middleware {middle['middleware'] * 1e3:.2f} ms"
        f" ({pieces}, each alone) + the rest by difference (FastMCP, the SDK, the pipe) {rest * 1e3:.2f} ms"
    )


def share_row(target: Target, middle: dict[str, float]) -> Row:
    return Row(
        "reply middleware + leak gate, of that call",
        middle["middleware"],
        "ms",
        "the same call over stdio",
        middle["ours"],
        target,
    )


def _check(case: Case, servers: Servers, mine: Call, node: Call | None) -> None:
    """Both servers' last answers hold what their floors build; a difference is reported, not hidden."""
    if not case.same(mine.data(), case.floor()):
        servers.problems.append(f"{case.title}: ck3raven answered differently from its floor")
    if node is not None and case.peer is not None:
        floor = case.peer.floor or case.floor
        if not case.peer.same(node.data(), floor()):
            servers.problems.append(f"{case.title}: the reference answered differently from its floor")


def _data(call: Call) -> object:
    """The envelope's data, less what a search says of the entries it looked at (ck3raven may look at
    fewer, skipping what it need not enter)."""
    data = call.data()
    return {key: value for key, value in data.items() if key not in {"scanned", "hint"}}


def _differing(mine: Call, theirs: Call) -> str:
    """What differs between two answers' data: the keys, and for a list the first row that differs."""
    ours, other = _data(mine), _data(theirs)
    told = [
        f"{key} only {'in ours' if key in ours else 'in stock'}" for key in sorted(set(ours) ^ set(other))
    ]
    for key in sorted(set(ours) & set(other)):
        a, b = ours[key], other[key]
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list):
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            told.append(
                f"{key}: {len(a)} vs {len(b)} rows, first differing at {at}: {a[at:][:1]} vs {b[at:][:1]}"
            )
        else:
            told.append(f"{key}: {a!r} vs {b!r}")
    return "; ".join(told)


def _size(call: Call) -> int | None:
    return None if call.last is None else call.last.size


def rss_rows(servers: Servers) -> list[Row]:
    def mib(server: RawServer | None) -> float | None:
        kib = None if server is None else server.peak_rss_kib()
        return None if kib is None else kib / 1024

    rows = [Row("peak RSS after the calls", mib(servers.ours), "MiB", "stock FastMCP 4", mib(servers.stock))]
    if servers.reference is not None:
        rows.append(
            Row(
                "peak RSS after the calls",
                mib(servers.ours),
                "MiB",
                "reference server (Node)",
                mib(servers.reference),
            )
        )
    return rows


def measure(place: Place, rounds: int, *, peers: bool) -> tuple[list[Row], list[str]]:
    """Every case's rows, and the differences from floors found on the way."""
    specs = [ours(place), stock(place)] + ([reference(place)] if peers else [])
    started = [RawServer(spec, place.errlog(spec.name)) for spec in specs]
    middleware = Middleware(place.config, place.base / "bench-state")
    try:
        for server in started:
            server.initialize()
        mine = started[0]
        waited = wait_for_index(lambda: mine.call_tool("ck3_playset", INDEX_ASK).result["structuredContent"])
        print(f"calls: ck3raven's content index built after {waited:.0f} s; timing starts", file=sys.stderr)
        servers = Servers(
            started[0], started[1], started[2] if peers else None, Direct(place.config), middleware
        )
        rows = trivial(servers, rounds)
        for case in cases(place):
            rows += run_case(case, servers, rounds)
        rows += rss_rows(servers)
        return rows, servers.problems
    finally:
        for server in started:
            server.close()
        middleware.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--peers", action="store_true", help="add the Node reference server")
    args = parser.parse_args()
    with scratch_place(ensure_world()) as place:
        rows, problems = measure(place, args.rounds, peers=args.peers)
    print(table(rows))
    for problem in problems:
        print(f"! {problem}")


if __name__ == "__main__":
    main()
