"""Build-hook cost: an in-process hatchling wheel build of a sample with the agenttools hook
against the same build with hooks disabled (``HATCH_BUILD_NO_HOOKS``), and
``agenttools validate`` alone.

Times interleaved, R rounds each, on a copy of ``sample_packages/<sample>``:

- plain:    ``WheelBuilder.build`` with hooks off (modules only, no skills);
- hook:     the same build with the hook (validation, manifest, skill files, wheel check);
- validate: ``validate_project`` (what ``agenttools validate`` and pre-commit run).

Prints the medians and the ratios against plain.
Run: ``python benchmarks/hook.py [sample] [R]`` (default: weather-tools, 30).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder

from agenttools_runtime.validate import validate_project

SAMPLES = Path(__file__).resolve().parents[1] / "sample_packages"


def main(argv: list[str]) -> int:
    sample = argv[0] if argv else "weather-tools"
    rounds = int(argv[1]) if len(argv) > 1 else 30
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / sample
        shutil.copytree(SAMPLES / sample, project, symlinks=True)
        out = Path(scratch) / "out"

        def build(hooks: bool) -> Callable[[], None]:
            def run() -> None:
                if hooks:
                    os.environ.pop("HATCH_BUILD_NO_HOOKS", None)
                else:
                    os.environ["HATCH_BUILD_NO_HOOKS"] = "true"
                shutil.rmtree(out, ignore_errors=True)
                list(WheelBuilder(str(project)).build(directory=str(out), versions=["standard"]))

            return run

        cases = {
            "plain": build(False),
            "hook": build(True),
            "validate": lambda: validate_project(project),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(rounds):
            for name, case in cases.items():
                start = time.perf_counter()
                case()
                times[name].append(time.perf_counter() - start)
        os.environ.pop("HATCH_BUILD_NO_HOOKS", None)
    base = statistics.median(times["plain"])
    print(f"{sample}, {rounds} rounds (medians)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:9} {median * 1000:8.2f} ms   x{median / base:5.2f} of plain")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
