"""Garbage collection around start-up. Building the server allocates about a million objects that live as
long as the process (modules, classes, schemas); the collector, left on, walks them again and again while
they are made (a few tenths of a second of a start). The command line turns it off before its imports
(`ck3raven.__main__`) and on again once start-up is over, the objects made until then frozen: later
collections never walk them. Reference counting frees everything else meanwhile; only cycles wait.

A started server collects its youngest objects every `YOUNG` allocations, not every 700: a call makes
thousands of short-lived containers (a listing's rows, the reply's layers), and with the start-up's objects
frozen the collector's own measure of the heap is small, so at 700 it walked each call's rows several times
over and ran a whole collection every few dozen calls. At `YOUNG` most calls end before a collection, and
their objects are freed by reference counting alone; a cycle waits at most that many allocations more."""

import gc
from typing import Final

YOUNG: Final = 10_000
"""Allocations between two collections of the youngest objects, once a server has started."""


def paused() -> None:
    """No collection until `resumed`."""
    gc.disable()


def resumed(*, started: bool) -> None:
    """Collection again; once a server has `started`, the objects made so far are set aside for good and
    the youngest are collected every `YOUNG` allocations."""
    if started:
        gc.freeze()
        _, middle, oldest = gc.get_threshold()
        gc.set_threshold(YOUNG, middle, oldest)
    gc.enable()


def stopped() -> None:
    """No collection for the rest of this process: one that builds the content index and then ends
    (app.index_child). Reference counting frees what a build makes as it goes; the few cycles it may make
    end with the process. Measured on the game's build: the collector ran about 330 times, 0.6 s of the
    builder's 7-9 s of CPU."""
    gc.disable()
