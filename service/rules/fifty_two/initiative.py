"""The initiative chart of fifty-two: totals, ties, holding, +1, and the round-2 re-sequencing
(fifty-two §2, §2.1, §5, §5.2, §6).

Pure arithmetic on numbers the caller supplies. Dice come from outside: an entry carries the
initiative die already rolled, and the roll-off dice of tie-breaker 9 when it needs them.

Roll-offs. Two combatants equal on tie-breakers 1 to 8 have the same initial total, so they
start on the same number and the chart cannot be finished without ordering them: such a pair
always meets, whatever the cascade does. Which roll-offs are needed is therefore known before
any tie is broken. `roll_offs_needed` reports the groups; the caller draws one die for each
member with the encounter's dice, appends it to that member's `roll_off` and asks again (a
roll-off that ties again is re-rolled between those it left tied, never against the rest);
then `resolve_ties`. No die is drawn for a roll-off that cannot matter, and no entry carries
an invented value. `resolve_ties` refuses entries that still need a roll-off.

Interpretations where the seed is silent:

* Three or more on one number (§2.1 only speaks of "the two"): the group is ranked by the
  tie-breakers and broken pairwise from the top. Its best two are the pair: the best gets
  +1 if that slot is free, else the second drops 1, and the rest of the group are a tie
  broken in turn at the same number. The chart ends in the tie-breakers' order either way.
* Holding as the last combatant of the order (§5): there is no next combatant, so the
  initiative does not change.
* §6 is read from its second paragraph ("From the highest current initiative total down");
  "from slowest to fastest" in the first is not followed. A combatant moves only up
  ("increase"), only when its last attacker is of the opposing faction, and several victims
  of one attacker line up below it in their current order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

Side = Literal["allies", "enemies"]

TIE_BREAKERS = (
    "highest initial total",
    "surprise",
    "highest die roll",
    "highest initiative modifier",
    "highest magical attack modifier",
    "highest DEX",
    "highest INT",
    "lowest STR",
    "roll-off",
)
"""fifty-two §2.1, in order: `TieBreak.decided_by` numbers them from 1."""

RankKey = tuple[int, int, int, int, int, int, int, int, tuple[int, ...]]


class InitiativeEntry(BaseModel):
    """One combatant's share of fifty-two §2 and §2.1: its five terms, what breaks its ties,
    and the roll-off dice it has rolled so far (usually none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    combatant_id: str
    name: str
    side: Side
    dex_mod: int
    initiative_modifier: int = 0
    magical_attack_modifier: int = 0
    circumstantial: int = 0
    die_roll: int
    surprise: bool = False
    dex: int
    int_: int
    str_: int
    roll_off: tuple[int, ...] = ()


class Slot(NamedTuple):
    combatant_id: str
    initiative: int


class TieBreak(NamedTuple):
    """One tie broken: at which number, who went first, by which tie-breaker (1-9), and who
    moved where."""

    at: int
    winner: str
    loser: str
    decided_by: int
    moved: str
    to: int


class RollOffNeeded(ValueError):
    """Entries equal on every tie-breaker but the roll-off, and not yet parted by one."""

    def __init__(self, groups: list[tuple[str, ...]]) -> None:
        super().__init__(f"a roll-off is needed between {groups}")
        self.groups = groups


def initial_total(entry: InitiativeEntry) -> int:
    # fifty-two §2: DEX mod + initiative modifiers + magical attack modifiers
    # + circumstantial modifiers + a die roll.
    return (
        entry.dex_mod
        + entry.initiative_modifier
        + entry.magical_attack_modifier
        + entry.circumstantial
        + entry.die_roll
    )


def rank(entry: InitiativeEntry) -> RankKey:
    """fifty-two §2.1: the nine tie-breakers as a sort key; whoever sorts first goes first."""
    return (
        -initial_total(entry),
        -int(entry.surprise),
        -entry.die_roll,
        -entry.initiative_modifier,
        -entry.magical_attack_modifier,
        -entry.dex,
        -entry.int_,
        entry.str_,
        tuple(-die for die in entry.roll_off),
    )


def roll_offs_needed(entries: Iterable[InitiativeEntry]) -> list[tuple[str, ...]]:
    """The groups that must roll off (or roll again) before `resolve_ties` can finish."""
    groups: dict[RankKey, list[str]] = {}
    for entry in entries:
        groups.setdefault(rank(entry), []).append(entry.combatant_id)
    return [tuple(ids) for ids in groups.values() if len(ids) > 1]


def tie_breaks(entries: Sequence[InitiativeEntry]) -> tuple[list[Slot], list[TieBreak]]:
    """fifty-two §2.1: the chart, and each tie as it was broken, highest number first."""
    by_id = _by_id(entries)
    needed = roll_offs_needed(entries)
    if needed:
        raise RollOffNeeded(needed)
    values = {cid: initial_total(entry) for cid, entry in by_id.items()}
    steps: list[TieBreak] = []
    while (tie := _highest_tie(values)) is not None:
        at, tied = tie
        # fifty-two §2.1 (interpretation for three or more): the best two of the group meet.
        winner, loser = sorted(tied, key=lambda cid: rank(by_id[cid]))[:2]
        # fifty-two §2.1: the winner takes +1 if that slot is free; otherwise the loser
        # takes -1, even onto an occupied slot, which is a new tie broken in its turn (the
        # seed's Initiative 9 -> 8 cascade).
        moved, to = (winner, at + 1) if at + 1 not in values.values() else (loser, at - 1)
        values[moved] = to
        decided_by = _decided_by(by_id[winner], by_id[loser])
        steps.append(TieBreak(at, winner, loser, decided_by, moved, to))
    return _chart(values), steps


def resolve_ties(entries: Sequence[InitiativeEntry]) -> list[Slot]:
    """fifty-two §2 and §2.1: the initiative chart, fastest first, every number distinct."""
    return tie_breaks(entries)[0]


def hold_action(order: Iterable[tuple[str, int]], combatant_id: str) -> list[Slot]:
    """fifty-two §5: not acting drops a combatant to one less than the next combatant to act
    if that slot is free, else to the next vacant slot below it."""
    values = _values(order)
    chart = _chart(values)
    place = [slot.combatant_id for slot in chart].index(_known(values, combatant_id))
    if place == len(chart) - 1:
        return chart  # interpretation: nobody acts next, so there is nothing to drop below
    to = chart[place + 1].initiative - 1
    while to in values.values():
        to -= 1
    return _chart({**values, combatant_id: to})


def plus_one(order: Iterable[tuple[str, int]], combatant_id: str) -> list[Slot]:
    """fifty-two §5.2: +1 initiative; on a tie, up to the next empty slot above."""
    values = _values(order)
    to = values[_known(values, combatant_id)] + 1
    while to in values.values():
        to += 1
    return _chart({**values, combatant_id: to})


def resequence(
    order: Iterable[tuple[str, int]],
    sides: Mapping[str, Side],
    last_attackers: Mapping[str, str],
) -> list[Slot]:
    """fifty-two §6: once, at the start of round 2, every combatant whose last attacker was of
    the opposing faction moves up to one less than that attacker, taken from the highest
    initiative down; those above make room with +1 as necessary.

    `last_attackers` maps a combatant to whoever attacked it last in round 1.
    """
    values = _values(order)
    sequence = [slot.combatant_id for slot in _chart(values)]
    for place, attacker in enumerate(sequence):
        victims = [
            cid
            for cid in sequence[place + 1 :]
            if last_attackers.get(cid) == attacker and sides[cid] != sides[attacker]
        ]
        if not victims:
            continue
        rest = [cid for cid in sequence[place + 1 :] if cid not in victims]
        sequence[place + 1 :] = victims + rest
        for below, victim in enumerate(victims, start=1):
            values[victim] = values[attacker] - below
        _make_room(sequence, values)
    return [Slot(cid, values[cid]) for cid in sequence]


def _make_room(sequence: list[str], values: dict[str, int]) -> None:
    # fifty-two §6: "Those on higher initiative totals get +1 initiative as necessary".
    for place in reversed(range(len(sequence) - 1)):
        below = values[sequence[place + 1]]
        values[sequence[place]] = max(values[sequence[place]], below + 1)


def _highest_tie(values: Mapping[str, int]) -> tuple[int, list[str]] | None:
    # fifty-two §2.1: "Break ties in order from highest total to lowest."
    counts: dict[int, list[str]] = {}
    for cid, value in values.items():
        counts.setdefault(value, []).append(cid)
    tied = [value for value, ids in counts.items() if len(ids) > 1]
    return (max(tied), counts[max(tied)]) if tied else None


def _decided_by(winner: InitiativeEntry, loser: InitiativeEntry) -> int:
    pairs = zip(rank(winner), rank(loser), strict=True)
    return next(number for number, (w, lo) in enumerate(pairs, start=1) if w != lo)


def _chart(values: Mapping[str, int]) -> list[Slot]:
    return sorted((Slot(cid, value) for cid, value in values.items()), key=lambda s: -s.initiative)


def _by_id(entries: Iterable[InitiativeEntry]) -> dict[str, InitiativeEntry]:
    by_id: dict[str, InitiativeEntry] = {}
    for entry in entries:
        if entry.combatant_id in by_id:
            raise ValueError(f"{entry.combatant_id} has two initiative entries")
        by_id[entry.combatant_id] = entry
    return by_id


def _values(order: Iterable[tuple[str, int]]) -> dict[str, int]:
    values: dict[str, int] = {}
    for cid, value in order:
        if cid in values or value in values.values():
            raise ValueError(f"an initiative chart has no repeats (at {cid}, {value})")
        values[cid] = value
    return values


def _known(values: Mapping[str, int], combatant_id: str) -> str:
    if combatant_id not in values:
        raise ValueError(f"{combatant_id} is not on the initiative chart")
    return combatant_id
