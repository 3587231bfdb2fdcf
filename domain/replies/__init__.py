"""Replies: the code registry, the Reply type and its only builder, frozen data, the leak gate."""
