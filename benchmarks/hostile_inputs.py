"""The figures of the README's reliability section: hostile-input corpus cases, fuzz examples
run, tracebacks, files changed on refusal.

    python benchmarks/hostile_inputs.py [--examples N] [-n WORKERS]

Runs the corpus (``tests/hostile``, every command a real process) and the error-boundary tests,
then each fuzz test in the deep profile (``AGENTTOOLS_FUZZ=deep``, random seeds) with N
examples (default 5,000), and prints the counts hypothesis reports. A traceback or a changed
file fails its test; the failures are counted by kind (target 0 each).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FUZZ_TESTS = [
    "tests/test_validate_fuzz.py",
    "tests/mcp/test_properties.py::test_hostile_files_give_a_located_problem_or_a_lossless_edit",
]
# kind -> the suffix of its cases (tests/hostile/test_<kind>.py)
CORPUS_KINDS = {
    "pyproject": ".toml",
    "config/json": ".json",
    "config/toml": ".toml",
    "config/yaml": ".yaml",
    "uri": ".uri",
    "state": ".state",
    "manifest": ".json",
    "skill_md": ".md",
}


def pytest(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000, help="per fuzz test")
    parser.add_argument("-n", default="2", help="pytest-xdist workers for the corpus")
    args = parser.parse_args()

    from tests.hostile.corpus import cases

    kinds = {kind: cases(kind, suffix) for kind, suffix in CORPUS_KINDS.items()}
    total = sum(len(c) for c in kinds.values())
    commands = sum(len(case.commands) for c in kinds.values() for case in c)
    print(f"corpus: {total} cases, {commands} commands")
    for kind, found in kinds.items():
        print(f"  {kind}: {len(found)}")

    corpus = pytest(["-n", args.n, "tests/hostile", "tests/cli/test_error_boundary.py"], {})
    print(f"corpus and error-boundary tests: {corpus.strip().splitlines()[-1]}")
    # the corpus runner's failure messages: the command's stderr, or the paths that changed
    changed = corpus.count("changed on disk:")
    tracebacks = len(re.findall(r"^E\s+Traceback \(most recent call last\)", corpus, re.M))

    examples = 0
    failing = 0
    for test in FUZZ_TESTS:
        out = pytest(
            [test, "--hypothesis-show-statistics"],
            {"AGENTTOOLS_FUZZ": "deep", "AGENTTOOLS_FUZZ_EXAMPLES": str(args.examples)},
        )
        for passing, fails in re.findall(r"(\d+) passing, (\d+) failing", out):
            examples += int(passing) + int(fails)
            failing += int(fails)
        print(f"{test}: {out.strip().splitlines()[-1]}")
    print()
    print(
        f"corpus cases {total} / fuzz examples run {examples:,} / "
        f"tracebacks {failing + tracebacks} / files changed on refusal {changed}"
    )


if __name__ == "__main__":
    main()
