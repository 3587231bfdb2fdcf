"""Ports: the small protocols the core needs from the outside world. They speak primitives only."""
