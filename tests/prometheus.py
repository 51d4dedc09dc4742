"""Reading a /metrics answer as Prometheus reads it (prometheus_client's parser)."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus text answer: (name, labels) -> value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample (None when it is not there)."""
    return samples(text).get((name, frozenset(labels.items())))


def families(text: str) -> dict[str, str]:
    """Every metric family of the answer: its name (as Prometheus queries it) -> its type."""
    return {family.name: family.type for family in text_string_to_metric_families(text)}
