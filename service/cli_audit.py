"""`fray audit`: verify a stream from Redis, an export file or a Fray server's API.

Exit codes (docs/audit.md): 0 every check ran and passed, 1 a check failed, 3 nothing failed
but something could not be checked (the verdict says what), 2 the audit could not start.
`--all --tenant T` audits every ended encounter of a tenant in Redis and exits with the
worst verdict's code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.audit import (
    EXIT_UNSTARTED,
    AuditReport,
    Check,
    Export,
    Keys,
    audit_export,
    keys_of,
    read_export,
)


class Unstarted(Exception):
    """The audit could not start: the message says why (exit 2)."""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "audit",
        help="verify a stream: lines, hash chain, seed, draws, decide re-run, head, receipts",
        description="Exit codes: 0 passed (every check ran and passed), 1 failed, "
        "2 could not start, 3 incomplete (nothing failed, something could not be checked).",
    )
    parser.add_argument("encounter_id", nargs="?", help="an encounter in Redis, or at --url")
    parser.add_argument("--file", help="a JSONL export (`fray export`, GET .../export)")
    parser.add_argument("--url", help="a Fray server: fetch the export, seed and keys from it")
    parser.add_argument("--token", help="an auditor token for --url (default: $FRAY_AUDIT_TOKEN)")
    parser.add_argument("--seed", help="the seed (hex), if the stream has not revealed it")
    parser.add_argument("--keys", help="trusted signing keys: a saved GET /v1/keys answer")
    parser.add_argument("--receipts", help="receipts a client kept, one JSON object per line")
    parser.add_argument("--json", action="store_true", help="print every check as JSON")
    parser.add_argument(
        "--all",
        action="store_true",
        help="audit every ended encounter of --tenant in Redis, one line each (found by "
        "scanning Redis's keys: an operator's command, not for a busy hour)",
    )
    parser.add_argument(
        "--tenant", help="the tenant whose encounter(s) to audit in Redis (as in FRAY_API_KEYS)"
    )


EveryEnded = Callable[[str], list[tuple[str, AuditReport]]]


def run(args: argparse.Namespace, from_store: Any, every_ended: EveryEnded) -> int:
    """`from_store(encounter_id, seed, receipts)` audits an encounter in Redis,
    `every_ended(tenant)` every ended encounter of a tenant (the CLI's engine lives in
    service.cli)."""
    if args.all:
        return _all(args, every_ended)
    try:
        seed = _seed(args.seed)
        receipts = _receipts(args.receipts)
        keys = _keys(args.keys)
        if args.file:
            export = read_export(_read(Path(args.file)).splitlines())
            if args.url:
                keys = keys if keys is not None else _fetch_keys(args.url)
            report = audit_export(export, seed, trusted=keys, receipts=receipts)
        elif args.url:
            report = _from_url(args, seed, keys, receipts)
        elif args.encounter_id:
            report = from_store(args.encounter_id, seed, receipts)
        else:
            raise Unstarted("give an encounter id (in Redis, or with --url) or --file")
    except Unstarted as error:
        print(f"fray audit: {error}", file=sys.stderr)
        return EXIT_UNSTARTED
    show(report, as_json=args.json)
    return report.exit_code


def _all(args: argparse.Namespace, every_ended: EveryEnded) -> int:
    clash = [name for name in ("encounter_id", "file", "url", "seed", "receipts", "keys")
             if getattr(args, name)]  # fmt: skip
    if clash or not args.tenant:
        why = (f"--all audits the tenant's encounters in Redis: it takes no {clash[0]}"
               if clash else "--all needs --tenant T")  # fmt: skip
        print(f"fray audit: {why}", file=sys.stderr)
        return EXIT_UNSTARTED
    audited = every_ended(args.tenant)
    if args.json:
        # The id the store lists it by: a report that stops before version 1 names none.
        listed = [{**report.to_dict(), "encounter_id": eid} for eid, report in audited]
        print(json.dumps(listed, indent=2))
    else:
        for encounter_id, report in audited:
            print(f"{encounter_id}  {report.verdict}  {_first_problem(report)}")
    if not audited:
        print(f"fray audit: tenant '{args.tenant}' has no ended encounter", file=sys.stderr)
    return max((report.exit_code for _, report in audited), key=_SEVERITY.index, default=0)


# Exit codes from the best verdict to the worst: any failure outweighs any incomplete audit.
_SEVERITY = (0, 3, 1)


def _first_problem(report: AuditReport) -> str:
    """The first failing check, else the first that could not run, else `-`."""
    found: Check | None = report.first_failure or next(
        (c for c in report.checks if c.status == "incomplete"), None
    )
    return "-" if found is None else f"{found.name}: {found.detail}"


def show(report: AuditReport, *, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print("\n".join(report.lines()))


def _from_url(
    args: argparse.Namespace, seed: bytes | None, keys: Keys | None, receipts: list[Any] | None
) -> AuditReport:
    if not args.encounter_id:
        raise Unstarted("--url needs the encounter id")
    token = args.token or os.environ.get("FRAY_AUDIT_TOKEN")
    if not token:
        raise Unstarted("--url needs an auditor token: --token or $FRAY_AUDIT_TOKEN")
    base = f"{args.url.rstrip('/')}/v1/encounters/{args.encounter_id}"
    export = read_export(_get(f"{base}/export", token).splitlines())
    if seed is None and not _revealed(export):
        seed = _fetch_seed(f"{base}/seed", token)
    trusted = keys if keys is not None else _fetch_keys(args.url)
    return audit_export(export, seed, trusted=trusted, receipts=receipts)


def _revealed(export: Export) -> bool:
    return any(e.type == "encounter-ended" for e in export.envelopes)


def _fetch_seed(url: str, token: str) -> bytes | None:
    """The seed an auditor token may read before the end; None where it may not (a
    sealed seed): the audit then says what that leaves unchecked."""
    try:
        answer = json.loads(_get(url, token, quiet={403}))
    except _Refused:
        return None
    return bytes.fromhex(str(answer["seed"]))


def _fetch_keys(url: str) -> Keys | None:
    try:
        return keys_of(json.loads(_get(f"{url.rstrip('/')}/v1/keys", None, quiet={404})))
    except _Refused:
        return None


class _Refused(Exception):
    pass


def _get(url: str, token: str | None, quiet: set[int] | frozenset[int] = frozenset()) -> bytes:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as error:
        if error.code in quiet:
            raise _Refused from error
        raise Unstarted(f"GET {url} answered {error.code}: {_message(error)}") from error
    except (urllib.error.URLError, OSError) as error:
        raise Unstarted(f"could not reach {url}: {error}") from error


def _message(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read())["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return error.reason or "no message"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise Unstarted(f"cannot read {path}: {error.strerror}") from error


def _seed(text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError as error:
        raise Unstarted("--seed: not hex (the seed is 64 hex digits)") from error


def _keys(path: str | None) -> Keys | None:
    if path is None:
        return None
    try:
        keys = keys_of(json.loads(_read(Path(path))))
    except (ValueError, AttributeError) as error:
        raise Unstarted(f"--keys: {path} is not a GET /v1/keys answer") from error
    if not keys:
        raise Unstarted(f"--keys: {path} lists no Ed25519 key")
    return keys


def _receipts(path: str | None) -> list[Any] | None:
    if path is None:
        return None
    try:
        return [json.loads(line) for line in _read(Path(path)).splitlines() if line.strip()]
    except ValueError as error:
        raise Unstarted(f"--receipts: {path} is not one JSON receipt per line") from error
