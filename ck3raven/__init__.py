"""ck3raven: a governed MCP server for agents that work on files in named roots.

Installed, this is the one top-level package: the layers live below it (`ck3raven.domain`,
`ck3raven.ports`, `ck3raven.adapters`, `ck3raven.app`; see setup.py). A host program embeds the core
through `ck3raven.embedding`. Importing this package imports nothing else, so the command starts quickly.
"""
