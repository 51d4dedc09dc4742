"""deploy/README.md lists every variable Fray reads, each once, and no other."""

from __future__ import annotations

import re

from tests.deploy.tools import DEPLOY, fray_variables


def test_the_variable_table_lists_every_variable_fray_reads():
    rows = re.findall(r"^\| `(FRAY_[A-Z_]+)` \|", (DEPLOY / "README.md").read_text(), re.M)
    assert len(rows) == len(set(rows)), rows
    assert set(rows) == fray_variables()
