"""The embedding entry: ck3raven's core held in memory for a host program (no host path, nothing on disk).

    from ck3raven.embedding import in_memory

    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})
    session = host.session()
    reply = host.call(session, "ck3_read", "read", path="ROOT_REPO:/src/a.py")

Commands and arguments are the MCP tools' (as `tools/list` describes them); each reply is a `Reply` with
`reply_type` ("S", "I", "D" or "E"), a stable `code` (docs/reply-codes.md), its `data` and `message()`.
See `app.embedding` for what is wired, and examples/embedded_host.py for a contract run end to end.
"""

from app.embedding import Embedded, in_memory

__all__ = ["Embedded", "in_memory"]
