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
