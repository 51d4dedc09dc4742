"""The half-segment schedule of combat-ii §1 Table 1 (System I) and §3 Table 4 (System II).

A phase has six half-segments. Weapons strike in the half-segment their adjusted speed
factor (SF) names on the combatant's track; a spell's casting-time (CT) units tick on
alternate half-segments, the odd ones for initiative winners and the even ones for losers.
System I numbers half-segments 1-20 over a round (phase 4, the endphase, is 19-20);
System II numbers them 1-6 within each phase.
"""

from __future__ import annotations

from typing import Literal

Track = Literal["winner", "loser"]
HALF_SEGMENTS = 6
CT_PER_PHASE = 3
ACTION_PHASES = 3
ENDPHASE = 4
LETTERS = ("A", "B", "C")


def sf_band(sf: int) -> int:
    """combat-ii §1 Table 1: the winner column's row for an adjusted SF (1 = "SF < 2").

    The table prints phase 2's band as "SF 7-8"; phases 1 and 3 say "SF 7-9" and SF 9 has no
    other row, so Fray reads "7-8" as a misprint of "7-9"."""
    if sf < 2:
        return 1
    if sf <= 3:
        return 2
    if sf <= 6:
        return 3
    if sf <= 9:
        return 4
    return 5


def strike_offset(sf: int, track: Track) -> int:
    """The half-segment (1-6 within its phase) in which an attack at this SF lands: the
    loser column is the winner column one half-segment later (§1 Table 1)."""
    return sf_band(sf) + (1 if track == "loser" else 0)


def casting_offsets(track: Track) -> tuple[int, ...]:
    """combat-ii §1 Table 1, §3 Table 4: the half-segments in which a CT unit passes."""
    return (1, 3, 5) if track == "winner" else (2, 4, 6)


def unit_offset(unit: int, track: Track) -> int:
    """The half-segment within a phase of the `unit`-th (1-3) CT unit cast in that phase."""
    return casting_offsets(track)[unit - 1]


def max_ct(phase: int) -> int:
    """combat-ii §1 G: a spell begun in phase 2 may not exceed CT 6, in phase 3 CT 3."""
    return CT_PER_PHASE * (ACTION_PHASES + 1 - phase)


def half_segment(phase: int, offset: int, system: str = "I") -> int:
    """The number a front end shows: 1-20 over a System I round, 1-6 in a System II phase."""
    return offset if system == "II" else HALF_SEGMENTS * (phase - 1) + offset


def endphase_offset(track: Track) -> int:
    """combat-ii §1 Table 1: one-round spells complete at 19 (winners) or 20 (losers)."""
    return 1 if track == "winner" else 2


def phase_label(system: str, phase: int) -> str:
    if system == "II":
        return LETTERS[phase - 1]
    return "endphase" if phase == ENDPHASE else str(phase)


def movement_squares(mv: int) -> int:
    """combat-ii §2 D Table 3: squares (10 ft) a phase allows: a third of MV."""
    return mv // 3


def most_per_half_segment(mv: int) -> int:
    """combat-ii §2 D Table 3 "max sq./half-seg": the phase's squares spread over six
    half-segments, rounded up (MV 18 allows 1, MV 21 allows 2)."""
    return -(-movement_squares(mv) // HALF_SEGMENTS)


def least_per_half_segment(mv: int) -> int:
    """combat-ii §2 D Table 3 "(min N)": the squares a half-segment must cover to keep the
    speed, rounded down (MV 3: 0, MV 18: 1, MV 36: 2)."""
    return movement_squares(mv) // HALF_SEGMENTS


def squares_by_half_segment(squares: int) -> tuple[int, ...]:
    """A phase's movement split as evenly as Table 3 allows over its six half-segments."""
    return tuple(
        squares * k // HALF_SEGMENTS - squares * (k - 1) // HALF_SEGMENTS
        for k in range(1, HALF_SEGMENTS + 1)
    )
