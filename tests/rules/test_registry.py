"""The registry of ruleset versions: the newest of each ruleset, earlier ones kept for the
streams recorded with them, and a clear refusal for a version this Fray does not run."""

from __future__ import annotations

import pytest

from service.rules import registry
from service.rules.freeform import Freeform
from service.rules.registry import (
    EARLIER,
    RULESETS,
    VERSIONS,
    RulesetUnavailable,
    ruleset_at,
    ruleset_named,
    version_key,
    versions_of,
)


class EarlierFreeform(Freeform):
    version = "0.9.0"


def test_ruleset_at_finds_the_newest_version_of_every_ruleset() -> None:
    for name, ruleset in RULESETS.items():
        assert ruleset_at(name, ruleset.version) is ruleset
        assert ruleset_named(name) is ruleset


def test_every_registered_version_is_keyed_by_its_own_name_and_version() -> None:
    for (name, version), ruleset in VERSIONS.items():
        assert (ruleset.name, ruleset.version) == (name, version)
        assert name in RULESETS


def test_every_earlier_version_is_older_than_the_newest_of_its_ruleset() -> None:
    for name, ruleset in RULESETS.items():
        assert versions_of(name)[-1] == ruleset.version
    for earlier in EARLIER:
        assert version_key(earlier.version) < version_key(RULESETS[earlier.name].version)


def test_an_unregistered_version_is_refused_in_clear_words() -> None:
    with pytest.raises(RulesetUnavailable) as refused:
        ruleset_at("freeform", "0.1.0")
    error = refused.value
    assert error.code == "encounter/ruleset-unavailable"
    # freeform 1.0.0 is kept for the encounters created before issue 27's tie-break.
    assert error.message == (
        f"ruleset freeform 0.1.0 is not available; this Fray runs freeform "
        f"1.0.0, {RULESETS['freeform'].version}"
    )
    assert error.details == {
        "ruleset": "freeform",
        "version": "0.1.0",
        "available": ["1.0.0", RULESETS["freeform"].version],
    }


def test_a_ruleset_this_fray_never_ran_is_not_available_at_any_version() -> None:
    with pytest.raises(RulesetUnavailable, match=r"^ruleset chess 1\.0\.0 is not available$"):
        ruleset_at("chess", "1.0.0")
    assert versions_of("chess") == []


def test_an_earlier_version_kept_registered_is_found_and_listed_oldest_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earlier = EarlierFreeform()
    monkeypatch.setitem(registry.VERSIONS, ("freeform", "0.9.0"), earlier)
    assert ruleset_at("freeform", "0.9.0") is earlier
    assert versions_of("freeform") == ["0.9.0", "1.0.0", RULESETS["freeform"].version]
    assert ruleset_named("freeform") is RULESETS["freeform"]


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        pytest.param("1.9.2", "1.10.0", id="by number, not by text"),
        pytest.param("1.0.0", "1.0.1", id="patch"),
        pytest.param("0.9.9", "1.0.0", id="major"),
    ],
)
def test_versions_compare_by_their_numbers(older: str, newer: str) -> None:
    assert version_key(older) < version_key(newer)
