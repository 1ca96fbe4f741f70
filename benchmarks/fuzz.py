"""A long run of the public API fuzzer (``tests/_fuzz.py``) under a memory cap.

    python benchmarks/fuzz.py [--cases 10000] [--seed 0] [--memory-gb 3] [--out fuzz.jsonl]

Each case (random data, settings and constraints of both families, the command line, edited
study files) is drawn by hypothesis and run by ``_fuzz.run_case``; one JSON line per case
(outcome ``model``, ``error`` or ``defect``, its message and seconds) goes to ``--out``
(default: stdout), and a summary line (counts, defects by message, cases per second) to
stdout at the end. The process's address space is capped (``resource.RLIMIT_AS``) so that
a case that tries to allocate gigabytes fails with a MemoryError (a defect) instead of
taking the machine down. Exit code 1 when a case was a defect.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import emit  # noqa: E402
from _fuzz import CASES, describe, run_case  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402


def cap_memory(gigabytes: float) -> None:
    """Cap this process's address space at ``gigabytes``."""
    limit = int(gigabytes * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--memory-gb", type=float, default=3.0)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    cap_memory(args.memory_gb)
    out = args.out.open("w") if args.out else sys.stdout
    counts: collections.Counter = collections.Counter()
    defects: collections.Counter = collections.Counter()
    started = time.perf_counter()

    @seed(args.seed)
    @settings(
        max_examples=args.cases,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(CASES)
    def one(case):
        answer = run_case(case)
        counts[(answer["kind"], answer["outcome"])] += 1
        if answer["outcome"] == "defect":
            defects[answer["error"][:120]] += 1
            answer["case"] = describe(case)
        out.write(json.dumps(answer) + "\n")
        out.flush()

    one()
    seconds = time.perf_counter() - started
    total = sum(counts.values())
    emit(
        {
            "benchmark": "fuzz",
            "cases": total,
            "seed": args.seed,
            "memory_gb": args.memory_gb,
            "outcomes": {f"{k}/{o}": n for (k, o), n in sorted(counts.items())},
            "defects": dict(defects.most_common(20)),
            "seconds": round(seconds, 1),
            "cases_per_second": round(total / seconds, 2) if seconds else None,
        }
    )
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
