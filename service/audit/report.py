"""What an audit found: one `Check` per step of the algorithm, and the verdict they add up to.

A verdict means what it says (docs/audit.md): `passed` only when every check ran and passed,
`failed` when one found a forgery, `incomplete` when one could not run (the seed not
revealed and not given, the ruleset version not registered, the head not anchored by a
trusted key). A check that does not apply (no receipts were given) is `skipped`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["passed", "failed", "incomplete", "skipped"]
Verdict = Literal["passed", "failed", "incomplete"]

# Every check, in the order the algorithm runs them (docs/audit.md names each).
CHECKS = ("lines", "chain", "created", "seed", "draws", "rerun", "head", "receipts")

EXIT_CODES: dict[Verdict, int] = {"passed": 0, "failed": 1, "incomplete": 3}
EXIT_UNSTARTED = 2  # bad arguments, an unreadable file, no such encounter, no server


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    count: int | None = None  # what was checked: events, draws, commands, receipts

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "count": self.count,
                "detail": self.detail}  # fmt: skip


@dataclass
class AuditReport:
    checks: list[Check] = field(default_factory=list)
    encounter_id: str | None = None
    ruleset: str | None = None
    ruleset_version: str | None = None
    audited_version: int = 0  # the last version the audit read

    def add(self, name: str, status: Status, detail: str, count: int | None = None) -> Check:
        check = Check(name, status, detail, count)
        self.checks.append(check)
        return check

    def passed(self, name: str, detail: str, count: int | None = None) -> bool:
        self.add(name, "passed", detail, count)
        return True

    def failed(self, name: str, detail: str) -> bool:
        self.add(name, "failed", detail)
        return False

    def not_run(self, names: tuple[str, ...], why: str) -> None:
        """The checks a failure left unrun: they are not passes."""
        done = {check.name for check in self.checks}
        for name in names:
            if name not in done:
                self.add(name, "incomplete", f"not run: {why}")

    @property
    def verdict(self) -> Verdict:
        statuses = {check.status for check in self.checks}
        if "failed" in statuses:
            return "failed"
        if "incomplete" in statuses or not self.checks:
            return "incomplete"
        return "passed"

    @property
    def ok(self) -> bool:
        return self.verdict == "passed"

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def problems(self) -> list[str]:
        """The failures, each naming its check."""
        return [f"{c.name}: {c.detail}" for c in self.checks if c.status == "failed"]

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if c.status == "failed"), None)

    def lines(self) -> list[str]:
        """The report for a person: one line per check, then the verdict."""
        marks = {"passed": "ok  ", "failed": "FAIL", "incomplete": "----", "skipped": "skip"}
        out = [f"{marks[c.status]}  {c.name}: {c.detail}" for c in self.checks]
        out.append(_SUMMARY[self.verdict])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "encounter_id": self.encounter_id,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "audited_version": self.audited_version,
            "checks": [check.to_dict() for check in self.checks],
        }


_SUMMARY: dict[Verdict, str] = {
    "passed": "audit passed: every check ran and passed",
    "failed": "audit FAILED",
    "incomplete": "audit INCOMPLETE: nothing failed, but not everything could be checked",
}
