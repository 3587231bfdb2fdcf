"""A tiny module for trying governed edits."""


def greet(name: str) -> str:
    return f"Hello, {name}"
