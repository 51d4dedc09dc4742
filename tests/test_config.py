"""Settings from the environment: FRAY_CORS_ORIGINS, FRAY_RETENTION_DAYS, FRAY_REDIS_CLUSTER,
FRAY_REDIS_WAIT_REPLICAS."""

from __future__ import annotations

import pytest

from service.config import ConfigError, Settings, parse_origins


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        pytest.param("", (), id="unset"),
        pytest.param(" , ", (), id="only separators"),
        pytest.param("*", ("*",), id="any origin"),
        pytest.param("https://vtt.example.com", ("https://vtt.example.com",), id="one"),
        pytest.param(
            "http://localhost:3000, https://app.example.com",
            ("http://localhost:3000", "https://app.example.com"),
            id="two, spaced",
        ),
        pytest.param("HTTPS://VTT.Example.com", ("https://vtt.example.com",), id="lower-cased"),
        pytest.param("http://[::1]:8080", ("http://[::1]:8080",), id="IPv6 host"),
        pytest.param("capacitor://localhost", ("capacitor://localhost",), id="an app's scheme"),
    ],
)
def test_origins_parse(value: str, origins: tuple[str, ...]) -> None:
    assert parse_origins(value) == origins


@pytest.mark.parametrize(
    ("value", "words"),
    [
        pytest.param("https://a.example.com/", "no path", id="trailing slash"),
        pytest.param("https://a.example.com/app", "no path", id="a path"),
        pytest.param("https://a.example.com?x=1", "no path", id="a query"),
        pytest.param("a.example.com", "no scheme://host", id="no scheme"),
        pytest.param("https://", "no scheme://host", id="no host"),
        pytest.param("https://a.example.com:443", "default port 443", id="https default port"),
        pytest.param("http://a.example.com:80", "default port 80", id="http default port"),
        pytest.param("http://a.example.com:99999", "out of range", id="port out of range"),
        pytest.param("http://a.example.com:", "nothing more", id="empty port"),
        pytest.param("http://user@a.example.com", "nothing more", id="a user"),
        pytest.param("null", "no scheme://host", id="the null origin"),
        pytest.param("*, https://a.example.com", "stands alone", id="any and one"),
    ],
)
def test_a_malformed_origin_is_refused_in_words(value: str, words: str) -> None:
    with pytest.raises(ConfigError, match="FRAY_CORS_ORIGINS") as refused:
        parse_origins(value)
    assert words in str(refused.value)


def test_settings_read_the_origins_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRAY_CORS_ORIGINS", "http://localhost:3000")
    assert Settings.from_env().cors_origins == ("http://localhost:3000",)
    monkeypatch.delenv("FRAY_CORS_ORIGINS")
    assert Settings.from_env().cors_origins == ()


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        pytest.param(None, None, id="unset: for ever"),
        pytest.param("", None, id="empty: for ever"),
        pytest.param("30", 30 * 86_400, id="thirty days"),
        pytest.param("0.5", 43_200, id="half a day"),
    ],
)
def test_the_retention_is_read_in_days(
    monkeypatch: pytest.MonkeyPatch, value: str | None, seconds: float | None
) -> None:
    if value is None:
        monkeypatch.delenv("FRAY_RETENTION_DAYS", raising=False)
    else:
        monkeypatch.setenv("FRAY_RETENTION_DAYS", value)
    assert Settings.from_env().retention == seconds


@pytest.mark.parametrize("value", ["0", "-3", "a month", "inf", "nan"])
def test_a_retention_that_is_not_a_positive_number_of_days_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("FRAY_RETENTION_DAYS", value)
    with pytest.raises(ConfigError, match="FRAY_RETENTION_DAYS must be a positive number of days"):
        Settings.from_env()


def test_the_shutdown_grace_defaults_under_kubernetes_thirty_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FRAY_SHUTDOWN_GRACE", raising=False)
    assert Settings.from_env().shutdown_grace == 25.0
    monkeypatch.setenv("FRAY_SHUTDOWN_GRACE", "7.5")
    assert Settings.from_env().shutdown_grace == 7.5


@pytest.mark.parametrize("value", ["", "0", "-1", "soon", "inf", "nan"])
def test_a_shutdown_grace_that_is_not_a_positive_number_of_seconds_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("FRAY_SHUTDOWN_GRACE", value)
    with pytest.raises(
        ConfigError, match="FRAY_SHUTDOWN_GRACE must be a positive number of seconds"
    ):
        Settings.from_env()


def test_a_cluster_store_needs_a_queue_redis_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRAY_REDIS_CLUSTER", "true")
    monkeypatch.delenv("FRAY_QUEUE_REDIS_URL", raising=False)
    with pytest.raises(ConfigError, match="FRAY_QUEUE_REDIS_URL"):
        Settings.from_env()
    monkeypatch.setenv("FRAY_QUEUE_REDIS_URL", "redis://queue:6379/0")
    settings = Settings.from_env()
    assert settings.redis_cluster and settings.queue_redis_url == "redis://queue:6379/0"


@pytest.mark.parametrize("value", ["-1", "one", "1.5"])
def test_a_replica_count_that_is_not_a_whole_number_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("FRAY_REDIS_WAIT_REPLICAS", value)
    with pytest.raises(ConfigError, match="FRAY_REDIS_WAIT_REPLICAS"):
        Settings.from_env()


def test_the_replica_count_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRAY_REDIS_WAIT_REPLICAS", "1")
    assert Settings.from_env().wait_replicas == 1
    monkeypatch.delenv("FRAY_REDIS_WAIT_REPLICAS")
    assert Settings.from_env().wait_replicas == 0
