"""Compliance at close (law §11.3-11.5, Phase 1.5; SPEC §14): new symbols and their NSTs, the locked lint
ruleset, lint findings and the LXEs that cover them, and the evidence of each close."""
