"""ck3-tiger's JSON output as the validator adapter reads it: an array or objects one after another, each
report placed at its first location below the mod's folder, host paths kept out."""

import json
import stat
from pathlib import Path

from adapters.tiger_validator import TigerValidator


def report(key: str, fullpath: str, line: int | None) -> dict[str, object]:
    location = {"path": "p", "fullpath": fullpath, "linenr": line, "from": "MOD", "line": "", "tag": None}
    return {
        "severity": "warning",
        "confidence": "weak",
        "key": key,
        "message": f"at {fullpath}",
        "locations": [location],
    }


def test_reports_written_one_after_another_are_read_and_named_below_the_mod(tmp_path: Path):
    mod = tmp_path / "docs" / "mod" / "M"
    output = "\n".join(
        json.dumps(r)
        for r in (
            report("missing-item", str(mod / "events" / "a.txt"), 3),
            report("bad", "/elsewhere/x.txt", None),
        )
    )
    (tmp_path / "out.json").write_text(output, encoding="utf-8")
    tiger = tmp_path / "ck3-tiger"
    tiger.write_text(f"#!/bin/sh\ncat '{tmp_path / 'out.json'}'\n", encoding="utf-8")
    tiger.chmod(tiger.stat().st_mode | stat.S_IXUSR)

    run = TigerValidator(tiger, {"ROOT_USER_DOCS": tmp_path / "docs"}, None).run("ROOT_USER_DOCS:/mod/M", 30)

    assert run.status == "ran"
    assert [(r.key, r.path, r.line) for r in run.reported] == [
        ("missing-item", "events/a.txt", 3),
        ("bad", "", 0),
    ]
    assert str(tmp_path) not in run.reported[0].message
