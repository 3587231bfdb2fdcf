"""The bench table: one row per case (ours, what it is held against, their ratio, the target, met or not),
and the same rows as JSON with every sample, for tools that follow the figures from run to run.

A target is never asserted: a row says whether it was met on this run, on this machine.
"""

import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Kind = Literal["ratio", "delta", "absolute", "faster", "share", "least"]
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6}


@dataclass(frozen=True)
class Target:
    """`ratio`: ours/other <= limit; `delta`: ours - other <= limit; `absolute`: ours <= limit;
    `faster`: other/ours >= limit; `share`: ours/other <= limit (a fraction); `least`: ours/other >= limit
    (a rate, such as calls per second). Differences and absolute
    limits are in the row's unit."""

    kind: Kind
    limit: float

    def value(self, ours: float, other: float | None) -> float | None:
        if self.kind == "absolute":
            return ours
        if other is None or other == 0 or ours == 0:
            return None
        if self.kind == "delta":
            return ours - other
        if self.kind == "faster":
            return other / ours
        return ours / other

    def met(self, value: float | None) -> bool | None:
        if value is None:
            return None
        return value >= self.limit if self.kind in {"faster", "least"} else value <= self.limit

    def text(self, unit: str) -> str:
        if self.kind == "ratio":
            return f"<= {self.limit:g}x"
        if self.kind == "delta":
            return f"<= +{self.limit:g} {unit}"
        if self.kind == "absolute":
            return f"<= {self.limit:g} {unit}"
        if self.kind == "faster":
            return f">= {self.limit:g}x faster"
        if self.kind == "least":
            return f">= {self.limit:g}x"
        return f"<= {self.limit * 100:g}%"


@dataclass
class Row:
    """One case. Times are kept in seconds (`ours`, `other`) and shown in `unit`; a row of another
    quantity (memory, counts) gives its own `unit` and is shown as is."""

    case: str
    ours: float | None
    unit: str = "ms"
    against: str = ""
    other: float | None = None
    target: Target | None = None
    ours_bytes: int | None = None
    other_bytes: int | None = None
    handler: float | None = None
    """The same work called in process, straight on the core (no MCP): seconds."""
    note: str = ""
    samples: dict[str, list[float]] = field(default_factory=dict)
    paired: bool = False
    """`samples` holds `ours` and `other` taken in the same rounds, the two in turn, the order reversed every
    other round: the row judges the per-round ratios (or differences), not the ratio of the medians, and
    shows their spread (`value`)."""
    load: float | None = None
    """The one-minute load average while the row's rounds ran (the machine is shared)."""

    def scaled(self, value: float) -> float:
        return value * UNITS.get(self.unit, 1.0)

    def shown(self, value: float | None) -> str:
        if value is None:
            return "-"
        scaled = self.scaled(value)
        places = 2 if abs(scaled) < 100 else 1
        return f"{scaled:,.{places}f} {self.unit}".rstrip()

    def by_order(self) -> tuple[list[float], list[float]] | None:
        """The per-round ratios ours/other (differences, in the row's unit, for a `delta` target) of a
        paired row, the even rounds' and the odd rounds' apart (the contenders ran in turn, the order
        reversed every other round); a round whose other took no time is left out of its order. None for
        any other row."""
        ours, other = self.samples.get("ours"), self.samples.get("other")
        if not self.paired or not ours or not other or len(ours) != len(other):
            return None
        delta = self.target is not None and self.target.kind == "delta"
        orders: tuple[list[float], list[float]] = ([], [])
        for number, (a, b) in enumerate(zip(ours, other, strict=True)):
            if delta:
                orders[number % 2].append(self.scaled(a) - self.scaled(b))
            elif b > 0:
                orders[number % 2].append(a / b)
        return orders

    def per_round(self) -> list[float] | None:
        """A paired row's per-round values (`by_order`), both orders together; None for any other row."""
        orders = self.by_order()
        return None if orders is None else orders[0] + orders[1]

    def spread(self) -> str:
        """The quartiles and extremes of a paired row's per-round values, and the median of each order's
        rounds, as text ("" if not paired)."""
        orders = self.by_order()
        if orders is None or not all(orders) or len(orders[0]) + len(orders[1]) < 4:
            return ""
        values = orders[0] + orders[1]
        low, _, high = statistics.quantiles(values, n=4)
        first, second = statistics.median(orders[0]), statistics.median(orders[1])
        return (
            f"per round over {len(values)} rounds: quartiles {low:.2f}-{high:.2f},"
            f" range {min(values):.2f}-{max(values):.2f}; by order {first:.2f} and {second:.2f}"
        )

    def value(self) -> float | None:
        """What the target judges (a ratio, a difference in the row's unit, ...); without a target, the
        plain ratio ours/other. A paired row judges its per-round values as a crossover trial does: the
        median of the rounds in each order, averaged. Whichever contender runs second pays for what the
        first leaves behind on the shared CPUs (its process finishing, caches it took), so the rounds of
        the two orders form two clusters; the median of all of them falls anywhere between the two, the
        average of the two orders' medians counts what each leaves to the other alike."""
        if self.ours is None:
            return None
        orders = self.by_order()
        if orders is not None and any(orders):
            if self.target is not None and self.target.kind == "faster":
                orders = ([1 / v for v in orders[0]], [1 / v for v in orders[1]])
            return _crossover(*orders)
        other = None if self.other is None else self.scaled(self.other)
        if self.target is None:
            return None if not other else self.scaled(self.ours) / other
        return self.target.value(self.scaled(self.ours), other)

    def met(self) -> bool | None:
        return None if self.target is None else self.target.met(self.value())

    def ratio_text(self) -> str:
        value = self.value()
        kind = self.target.kind if self.target else "ratio"
        if value is None or kind == "absolute":
            return "-"
        if kind == "delta":
            return f"{value:+.2f} {self.unit}"
        if kind == "faster":
            return f"{value:.1f}x faster"
        if kind == "share":
            return f"{value * 100:.1f}%"
        return f"{value:.2f}x"

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["value"] = self.value()
        data["met"] = self.met()
        data["spread"] = self.spread()
        data["target"] = None if self.target is None else {**asdict(self.target), "text": self.target_text()}
        return data

    def target_text(self) -> str:
        return "-" if self.target is None else self.target.text(self.unit)


