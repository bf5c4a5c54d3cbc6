"""The whole test suite, N runs in a row, on a machine loaded by a parallel CPU burner.

Starts B burner processes (each spins on one core, default 2: as many as the machine the
suite is sized for has) and, while they run, runs the README's test command's pytest
(``python -m pytest -n auto``, from this checkout, with this interpreter) N times in a row,
each run in a fresh process. Prints each run's verdict, its pytest summary line, its wall
time and the load average at its end, then ``PASSED k/N``; exits 1 unless every run passed.

``--baseline`` first runs the suite once without the burners and prints each loaded run's
time as a ratio to it. Arguments after ``--`` replace ``-n auto`` (e.g. ``-- -n 2 -m clients``
to hammer the real-client tests). Run (about 3-6 minutes a run on 2 cores)::

    python benchmarks/loaded_suite.py [--runs N] [--burners B] [--baseline] [-- PYTEST-ARGS]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed|error).*?)\s*=*$")


def burn() -> None:
    """Spin on one core until terminated."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


def run_suite(pytest_args: list[str]) -> tuple[bool, str, float, list[str]]:
    """One whole run: passed?, pytest's summary line, wall seconds, the failing tests."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - start
    lines = done.stdout.splitlines()
    summary = next((m.group(1) for m in map(SUMMARY.match, reversed(lines)) if m), "no summary")
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return done.returncode == 0, summary, seconds, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs in a row (default 3)")
    parser.add_argument("--burners", type=int, default=2, help="CPU burners (default 2)")
    parser.add_argument("--baseline", action="store_true", help="one unloaded run first")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    pytest_args = args.pytest_args or ["-n", "auto"]
    print(f"python -m pytest {' '.join(pytest_args)}: {args.runs} runs, {args.burners} burners")
    print(f"cores: {os.cpu_count()}, load average now: {os.getloadavg()[0]:.1f}", flush=True)

    baseline = None
    if args.baseline:
        ok, summary, baseline, _ = run_suite(pytest_args)
        print(
            f"baseline (no burners): {'passed' if ok else 'FAILED'} in {baseline:.0f} s: {summary}"
        )

    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(args.burners)]
    for process in burners:
        process.start()
    passed = 0
    try:
        for number in range(1, args.runs + 1):
            ok, summary, seconds, failed = run_suite(pytest_args)
            passed += ok
            ratio = f" ({seconds / baseline:.2f}x the baseline)" if baseline else ""
            print(
                f"run {number}/{args.runs}: {'passed' if ok else 'FAILED'} in {seconds:.0f} s"
                f"{ratio}, load average {os.getloadavg()[0]:.1f}: {summary}",
                flush=True,
            )
            for line in failed:
                print(f"    {line}", flush=True)
    finally:
        for process in burners:
            process.terminate()
        for process in burners:
            process.join()
    print(f"PASSED {passed}/{args.runs} loaded runs")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
