"""Combat II's mana recovery (combat-ii §5 Mana Recovery): study after a night's rest
restores points or slots at a pace set by the `recovery` option, within a day's allowance,
and an interrupted session counts only the time studied. Pure functions of their arguments,
on the pools `mana` names."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from service.domain.table import Frozen, Pool
from service.rules.combat_ii.mana import HOURLY, ManaSystem, Recovery, ceil_div


def minutes_per_point(recovery: Recovery, highest: int, hours_slept: int) -> int | None:
    """Study minutes per point regained (combat-ii §5 MANA RECOVERY); None below 4 hours' sleep.

    `flat` is the PH's 10 minutes per spell level; `by-level` is 13 - highest allowable spell
    level (at least 1). Each hour of sleep below 8 adds a minute per point. Interpretation: the
    seed states that penalty after the by-level formula ("This assumes a full night's rest");
    Fray applies it to both options."""
    if hours_slept < 4:
        return None
    base = 10 if recovery == "flat" else max(1, 13 - highest)
    return base + max(0, 8 - hours_slept)


class Interruption(Frozen):
    """A break in a recovery session's study (combat-ii §5 RECOVERY LIMIT)."""

    after: int = Field(ge=0, le=24 * 60, description="Minutes of study done before it.")
    minutes: int = Field(ge=1, le=24 * 60, description="How long it lasted.")


MAX_BREAK = 120


def session_minutes(minutes: int, interruptions: Sequence[Interruption]) -> tuple[int, int | None]:
    """The study minutes that count, and where the session broke off (None: it did not).

    combat-ii §5 RECOVERY LIMIT: "A spell recovery session may not be interrupted for more than
    one 2 hour period. If it is, any further recovery is delayed until after the next normal
    rest period." Interpretation: one interruption of up to 2 hours is borne; a longer one, or
    a second one, ends the session where it began: only the study before it counts."""
    for n, stop in enumerate(sorted(interruptions, key=lambda i: i.after)):
        if n > 0 or stop.minutes > MAX_BREAK:
            return min(minutes, stop.after), stop.after
    return minutes, None


class Recovered(Frozen):
    """What a recovery session gave back."""

    restored: dict[str, int]
    """Pool name -> points (System I) or slots (System II) restored."""
    minutes_used: int
    """Study minutes spent; the automatic refills take none."""
    counted: int = 0
    """Points counted against the 24-hour RECOVERY LIMIT (a level-L slot counts L)."""
    interrupted_after: int | None = None
    """The study minutes after which an interruption ended the session, if one did."""


def _gap(pools: dict[str, Pool], name: str) -> int:
    pool = pools.get(name)
    if pool is None or pool.max is None:
        return 0
    return max(0, pool.max - pool.current)


def _refill_free(pools: dict[str, Pool]) -> dict[str, int]:
    """combat-ii §5 BONUS SPELL POINTS: "received automatically each day" after 4 hours' sleep."""
    return {name: _gap(pools, name) for name in pools if name.startswith(("free-", "bonus-"))}


def _refill_hourly(pools: dict[str, Pool]) -> dict[str, int]:
    """Per-hour innate powers (combat-ii §5 INNATE SPELLS) are back after an hour's rest."""
    return {name: _gap(pools, name) for name in pools if name.startswith(HOURLY)}


def _study_points(
    pools: dict[str, Pool], per_point: int, minutes: int, allowance: int
) -> tuple[dict[str, int], int, int]:
    mana = min(_gap(pools, "mana"), minutes // per_point, allowance)
    left = minutes - mana * per_point
    # combat-ii §5: specialist points at half time, "round up after totaling the minutes".
    special = min(_gap(pools, "specialist-mana"), 2 * left // per_point, allowance - mana)
    used = mana * per_point + ceil_div(special * per_point, 2)
    return {"mana": mana, "specialist-mana": special}, used, mana + special


def _study_slots(
    pools: dict[str, Pool],
    per_point: int,
    minutes: int,
    allowance: int,
    choose: dict[int, int] | None,
) -> tuple[dict[str, int], int, int]:
    """Highest level first; within a level normal slots before specialist ones. A slot that no
    longer fits the time or the limit is skipped and smaller ones are still tried."""
    restored: dict[str, int] = {}
    normal = halved = counted = 0
    for level in range(9, 0, -1):
        wanted = choose.get(level, 0) if choose is not None else 10**6
        for kind in ("slots", "specialist"):
            name = f"{kind}-{level}"
            for _ in range(min(_gap(pools, name), wanted)):
                cost = level * per_point
                n, h = (normal, halved + cost) if kind == "specialist" else (normal + cost, halved)
                if n + ceil_div(h, 2) > minutes or counted + level > allowance:
                    break
                normal, halved, counted = n, h, counted + level
                restored[name] = restored.get(name, 0) + 1
                wanted -= 1
    return restored, normal + ceil_div(halved, 2), counted


def recover(
    pools: dict[str, Pool],
    system: ManaSystem,
    recovery: Recovery,
    highest: int,
    hours_slept: int,
    minutes: int,
    recovered_today: int,
    daily_limit: int,
    choose: dict[int, int] | None = None,
    interruptions: Sequence[Interruption] = (),
) -> Recovered:
    """One recovery session after a rest of `hours_slept` with `minutes` of study.

    Free boxes and bonus slots refill first, taking no time and not counted against the limit.
    Study then restores `mana` before `specialist-mana` (System I), or spent slots (System II),
    all of them or only the counts `choose` names as {spell level: count} (combat-ii §5 Mana
    System II RECOVERY: "the caster may elect which spell slots to recover"); higher levels go
    first when the time or the limit runs short. combat-ii §5 RECOVERY LIMIT: no more than
    `daily_limit - recovered_today` points are regained; a slot of level L counts L. An
    interruption may end the study early (`session_minutes`). Per-hour innate powers come
    back after any rest of an hour or more, sleep or not, outside the limit."""
    budget, broken = session_minutes(max(0, minutes), interruptions)
    hourly = _refill_hourly(pools) if hours_slept * 60 + minutes >= 60 else {}
    per_point = minutes_per_point(recovery, highest, hours_slept)
    refills = hourly
    studied: dict[str, int] = {}
    used = counted = 0
    if per_point is not None and system != "none":
        allowance = max(0, daily_limit - recovered_today)
        if system == "points":
            studied, used, counted = _study_points(pools, per_point, budget, allowance)
        else:
            studied, used, counted = _study_slots(pools, per_point, budget, allowance, choose)
        refills = _refill_free(pools) | hourly
    restored = {n: k for n, k in (refills | studied).items() if k > 0}
    return Recovered(
        restored=restored, minutes_used=used, counted=counted, interrupted_after=broken
    )
