"""Redis key layout of the event store.

Every key of one encounter carries the hash tag ``{<encounter id>}`` so that, in Redis
Cluster, all of them live in one slot and a Lua script may touch them together:

    fray:{<id>}:events       stream; entry id "<version>-0", fields e=body, h=hash
    fray:{<id>}:meta         hash; version, hash, created, updated, status, plus caller
                             fields (ruleset, ruleset_version, title)
    fray:{<id>}:cmds         hash; command id -> "<first>:<last>:<fingerprint>"
    fray:{<id>}:outbox       zset; deadline key scored by its due time (epoch seconds)
    fray:{<id>}:outbox-data  hash; deadline key -> payload
    fray:{<id>}:snap         string; "<version>:<payload>"
    fray:{<id>}:seed         string; the encounter's random seed
    fray:{<id>}:audit        string; "<audited version>:<payload>", the last audit's verdict
    fray:{<id>}:ticket:<t>   string; a stream ticket's grant, until redeemed or expired (TTL)

and, on a Redis Cluster, the shard channel ``fray:{<id>}:live`` (SPUBLISH: each append
announced to `service.store.cluster_hub`); plus one global key, ``fray:deadlines`` (zset:
encounter id scored by its earliest due deadline), and per tenant, on the tenant's own slot
(hash tag ``{<tenant>}``):

    fray:tenant:{<tenant>}:encounters   zset; stored id scored by its updated time (ms)
    fray:tenant:{<tenant>}:backfilled   string; set once the encounters stored before the
                                        index existed were entered in it

(``fray:untenanted:encounters`` and ``fray:untenanted:backfilled`` for bare ids). A tenant's
keys are on another slot than its encounters', so no script writes both: see
`service.store.redis_index`.

On a cluster the global key is one key on one node, written after the scripts, never by
them, with ``{fray:deadlines}:gen`` beside it (the outbox generation of each entry;
`service.store.redis_store`, "Redis Cluster"); outside the store, the rate limiter's
counters (``fray:rate:<credential>:<window>``), the metrics hashes (``fray:metrics:*``) and
the workers' markers are single keys, each on its own slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from service.store.checks import check_encounter_id, check_ticket_id

DEADLINE_INDEX = "fray:deadlines"
# On a cluster: the outbox generation each index entry was written from (`scripts.SYNC_INDEX`).
# Its hash tag is the index's whole name, so both keys share a slot.
DEADLINE_GENS = "{fray:deadlines}:gen"


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
        """Every key, meta first: the order the scripts that write them all take them in."""
        return (
            self.meta,
            self.events,
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


def tenant_index(tenant: str | None) -> str:
    """The tenant's index of encounters (`service.store.listing`)."""
    return f"{_tenant_prefix(tenant)}:encounters"


def tenant_backfilled(tenant: str | None) -> str:
    """Set once the tenant's encounters stored before the index existed are entered in it."""
    return f"{_tenant_prefix(tenant)}:backfilled"


def _tenant_prefix(tenant: str | None) -> str:
    return "fray:untenanted" if tenant is None else f"fray:tenant:{{{tenant}}}"


def ticket_key(encounter_id: str, ticket_id: str) -> str:
    """Where a stream ticket waits to be redeemed, in its encounter's slot."""
    prefix = f"fray:{{{check_encounter_id(encounter_id)}}}"
    return f"{prefix}:ticket:{check_ticket_id(ticket_id)}"


def live_channel(encounter_id: str) -> str:
    """On a cluster: the shard channel each append to the encounter is announced on (in its
    slot; `service.store.cluster_hub`)."""
    return f"fray:{{{check_encounter_id(encounter_id)}}}:live"


def events_key(encounter_id: str) -> str:
    return encounter_keys(encounter_id).events


def meta_pattern(tenant: str | None) -> str:
    """A SCAN pattern matching the meta key of every encounter stored under `tenant/`
    (`service.domain.ids.stream_id`); None: of every encounter (the caller keeps those
    without a tenant)."""
    inside = "*" if tenant is None else f"{_glob_escaped(tenant)}/*"
    return f"fray:{{{inside}}}:meta"


def outbox_pattern() -> str:
    """A SCAN pattern matching every encounter's outbox."""
    return "fray:{*}:outbox"


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
