"""Stream tickets (`service.app.tickets`): what a ticket grants, once, and why one is
refused. On the in-memory store, with a settable clock; tests/api and tests/e2e use them
over HTTP against Redis."""

from __future__ import annotations

import asyncio

import pytest

from service.app.auth import Auth, Principal, tenant_actor
from service.app.errors import InvalidTicket
from service.app.tickets import TICKET_SECONDS, Tickets
from service.config import Settings
from service.domain.context import Actor
from service.domain.errors import NotFound
from service.domain.ids import stream_id
from service.store.memory import MemoryStore
from tests.store.helpers import event

NOW = 1_900_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def tickets(secret: str = "secret") -> tuple[Tickets, MemoryStore, Clock]:
    store, clock = MemoryStore(), Clock()
    auth = Auth(Settings("redis://unused", "redis://unused", token_secret=secret), clock)
    return Tickets(auth, store, clock), store, clock


def player(stream: str = "acme/ford", expires: int | None = None) -> Principal:
    actor = Actor("alice", "player", frozenset({"bramli", "tamsin"}))
    return Principal(actor, "token", "acme", "ford", stream, expires or int(NOW) + 3600)


async def created(store: MemoryStore, stream: str = "acme/ford") -> None:
    await store.create(stream, event(1), seed=b"s")


def test_a_ticket_grants_what_the_token_grants_once() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        minted = await issued.mint(player())
        assert minted.expires_at.timestamp() == int(NOW) + TICKET_SECONDS
        assert await issued.redeem(minted.ticket, "ford") == player(expires=int(NOW) + 60)
        with pytest.raises(InvalidTicket, match="has been used"):
            await issued.redeem(minted.ticket, "ford")

    asyncio.run(scenario())


def test_a_tenant_keys_ticket_is_the_tenants_gm() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        key = Principal(tenant_actor("acme"), "tenant", "acme", None, "acme/ford")
        held = await issued.redeem((await issued.mint(key)).ticket, "ford")
        assert (held.actor, held.kind, held.tenant, held.stream) == (
            tenant_actor("acme"), "tenant", "acme", "acme/ford"
        )  # fmt: skip

    asyncio.run(scenario())


def test_a_ticket_does_not_outlive_the_token_that_minted_it() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        minted = await issued.mint(player(expires=int(NOW) + 10))
        assert minted.expires_at.timestamp() == int(NOW) + 10

    asyncio.run(scenario())


def test_an_expired_ticket_is_refused_as_expired() -> None:
    async def scenario() -> None:
        issued, store, clock = tickets()
        await created(store)
        minted = await issued.mint(player())
        clock.now += TICKET_SECONDS
        with pytest.raises(InvalidTicket, match="has expired"):
            await issued.redeem(minted.ticket, "ford")

    asyncio.run(scenario())


def test_a_ticket_for_another_encounter_is_refused_and_kept() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        minted = await issued.mint(player())
        with pytest.raises(InvalidTicket, match="another encounter"):
            await issued.redeem(minted.ticket, "bridge")
        assert (await issued.redeem(minted.ticket, "ford")).actor.id == "alice"

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param("", id="empty"),
        pytest.param("fray1.e30.c2ln", id="a token's prefix"),
        pytest.param("fst1.e30", id="no signature"),
        pytest.param("fst1.!!!.c2ln", id="not base64"),
        pytest.param("fst1.a.b.c", id="too many parts"),
    ],
)
def test_a_forged_ticket_is_refused(forged: str) -> None:
    async def scenario() -> None:
        issued, _, _ = tickets()
        with pytest.raises(InvalidTicket, match="not a stream ticket Fray issued"):
            await issued.redeem(forged, "ford")

    asyncio.run(scenario())


def test_a_ticket_signed_with_another_secret_is_forged() -> None:
    async def scenario() -> None:
        theirs, their_store, _ = tickets("another secret")
        ours, our_store, _ = tickets()
        await created(their_store)
        await created(our_store)
        minted = await theirs.mint(player())
        with pytest.raises(InvalidTicket, match="not a stream ticket Fray issued"):
            await ours.redeem(minted.ticket, "ford")

    asyncio.run(scenario())


def test_a_changed_claim_breaks_the_signature() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        prefix, claims, signature = (await issued.mint(player())).ticket.split(".")
        tampered = f"{prefix}.{claims[:-2]}{'A' if claims[-2] != 'A' else 'B'}{claims[-1]}"
        with pytest.raises(InvalidTicket, match="not a stream ticket Fray issued"):
            await issued.redeem(f"{tampered}.{signature}", "ford")

    asyncio.run(scenario())


def test_of_two_connections_presenting_one_ticket_one_gets_the_stream() -> None:
    async def scenario() -> None:
        issued, store, _ = tickets()
        await created(store)
        minted = await issued.mint(player())
        both = await asyncio.gather(
            issued.redeem(minted.ticket, "ford"),
            issued.redeem(minted.ticket, "ford"),
            return_exceptions=True,
        )
        assert sorted(type(outcome).__name__ for outcome in both) == ["InvalidTicket", "Principal"]

    asyncio.run(scenario())


def test_no_ticket_is_minted_for_an_unknown_encounter() -> None:
    async def scenario() -> None:
        issued, _, _ = tickets()
        with pytest.raises(NotFound):
            await issued.mint(player(stream_id("acme", "nowhere")))

    asyncio.run(scenario())