def _crossover(first: list[float], second: list[float]) -> float:
    """The average of the medians of the rounds in each order (the median of the one order that has
    rounds, when the other has none)."""
    medians = [statistics.median(values) for values in (first, second) if values]
    return sum(medians) / len(medians)


def medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(values) for name, values in samples.items()}


COLUMNS = (
    ("case", 44, "<"),
    ("ours", 11, ">"),
    ("handler", 10, ">"),
    ("against", 36, "<"),
    ("other", 11, ">"),
    ("ratio", 14, ">"),
    ("target", 15, ">"),
    ("met?", 4, "<"),
    ("reply bytes (tokens, bytes/4) ours / other", 44, "<"),
)


def table(rows: Sequence[Row]) -> str:
    """The rows as a fixed-width text table."""
    lines = ["  ".join(f"{title:{align}{width}}" for title, width, align in COLUMNS)]
    lines.append("  ".join("-" * width for _, width, _ in COLUMNS))
    for row in rows:
        cells = (
            row.case,
            row.shown(row.ours),
            row.shown(row.handler),
            row.against,
            row.shown(row.other),
            row.ratio_text(),
            row.target_text(),
            {True: "yes", False: "NO", None: "-"}[row.met()],
            _bytes(row.ours_bytes, row.other_bytes),
        )
        lines.append(
            "  ".join(
                f"{cell:{align}{width}}" for cell, (_, width, align) in zip(cells, COLUMNS, strict=True)
            )
        )
        notes = [
            part
            for part in (row.spread(), "" if row.load is None else f"load {row.load:.1f}", row.note)
            if part
        ]
        if notes:
            lines.append(f"{'':4}{'; '.join(notes)}")
    return "\n".join(line.rstrip() for line in lines)


def _bytes(ours: int | None, other: int | None) -> str:
    """A reply's size in bytes and in tokens as agents' clients count them roughly (a token per 4 bytes)."""
    if ours is None and other is None:
        return ""
    return f"{_sized(ours)} / {_sized(other)}"


def _sized(size: int | None) -> str:
    return "-" if size is None else f"{size:,} ({size // 4:,})"


def dump(rows: Iterable[Row], meta: dict[str, Any]) -> str:
    return json.dumps({"meta": meta, "rows": [row.as_json() for row in rows]}, indent=1)
