"""`python -m bench [SUITE ...] [--quick] [--profile]`: run benchmarks, print one table.

Suites: core (store appends, loads, the fold); api (REST and GraphQL commands against
minimal baselines, SSE fan-out; needs wrk); receipts (what signing receipts costs the REST
command path; needs wrk); workers (deadline lateness with `fray worker` processes);
webhooks (delivery latency and rate with a `fray worker` and a local receiver); sizing
(Redis memory and AOF bytes per encounter of 20, 100 and 500 events, for
deploy/README.md); metrics (what the API's metrics cost a command, in one process and in
multiprocess mode); cluster (Redis Cluster: the command path's client, what WAIT costs,
one master against three; needs wrk). With no suite named, all of them run.
Progress goes to stderr; the table (markdown) goes to stdout. --profile adds a cProfile
of each workload that has a target (met or not), after the table.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable

from bench import api, cluster, core, metrics, receipts, sizing, webhooks, workers
from bench.report import NOT_MET, Row, hot_spots, progress, table

Suite = Callable[[argparse.Namespace], core.Outcome]


def _core(args: argparse.Namespace) -> core.Outcome:
    settings = core.Settings.quick() if args.quick else core.Settings()
    settings.profile = args.profile
    return core.run(settings)


def _api(args: argparse.Namespace) -> core.Outcome:
    settings = api.Settings.quick() if args.quick else api.Settings()
    settings.profile = args.profile
    return api.run(settings)


def _receipts(args: argparse.Namespace) -> core.Outcome:
    return receipts.run(receipts.Settings.quick() if args.quick else receipts.Settings())


def _sizing(args: argparse.Namespace) -> core.Outcome:
    return sizing.run(sizing.Settings.quick() if args.quick else sizing.Settings())


def _workers(args: argparse.Namespace) -> core.Outcome:
    return workers.run(workers.Settings.quick() if args.quick else workers.Settings())


def _metrics(args: argparse.Namespace) -> core.Outcome:
    return metrics.run(metrics.Settings.quick() if args.quick else metrics.Settings())


def _webhooks(args: argparse.Namespace) -> core.Outcome:
    return webhooks.run(webhooks.Settings.quick() if args.quick else webhooks.Settings())


def _cluster(args: argparse.Namespace) -> core.Outcome:
    return cluster.run(cluster.Settings.quick() if args.quick else cluster.Settings())


SUITES: dict[str, Suite] = {
    "core": _core,
    "api": _api,
    "receipts": _receipts,
    "workers": _workers,
    "webhooks": _webhooks,
    "sizing": _sizing,
    "metrics": _metrics,
    "cluster": _cluster,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("suites", nargs="*", help=f"any of {', '.join(SUITES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="short runs, for a smoke test")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile each workload that has a target"
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        parser.error(f"unknown suite(s) {', '.join(unknown)}; choose from {', '.join(SUITES)}")
    chosen = args.suites or list(SUITES)
    started = time.perf_counter()
    rows: list[Row] = []
    environment: list[str] = []
    profiles = []
    for name in chosen:
        progress(f"suite {name}")
        outcome = SUITES[name](args)
        rows += outcome.rows
        environment += [e for e in outcome.environment if e not in environment]
        profiles += outcome.profiles
    elapsed = time.perf_counter() - started
    print(
        f"Fray benchmarks ({', '.join(chosen)}): Python {platform.python_version()}, "
        + ", ".join(environment)
        + f"; {os.cpu_count()} CPUs; {elapsed:.0f}s{' (quick)' if args.quick else ''}\n"
    )
    print(table(rows))
    missed = [row.benchmark for row in rows if row.result == NOT_MET]
    print(f"\n{len(missed)} target(s) not met" + (": " + "; ".join(missed) if missed else ""))
    for title, profile in profiles:
        print(f"\n## Profile: {title}\n\n```\n{hot_spots(profile).strip()}\n```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
