"""HumanDuration / ShortHumanDuration must print exactly what apimachinery prints."""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterviz.apimachinery.duration import (
    human_duration,
    human_duration_ns,
    short_human_duration,
    short_human_duration_ns,
)

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
YEAR = 365 * DAY


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        # Clock-skew tolerance: anything above -2s is "0s", below is invalid.
        (-3, "<invalid>"),
        (-2, "<invalid>"),
        (-1.999, "0s"),
        (-1, "0s"),
        (-0.5, "0s"),
        (0, "0s"),
        (0.999, "0s"),
        (1, "1s"),
        (59, "59s"),
        (60, "60s"),
        (95, "95s"),
        (119, "119s"),
        (119.999, "119s"),
        # Minutes with seconds below 10m.
        (120, "2m"),
        (121, "2m1s"),
        (5 * MINUTE + 3, "5m3s"),
        (5 * MINUTE, "5m"),
        (9 * MINUTE + 59, "9m59s"),
        # Whole minutes below 3h.
        (10 * MINUTE, "10m"),
        (10 * MINUTE + 59, "10m"),
        (45 * MINUTE, "45m"),
        (179 * MINUTE + 59, "179m"),
        # Hours and minutes below 8h.
        (3 * HOUR, "3h"),
        (3 * HOUR + 5 * MINUTE, "3h5m"),
        (7 * HOUR + 59 * MINUTE + 59, "7h59m"),
        # Whole hours below 48h.
        (8 * HOUR, "8h"),
        (30 * HOUR, "30h"),
        (47 * HOUR + 59 * MINUTE, "47h"),
        # Days and hours below 8d.
        (2 * DAY, "2d"),
        (3 * DAY + 4 * HOUR, "3d4h"),
        (7 * DAY + 23 * HOUR + 59 * MINUTE, "7d23h"),
        # Whole days below 2y.
        (8 * DAY, "8d"),
        (200 * DAY, "200d"),
        (2 * YEAR - 1, "729d"),
        # Years and days below 8y.
        (2 * YEAR, "2y"),
        (2 * YEAR + 30 * DAY, "2y30d"),
        (8 * YEAR - 1, "7y364d"),
        # Whole years afterwards.
        (8 * YEAR, "8y"),
        (9 * YEAR + 100 * DAY, "9y"),
    ],
)
def test_human_duration_matches_upstream_table(seconds, expected):
    assert human_duration(seconds) == expected


def test_wire_notes_examples():
    # The AGE rules listed in the kubectl wire notes.
    assert human_duration(95) == "95s"
    assert human_duration(5 * MINUTE + 3) == "5m3s"
    assert human_duration(45 * MINUTE) == "45m"
    # The "XhYm" form only starts at 3h: below that upstream prints minutes.
    assert human_duration(2 * HOUR + 5 * MINUTE) == "125m"
    assert human_duration(4 * HOUR + 5 * MINUTE) == "4h5m"
    assert human_duration(30 * HOUR) == "30h"
    assert human_duration(3 * DAY + 4 * HOUR) == "3d4h"
    assert human_duration(200 * DAY) == "200d"
    assert human_duration(2 * YEAR + 30 * DAY) == "2y30d"
    assert human_duration(9 * YEAR) == "9y"


def test_float_seconds_are_converted_exactly():
    # 120.0 must not be treated as 119.999... seconds.
    assert human_duration(120.0) == "2m"
    assert human_duration(Fraction(1201, 10)) == "2m"
    assert human_duration(599.9) == "9m59s"


def test_nanosecond_entry_point():
    assert human_duration_ns(0) == "0s"
    assert human_duration_ns(119_999_999_999) == "119s"
    assert human_duration_ns(120_000_000_000) == "2m"
    assert human_duration_ns(-1_999_999_999) == "0s"
    assert human_duration_ns(-2_000_000_000) == "<invalid>"


def test_non_finite_and_odd_inputs_never_raise():
    assert human_duration(math.nan) == "<invalid>"
    assert human_duration(-math.inf) == "<invalid>"
    # Go saturates at the largest int64 duration (~292 years).
    assert human_duration(math.inf) == "292y"
    assert human_duration(10**30) == "292y"
    assert human_duration("5") == "<invalid>"  # type: ignore[arg-type]
    assert human_duration(True) == "<invalid>"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-2, "<invalid>"),
        (-1, "0s"),
        (0, "0s"),
        (59, "59s"),
        (60, "1m"),
        (119, "1m"),
        (59 * MINUTE + 59, "59m"),
        (HOUR, "1h"),
        (23 * HOUR + 59 * MINUTE, "23h"),
        (DAY, "1d"),
        (364 * DAY, "364d"),
        (YEAR, "1y"),
        (3 * YEAR + 100 * DAY, "3y"),
    ],
)
def test_short_human_duration(seconds, expected):
    assert short_human_duration(seconds) == expected


def test_short_human_duration_odd_inputs():
    assert short_human_duration(math.nan) == "<invalid>"
    assert short_human_duration_ns(61 * 10**9) == "1m"


@given(st.integers(min_value=0, max_value=20 * YEAR))
def test_human_duration_is_short_and_well_formed(seconds):
    text = human_duration(seconds)
    assert text and len(text) <= 7
    assert text[-1] in "smhdy"
    assert text[0].isdigit()


@given(st.integers(min_value=0, max_value=20 * YEAR), st.integers(min_value=0, max_value=20 * YEAR))
def test_human_duration_units_are_monotonic(a, b):
    # A longer duration never shows a smaller leading unit.
    order = {"s": 0, "m": 1, "h": 2, "d": 3, "y": 4}

    def unit(text):
        return order[next(ch for ch in text if ch.isalpha())]

    lo, hi = sorted((a, b))
    assert unit(human_duration(lo)) <= unit(human_duration(hi))


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_gives_a_string(value):
    assert isinstance(human_duration(value), str)
    assert isinstance(short_human_duration(value), str)
