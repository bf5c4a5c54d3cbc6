"""The figures of the README's ownership rows: the user's own config entries and linked config
files under deploy, ``--force``, remove, ``mcp install|uninstall``, rollbacks and kills.

    python benchmarks/ownership.py [--sequences N]

Runs the scenario tests (``tests/deploy/test_ownership.py``: JSON, JSONC, TOML and YAML; and
``tests/deploy/test_linked_config.py``: a config file that is a symbolic link, real failures
and kills), then the stateful machine (``tests/deploy/test_stateful.py``) for N random
sequences without shrinking: deploys, ``--upgrade``, ``--force`` and removals, SIGKILL at a
random mutation, the user editing skills and config entries and writing their own entries
under a bundle's keys. Any of the user's bytes or entries lost fails a test; the failures are
counted (target 0).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pytest(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            *args,
        ],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout + done.stderr


def counts(summary: str) -> tuple[int, int]:
    """(passed, failed) from pytest's last line."""
    passed = re.search(r"(\d+) passed", summary)
    failed = re.search(r"(\d+) failed", summary)
    return (int(passed.group(1)) if passed else 0, int(failed.group(1)) if failed else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=150, help="stateful sequences")
    args = parser.parse_args()

    scenarios = (
        pytest(["tests/deploy/test_ownership.py", "tests/deploy/test_linked_config.py"], {})
        .strip()
        .splitlines()[-1]
    )
    passed, failed = counts(scenarios)
    print(f"scenarios: {scenarios}")

    stateful = pytest(
        ["tests/deploy/test_stateful.py", "--hypothesis-show-statistics"],
        {"AGENTTOOLS_STATEFUL": "debug", "AGENTTOOLS_STATEFUL_EXAMPLES": str(args.sequences)},
    )
    runs = sum(int(a) + int(b) for a, b in re.findall(r"(\d+) passing, (\d+) failing", stateful))
    _ok, stateful_failed = counts(stateful.strip().splitlines()[-1])
    print(f"stateful: {stateful.strip().splitlines()[-1]}")
    print()
    print(
        f"scenario tests {passed + failed} (failed {failed}) / stateful sequences {runs} "
        f"(failed {stateful_failed})"
    )


if __name__ == "__main__":
    main()
