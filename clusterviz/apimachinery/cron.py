"""Cron schedules as a CronJob's ``spec.schedule`` is read: five fields, or a descriptor.

The grammar and the error messages are those of the parser the Kubernetes
API server and CronJob controller use (robfig/cron's ParseStandard):
minute, hour, day of month, month, day of week; ``*``, ``?``, lists, ranges,
steps, month and weekday names; ``@yearly`` ... ``@hourly`` and
``@every <duration>``. A field that is ``*`` (or ``?``) makes the day rule an
AND of day of month and day of week; otherwise either may match.

Times are handled as aware datetimes; :meth:`Schedule.next` works in the
schedule's time zone, so ``0 9 * * *`` with ``Asia/Shanghai`` fires at 09:00 there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Final

from .duration import parse_go_duration

__all__ = ["CronError", "Schedule", "parse_standard"]


class CronError(ValueError):
    """A schedule the parser refuses; the message is the parser's."""


@dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int]


_MONTHS: Final = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_DAYS: Final = {name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_FIELDS: Final = (
    _Bounds(0, 59, {}),
    _Bounds(0, 23, {}),
    _Bounds(1, 31, {}),
    _Bounds(1, 12, _MONTHS),
    _Bounds(0, 6, _DAYS),
)
_DESCRIPTORS: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
# How far ahead a schedule is searched (a 30th of February never comes).
_SEARCH_YEARS: Final = 5


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the allowed values of each field, or a constant delay."""

    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    weekdays: frozenset[int] = frozenset()
    # Whether day of month / day of week was a star (then both must match, else either).
    day_star: bool = False
    weekday_star: bool = False
    every: float | None = None

    def _day_matches(self, moment: datetime) -> bool:
        day = moment.day in self.days
        weekday = (moment.isoweekday() % 7) in self.weekdays
        if self.day_star or self.weekday_star:
            return day and weekday
        return day or weekday

    def next(self, after: datetime, zone: tzinfo | None = None) -> datetime | None:
        """The first activation strictly after ``after`` (aware), in ``zone``; None if none within five years."""
        if self.every is not None:
            # A constant delay counts from the whole second, as upstream's ConstantDelaySchedule.
            return after.replace(microsecond=0) + timedelta(seconds=max(self.every, 1.0))
        local = after.astimezone(zone) if zone is not None else after
        moment = local.replace(second=0, microsecond=0, tzinfo=None) + timedelta(minutes=1)
        limit = moment.year + _SEARCH_YEARS
        while moment.year <= limit:
            if moment.month not in self.months:
                year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
                moment = moment.replace(year=year, month=month, day=1, hour=0, minute=0)
            elif not self._day_matches(moment):
                moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
            elif moment.hour not in self.hours:
                moment = moment.replace(minute=0) + timedelta(hours=1)
            elif moment.minute not in self.minutes:
                moment += timedelta(minutes=1)
            else:
                return moment.replace(tzinfo=local.tzinfo)
        return None


def _parse_int(expr: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    number = int(expr)
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict[str, int]) -> int:
    named = names.get(expr.lower())
    return named if named is not None else _parse_int(expr)


def _range(expr: str, bounds: _Bounds) -> tuple[set[int], bool]:
    """One comma-separated part of a field: its values, and whether it was a star."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    star = False
    if low_high[0] in ("*", "?"):
        start, end, star = bounds.low, bounds.high, True
    else:
        start = _int_or_name(low_high[0], bounds.names)
        if len(low_high) == 1:
            end = start
        elif len(low_high) == 2:
            end = _int_or_name(low_high[1], bounds.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        if len(low_high) == 1:
            end = bounds.high  # "N/step" runs to the end of the field
        if step > 1:
            star = False
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return set(range(start, end + 1, step)), star


def _field(text: str, bounds: _Bounds) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        found, part_star = _range(part, bounds)
        values |= found
        star = star or part_star
    return frozenset(values), star


def parse_standard(spec: str) -> Schedule:
    """Parse a standard five-field schedule or a descriptor; raises CronError with the parser's message."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        # The zone is checked by the caller (the API refuses it in new schedules); parse the rest.
        _, _, spec = spec.partition(" ")
        spec = spec.strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            spec = _DESCRIPTORS[spec]
        elif spec.startswith("@every "):
            text = spec[len("@every ") :].strip()
            try:
                return Schedule(every=parse_go_duration(text))
            except ValueError as exc:
                raise CronError(f"failed to parse duration {text}: {exc}") from None
        else:
            raise CronError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        shown = "[" + " ".join(fields) + "]"
        raise CronError(f"expected exactly {len(_FIELDS)} fields, found {len(fields)}: {shown}")
    (minutes, _), (hours, _), (days, day_star), (months, _), (weekdays, weekday_star) = (
        _field(text, bounds) for text, bounds in zip(fields, _FIELDS, strict=True)
    )
    return Schedule(minutes, hours, days, months, weekdays, day_star, weekday_star)
