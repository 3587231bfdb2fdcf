"""A host program that embeds ck3raven's core in memory and runs a contract end to end: open, write, close.

It imports only the installed `ck3raven` package; it prints each reply and exits 1 unless all succeeded.
"""

import sys

from ck3raven.embedding import in_memory

host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})
session = host.session()
a_py = "ROOT_REPO:/src/a.py"
declared = {"root_category": "ROOT_REPO", "intent": "Set a to 2", "work_declaration": "Edit src/a.py"}
targets = [{"path": a_py, "edit_kind": "modify"}]
for tool, command, args in [
    ("ck3_contract", "open", {**declared, "operations": ["WRITE"], "targets": targets}),
    ("ck3_file", "write", {"path": a_py, "content": "a = 2\n"}),
    ("ck3_contract", "close", {}),
    ("ck3_read", "read", {"path": a_py}),
]:
    reply = host.call(session, tool, command, **args)
    print(f"{tool} {command}: {reply.code} {reply.message()}")  # noqa: T201 - the example's output
    if reply.reply_type != "S":
        sys.exit(1)
