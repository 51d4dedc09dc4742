"""`d20-action-points`: a d20 combat round with an optional 5-action-point economy, ranged
bands, environment modifiers, spell casting against a DC, and morale
(seed: shared/seeds/d20-action-points.txt).

The seed has no numbered sections; code, errors and tests cite it by its headings, as
`d20-action-points Gifting Action Points`.
"""
