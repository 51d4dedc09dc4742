"""Redis key layout of the event store.

Every key of one encounter carries the hash tag ``{<encounter id>}`` so that, in Redis
Cluster, all of them live in one slot and a Lua script may touch them together:

    fray:{<id>}:events       stream; entry id "<version>-0", fields e=body, h=hash
    fray:{<id>}:meta         hash; version, hash, created, plus caller fields (e.g. ruleset)
    fray:{<id>}:cmds         hash; command id -> "<first>:<last>:<fingerprint>"
    fray:{<id>}:outbox       zset; deadline key scored by its due time (epoch seconds)
    fray:{<id>}:outbox-data  hash; deadline key -> payload
    fray:{<id>}:snap         string; "<version>:<payload>"
    fray:{<id>}:seed         string; the encounter's random seed
    fray:{<id>}:audit        string; "<audited version>:<payload>", the last audit's verdict
    fray:{<id>}:ticket:<t>   string; a stream ticket's grant, until redeemed or expired (TTL)

plus one global key, ``fray:deadlines`` (zset: encounter id scored by its earliest due
deadline), which is the only key outside an encounter's slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from service.store.checks import check_encounter_id, check_ticket_id

DEADLINE_INDEX = "fray:deadlines"


@dataclass(frozen=True, slots=True)
class EncounterKeys:
    events: str
    meta: str
    cmds: str
    outbox: str
    outbox_data: str
    snap: str
    seed: str
    audit: str

    def all(self) -> tuple[str, ...]:
        return (
            self.events,
            self.meta,
            self.cmds,
            self.outbox,
            self.outbox_data,
            self.snap,
            self.seed,
            self.audit,
        )


# Every append and read names its keys: the id's check and eight strings, once per
# encounter while it is busy. An invalid id raises, and raising is not cached.
@lru_cache(maxsize=4096)
def encounter_keys(encounter_id: str) -> EncounterKeys:
    prefix = f"fray:{{{check_encounter_id(encounter_id)}}}"
    return EncounterKeys(
        events=f"{prefix}:events",
        meta=f"{prefix}:meta",
        cmds=f"{prefix}:cmds",
        outbox=f"{prefix}:outbox",
        outbox_data=f"{prefix}:outbox-data",
        snap=f"{prefix}:snap",
        seed=f"{prefix}:seed",
        audit=f"{prefix}:audit",
    )


def ticket_key(encounter_id: str, ticket_id: str) -> str:
    """Where a stream ticket waits to be redeemed, in its encounter's slot."""
    prefix = f"fray:{{{check_encounter_id(encounter_id)}}}"
    return f"{prefix}:ticket:{check_ticket_id(ticket_id)}"


def events_key(encounter_id: str) -> str:
    return encounter_keys(encounter_id).events


def meta_pattern(tenant: str | None) -> str:
    """A SCAN pattern matching the meta key of every encounter stored under `tenant/`
    (`service.domain.ids.stream_id`); None: of every encounter (the caller keeps those
    without a tenant)."""
    inside = "*" if tenant is None else f"{_glob_escaped(tenant)}/*"
    return f"fray:{{{inside}}}:meta"


def _glob_escaped(text: str) -> str:
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)


def hash_tag(key: str | bytes) -> str | None:
    """The hash tag of a key as Redis Cluster computes it, or None if it has none."""
    text = key.decode() if isinstance(key, bytes) else key
    start = text.find("{")
    if start < 0:
        return None
    end = text.find("}", start + 1)
    if end <= start + 1:
        return None
    return text[start + 1 : end]
