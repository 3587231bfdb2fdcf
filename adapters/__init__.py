"""Adapters: one technology each, translating between a port (or the MCP transport) and the core."""
