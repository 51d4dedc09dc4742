"""The round's action budget in d20-action-points: the optional economy of 5 action points
(Action Points), gifting a leftover point (Gifting Action Points), and the plain round it
replaces, one action each (Combat Round).

Pure arithmetic on points and actions. Readings of the seed (docs/rules/d20-action-points.md):

* The table holds the Action Points list as printed, plus the costs the seed gives its
  Special Combat Moves (charge 5, disarm 3, grapple 3).
* A gift is exactly one point, at most one gift per giver a round, to another combatant who
  has not taken its turn; a receiver may take gifts from several givers.
* Without action points, every action that costs points there is the one action of the
  round; free actions stay free, and a Heroic Point buys one more action (Combat Round 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple, NoReturn

from service.domain.errors import RuleViolation

ACTION_POINTS = "d20-action-points Action Points"
GIFTING = "d20-action-points Gifting Action Points"
COMBAT_ROUND = "d20-action-points Combat Round"
SPECIAL_MOVES = "d20-action-points Special Combat Moves and Actions"

Category = Literal["full-round", "standard", "move", "free"]
ActionName = Literal[
    "delay",
    "full-attack",
    "run",
    "cast-spell",
    "melee-attack",
    "ranged-attack",
    "ready",
    "equip-item",
    "crawl",
    "move",
    "stand-up",
    "drop-item",
    "drop-prone",
    "talk",
    "charge",
    "disarm",
    "grapple",
    "break-free",
    "release",
]

# d20-action-points Action Points: "Each character has 5 action points in a round".
POINTS_PER_ROUND = 5
CATEGORY_COST: Mapping[Category, int] = MappingProxyType(
    {"full-round": 5, "standard": 3, "move": 2, "free": 0}
)
# d20-action-points Gifting Action Points: "gift one action point".
GIFT_POINTS = 1
# d20-action-points Combat Round: "3. One action taken", "5. Optional: Spend a Heroic Point
# to gain an additional action".
ONE_ACTION = 1
HEROIC_ACTIONS = 1
# d20-action-points Action Points: crawl "five feet"; run "at double of their current
# movement rate"; Special Combat Moves, Charge!: "up-to double their current movement rate".
CRAWL_FEET = 5
RUN_MULTIPLIER = 2


class Action(NamedTuple):
    """One action of the table: its name, how a message names it, and its category."""

    name: ActionName
    label: str
    category: Category
    rule: str = ACTION_POINTS

    @property
    def cost(self) -> int:
        return CATEGORY_COST[self.category]


_ACTIONS = (
    Action("delay", "delaying", "full-round"),
    Action("full-attack", "a full attack", "full-round"),
    Action("run", "running", "full-round"),
    Action("cast-spell", "casting a spell", "standard"),
    Action("melee-attack", "a melee attack", "standard"),
    Action("ranged-attack", "a ranged attack", "standard"),
    Action("ready", "readying an action", "standard"),
    Action("equip-item", "equipping or using an item", "standard"),
    Action("crawl", "crawling five feet", "move"),
    Action("move", "moving", "move"),
    Action("stand-up", "standing up", "move"),
    Action("drop-item", "dropping an item", "free"),
    Action("drop-prone", "dropping prone", "free"),
    Action("talk", "talking", "free"),
    Action("charge", "a charge", "full-round", SPECIAL_MOVES),
    Action("disarm", "a disarm attempt", "standard", SPECIAL_MOVES),
    Action("grapple", "a grapple", "standard", SPECIAL_MOVES),
    # Grapple: "The only action a GRAPPLED monster / character can do as their next action is
    # to try and break the grapple" (interpretation: a standard action, like the grapple).
    Action("break-free", "breaking free", "standard", SPECIAL_MOVES),
    Action("release", "letting go", "free", SPECIAL_MOVES),
)
ACTIONS: Mapping[ActionName, Action] = MappingProxyType({a.name: a for a in _ACTIONS})


class Budget(NamedTuple):
    """A combatant's action points this round, and whether it has taken its turn."""

    combatant_id: str
    name: str
    points: int = POINTS_PER_ROUND
    acted: bool = False


class Gift(NamedTuple):
    giver: Budget
    receiver: Budget


def _left(points: int) -> str:
    return "none is left" if points == 0 else f"{points} {'is' if points == 1 else 'are'} left"


def spend(points: int, action: ActionName) -> int:
    """The points left after `action`; refused when it costs more than are left."""
    spent = ACTIONS[action]
    if spent.cost > points:
        raise RuleViolation(
            "points/not-enough",
            f"{spent.label} costs {spent.cost} action points; {_left(points)}",
            rule=spent.rule,
            details={"action": action, "cost": spent.cost, "points": points},
        )
    return points - spent.cost


def feet(action: ActionName, movement_rate: int) -> int:
    """How far `action` carries a combatant whose current movement rate is `movement_rate`
    (a charge: at most this far). Actions that do not move carry it nowhere."""
    match action:
        case "move":
            return movement_rate
        case "run" | "charge":
            return RUN_MULTIPLIER * movement_rate
        case "crawl":
            return CRAWL_FEET
        case _:
            return 0


def gift(giver: Budget, receiver: Budget, points: int = 1, *, gifted: bool = False) -> Gift:
    """d20-action-points Gifting Action Points: one leftover point passes from `giver` to
    `receiver`, who has not taken its turn this round. `gifted`: the giver already gave one
    this round."""
    if points != GIFT_POINTS:
        _refuse("gift/one-point", f"only one action point can be gifted, not {points}", points)
    if giver.combatant_id == receiver.combatant_id:
        _refuse("gift/to-self", "an action point can only be gifted to someone else", points)
    if receiver.acted:
        _refuse(
            "gift/receiver-acted",
            f"{receiver.name} has already taken their turn this round; only someone who has "
            "not can receive an action point",
            points,
        )
    if gifted:
        _refuse(
            "gift/already-gifted", f"{giver.name} has already gifted a point this round", points
        )
    if giver.points < GIFT_POINTS:
        raise RuleViolation(
            "points/not-enough",
            f"gifting an action point costs 1 action point; {_left(giver.points)}",
            rule=GIFTING,
            details={"action": "gift", "cost": GIFT_POINTS, "points": giver.points},
        )
    return Gift(
        giver._replace(points=giver.points - GIFT_POINTS),
        receiver._replace(points=receiver.points + GIFT_POINTS),
    )


def _refuse(code: str, message: str, points: int) -> NoReturn:
    raise RuleViolation(code, message, rule=GIFTING, details={"points": points})


def take_action(taken: int, action: ActionName, heroic_point: bool = False) -> int:
    """Without action points (d20-action-points Combat Round): the actions taken this round
    after `action`. One action a round, two with a Heroic Point; free actions do not count."""
    chosen = ACTIONS[action]
    if chosen.category == "free":
        return taken
    allowed = ONE_ACTION + (HEROIC_ACTIONS if heroic_point else 0)
    if taken >= allowed:
        extra = "" if heroic_point else " (a Heroic Point buys one more)"
        raise RuleViolation(
            "round/action-taken",
            f"{chosen.label} would be action {taken + 1} this round; only {allowed} "
            f"{'action is' if allowed == 1 else 'actions are'} allowed{extra}",
            rule=COMBAT_ROUND,
            details={"action": action, "taken": taken, "allowed": allowed},
        )
    return taken + 1
