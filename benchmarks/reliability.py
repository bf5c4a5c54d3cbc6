"""The random-kill and signal figures (issue 10): N seeded trials of a real ``agenttools``
process deploying, upgrading (``--upgrade``) or removing a bundle of 100 skills and 2 MCP
servers — or (``--operations``) removing two deployments with ``remove --all``, or writing
an entry with ``mcp install`` into a config file that is a link — sent SIGKILL (or SIGINT /
SIGTERM) at a random moment: a named point of the operation, its K-th file system mutation,
or a random delay from outside. After each: the
next plain command, the consistency checks, removal of everything, and a byte-for-byte
comparison of HOME with how it started (see ``tests/deploy/reliability.py``).

Prints trials / inconsistencies / orphans / retries needing --force / lost or left user
data, and each failing trial. Run: ``python benchmarks/reliability.py --runs 300
[--seed S] [--signals KILL,INT,TERM] [--operations remove,remove-all,mcp-install]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.deploy.reliability import MORE_OPERATIONS, OPERATIONS, Lab, summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--signals", default="KILL")
    parser.add_argument(
        "--operations",
        default=",".join(OPERATIONS),
        help=f"of {', '.join(OPERATIONS + MORE_OPERATIONS)} (default: %(default)s)",
    )
    args = parser.parse_args()
    signals = tuple(args.signals.split(","))
    operations = tuple(args.operations.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(Path(tmp))
        lab.calibrate(operations)
        print(f"calibrated: mutations {lab.mutations}, seconds {lab.durations}", flush=True)
        results = []
        start = time.monotonic()
        for trial in lab.trials(args.runs, args.seed, signals, operations):
            result = lab.run(trial)
            results.append(result)
            if not result.ok:
                print("FAILED:", result.describe(), flush=True)
        print(json.dumps(summarize(results)))
        print(f"({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
