"""Timestamps as the API server writes them: each moment in its own words, however often it is written."""

from datetime import UTC, datetime, timedelta, timezone

from clusterviz.api import clock


def test_each_moment_is_written_as_itself_one_after_another():
    moment = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert clock.rfc3339(moment) == "2026-01-01T12:00:00Z"
    assert clock.rfc3339(moment) == "2026-01-01T12:00:00Z"
    assert clock.rfc3339(moment + timedelta(seconds=1)) == "2026-01-01T12:00:01Z"
    assert clock.rfc3339(moment) == "2026-01-01T12:00:00Z"


def test_a_moment_in_another_zone_is_written_in_utc():
    moment = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert clock.rfc3339(moment) == "2026-01-01T12:00:00Z"
    assert clock.rfc3339(moment.astimezone(timezone(timedelta(hours=2)))) == "2026-01-01T12:00:00Z"
    assert clock.rfc3339(datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone(timedelta(hours=2)))) == "2026-01-01T10:00:00Z"


def test_a_naive_moment_is_read_in_the_local_zone_even_right_after_the_same_wall_time_in_utc():
    aware = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    naive = aware.replace(tzinfo=None)
    assert clock.rfc3339(aware) == "2026-01-01T12:00:00Z"
    assert clock.rfc3339(naive) == naive.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_clock_source_is_followed_second_by_second():
    now = [datetime(2026, 1, 1, 12, 0, 0, 900000, tzinfo=UTC)]
    with clock.using(lambda: now[0]):
        assert clock.rfc3339() == "2026-01-01T12:00:00Z"
        now[0] += timedelta(milliseconds=200)
        assert clock.rfc3339() == "2026-01-01T12:00:01Z"
