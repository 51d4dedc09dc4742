"""fifty-two: the playing-card field of battle (../shared/seeds/fifty-two.txt).

Being built mechanic by mechanic (issue 6); not registered as a ruleset until it is whole.
"""
