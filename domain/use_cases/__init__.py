"""The agent commands: one handler per command, each deciding one Reply."""
