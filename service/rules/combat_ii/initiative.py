"""combat-ii §1 A-B: group initiative and each combatant's track.

Each significant group rolls a d10 and the lowest wins (§1 A: in a multi-sided fight the low
roll wins and all others lose). Each combatant then modifies its group's roll by its
Reaction Adjustment (§1 B; with §4 Agility, AGI's). Fray reads "a high dexterity may put a
loser onto the winner's track" as a comparison with the best roll of the other groups: a
loser whose adjusted score beats it joins the winners, a winner whose adjusted score falls
behind it joins the losers, and a tie keeps the group's result.
"""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.combat_ii.abilities import reaction_adjustment
from service.rules.combat_ii.events import InitiativeRolled
from service.rules.combat_ii.schedule import Track
from service.rules.combat_ii.state import CombatIIState
from service.rules.combat_ii.stats import stats_of

MAX_REROLLS = 10
"""Tied lowest rolls are rolled again (interpretation); after this many the first group in
alphabetical order wins, so a scripted table cannot loop for ever."""


def group_of(combatant: Combatant) -> str:
    """§1 A: a party fights as a group; a stat block's `group` splits off a subgroup."""
    return stats_of(combatant).group or combatant.side


def fighting(state: CombatIIState) -> list[Combatant]:
    return [c for c in state.table.combatants.values() if not c.out_of_fight]


def reaction(state: CombatIIState, combatant: Combatant) -> int:
    """§1 B: the Reaction Adjustment of DEX; with §4 Agility, of AGI ("AGI ... is also used
    to modify the party initiative roll (using the Reaction Adjustment score)")."""
    stats = stats_of(combatant)
    if state.options.agility and stats.agility is not None:
        return reaction_adjustment(stats.agility)
    return stats.reaction_of(stats.dexterity)


def roll(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    combatants = fighting(state)
    groups = sorted({group_of(c) for c in combatants})
    # §1 A: one roll per group, rolled for its first member standing (table order).
    first = {g: next(c.id for c in combatants if group_of(c) == g) for g in groups}
    rolls = {g: ctx.die(10, f"initiative: {g}", roller=first[g]) for g in groups}
    rerolled: list[str] = []
    for _ in range(MAX_REROLLS):
        low = min(rolls.values(), default=0)
        tied = [g for g in groups if rolls[g] == low]
        if len(tied) < 2:
            break
        rerolled += tied
        rolls |= {g: ctx.die(10, f"initiative tie: {g}", roller=first[g]) for g in tied}
    winner = min(groups, key=lambda g: (rolls[g], g)) if groups else None
    tracks: dict[str, Track] = {}
    scores: dict[str, int] = {}
    for combatant in combatants:
        group = group_of(combatant)
        score = rolls[group] - reaction(state, combatant)
        others = [rolls[g] for g in groups if g != group]
        scores[combatant.id] = score
        tracks[combatant.id] = _track(group == winner, score, min(others, default=None))
    return [
        ctx.emit(
            InitiativeRolled(
                rolls=rolls, rerolled=tuple(rerolled), winner=winner, tracks=tracks, scores=scores
            )
        )
    ]


def _track(group_won: bool, score: int, best_other: int | None) -> Track:
    if best_other is None:
        return "winner"
    if group_won:
        return "loser" if score > best_other else "winner"
    return "winner" if score < best_other else "loser"
