"""Runnable examples and the sample world they serve (`examples/world/`)."""
