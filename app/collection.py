"""Garbage collection around start-up. Building the server allocates about a million objects that live as
long as the process (modules, classes, schemas); the collector, left on, walks them again and again while
they are made (a few tenths of a second of a start). The command line turns it off before its imports
(`ck3raven.__main__`) and on again once start-up is over, the objects made until then frozen: later
collections never walk them. Reference counting frees everything else meanwhile; only cycles wait."""

import gc


def paused() -> None:
    """No collection until `resumed`."""
    gc.disable()


def resumed(*, started: bool) -> None:
    """Collection again; once a server has `started`, the objects made so far are set aside for good."""
    if started:
        gc.freeze()
    gc.enable()
