"""Build a small `launcher-v2.sqlite` in the Paradox launcher's schema: the tables ck3raven reads
(`playsets`, `playsets_mods`, `mods`, `knex_migrations`) with the sample world's mods.

Older launchers keep `playsets_mods.position` as zero-padded text; after the `modifyPositionToInteger`
migration it is an integer. `--integer-positions` builds the newer schema.

    python examples/launcher_db.py examples/world/documents/launcher-v2.sqlite
"""

import argparse
import sqlite3
from pathlib import Path

MODS = [
    # each mod: its launcher id, workshop id, registry file, display name, source and folder
    ("m-traits", "2217000001", "mod/ugc_2217000001.mod", "Better Traits", "steam", None),
    ("m-events", "2217000002", "mod/ugc_2217000002.mod", "More Events", "steam", None),
    ("m-local", None, "mod/LocalFix.mod", "Local Fix", "local", None),
    ("m-unused", None, "mod/UnusedMod.mod", "Unused Mod", "local", None),
]
PLAYSETS = [
    # each playset: its id, name, whether it is active, and its mods with enabled flag and position
    ("p-sample", "Sample Playset", 1, [("m-traits", 1, 0), ("m-events", 1, 1), ("m-local", 1, 2)]),
    ("p-events", "Events Only", 0, [("m-events", 1, 0), ("m-traits", 0, 1)]),
]
MIGRATIONS = ["20190417133300_init.js", "20200506140000_addPlaysetsMods.js"]
INTEGER_MIGRATION = "20210318102400_modifyPositionToInteger.js"


def build(path: Path, *, integer_positions: bool = False) -> None:
    """Write the database at `path` (replacing it)."""
    path.unlink(missing_ok=True)
    position = "integer" if integer_positions else "text"
    with sqlite3.connect(path) as db:
        db.executescript(
            f"""
            create table knex_migrations (id integer primary key, name varchar(255), batch integer,
                                          migration_time datetime);
            create table mods (id char(36) primary key, pdxId varchar(255), steamId varchar(255),
                               gameRegistryId text, name varchar(255), displayName varchar(255),
                               version varchar(255), requiredVersion varchar(255), dirPath text,
                               status varchar(255), source varchar(255));
            create table playsets (id char(36) primary key, name varchar(255), isActive boolean,
                                   isRemoved boolean default 0, loadOrder varchar(255));
            create table playsets_mods (playsetId char(36), modId char(36), enabled boolean default 1,
                                        position {position});
            """
        )
        migrations = MIGRATIONS + ([INTEGER_MIGRATION] if integer_positions else [])
        db.executemany(
            "insert into knex_migrations (name, batch, migration_time) values (?, 1, '2021-03-18')",
            [(name,) for name in migrations],
        )
        db.executemany(
            "insert into mods (id, steamId, gameRegistryId, displayName, name, source, dirPath, status)"
            " values (?, ?, ?, ?, ?, ?, ?, 'ready_to_play')",
            [
                (mid, steam, registry, shown, shown, source, folder)
                for mid, steam, registry, shown, source, folder in MODS
            ],
        )
        for pid, name, active, members in PLAYSETS:
            db.execute("insert into playsets (id, name, isActive) values (?, ?, ?)", (pid, name, active))
            db.executemany(
                "insert into playsets_mods (playsetId, modId, enabled, position) values (?, ?, ?, ?)",
                [(pid, mod, enabled, n if integer_positions else f"{n:010d}") for mod, enabled, n in members],
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path)
    parser.add_argument("--integer-positions", action="store_true")
    args = parser.parse_args()
    build(args.path, integer_positions=args.integer_positions)


if __name__ == "__main__":
    main()
