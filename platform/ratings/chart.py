"""Geometry of the rating history chart (an inline SVG on the profile page), framework-free.

Pure functions over numbers: ratings in Elo points in, SVG user units out (``WIDTH`` x ``HEIGHT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

WIDTH = 640
HEIGHT = 220
PAD_LEFT = 44
PAD_RIGHT = 12
PAD_Y = 14


class Point(NamedTuple):
    """One rated match on the chart: ``x``/``y`` in SVG units, ``rating`` after the match.

    (A named tuple: a profile builds 500 of them, and a frozen dataclass's ``__init__`` cost ~6 µs each.)
    """

    x: float
    y: float
    rating: float


@dataclass(frozen=True, slots=True)
class Chart:
    """``points`` oldest first; ``polyline``: the SVG ``points`` attribute; ``ticks``: ``(y, rating)``
    grid lines; ``low``/``high``: the rating range drawn."""

    points: tuple[Point, ...]
    polyline: str
    ticks: tuple[tuple[float, int], ...]
    low: float
    high: float


def build(ratings: Sequence[float], *, start: float | None = None) -> Chart:
    """Lay out ``ratings`` (after each rated match, oldest first), preceded by ``start`` (the rating
    before the first of them) when given, as a line of points across the chart.

    >>> c = build([1520.0, 1500.0], start=1500.0)
    >>> [round(p.x) for p in c.points], c.low < 1500 < 1520 < c.high
    ([44, 336, 628], True)
    """
    values = ([start] if start is not None else []) + list(ratings)
    if not values:
        return Chart((), "", (), 0.0, 0.0)
    low, high = min(values), max(values)
    margin = max(10.0, (high - low) * 0.08)
    low, high = low - margin, high + margin
    span_x = WIDTH - PAD_LEFT - PAD_RIGHT
    span_y = HEIGHT - 2 * PAD_Y
    step = span_x / (len(values) - 1) if len(values) > 1 else 0.0

    def y_of(rating: float) -> float:
        return PAD_Y + (high - rating) / (high - low) * span_y

    if len(values) == 1:
        points: tuple[Point, ...] = (Point(PAD_LEFT + span_x / 2, y_of(values[0]), values[0]),)
    else:
        scale = span_y / (high - low)
        points = tuple(Point(PAD_LEFT + i * step, PAD_Y + (high - r) * scale, r)
                       for i, r in enumerate(values))
    polyline = " ".join(f"{p.x:.1f},{p.y:.1f}" for p in points)
    ticks = tuple((y_of(t), t) for t in _tick_values(low, high))
    return Chart(points, polyline, ticks, low, high)


def _tick_values(low: float, high: float) -> list[int]:
    """Round ratings between ``low`` and ``high`` for grid lines: at most 5, on a 10/25/50/... step."""
    for step in (10, 25, 50, 100, 200, 250, 500, 1000):
        first = int(low // step + 1) * step
        values = list(range(first, int(high) + 1, step))
        if len(values) <= 5:
            return values
    return [int(low), int(high)]
