"""Server times: ISO 8601 UTC with milliseconds, and the clock cut to what they keep."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from service.domain.timefmt import iso, parse_iso, to_millis

IST = timezone(timedelta(hours=5, minutes=30))
PST = timezone(timedelta(hours=-8))


@pytest.mark.parametrize(
    "moment",
    [
        pytest.param(datetime(2026, 11, 21, 19, 24, 17, 123456, tzinfo=UTC), id="utc"),
        pytest.param(datetime(2026, 11, 21, 19, 24, 17, 999999, tzinfo=UTC), id="under a second"),
        pytest.param(datetime(2026, 1, 1, 0, 30, 0, 500, tzinfo=IST), id="the day before in UTC"),
        pytest.param(
            datetime(2024, 2, 29, 23, 59, 59, 1000, tzinfo=PST), id="the day after in UTC"
        ),
    ],
)
def test_to_millis_is_what_the_iso_text_reads_back_as(moment):
    cut = to_millis(moment)
    assert cut == parse_iso(iso(moment))
    assert cut.tzinfo is UTC and cut.microsecond % 1000 == 0
    assert iso(cut) == iso(moment)


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (datetime(2026, 11, 21, 19, 24, 17, 123999, tzinfo=UTC), "2026-11-21T19:24:17.123Z"),
        (datetime(2026, 11, 21, 19, 24, 17, tzinfo=PST), "2026-11-22T03:24:17.000Z"),
        (datetime(999, 1, 2, 3, 4, 5, 6000, tzinfo=UTC), "0999-01-02T03:04:05.006Z"),
    ],
)
def test_iso_writes_utc_with_milliseconds(moment, text):
    assert iso(moment) == text
    assert parse_iso(text) == to_millis(moment)
