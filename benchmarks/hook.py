"""Build-hook cost: an in-process hatchling wheel build of a sample with the agenttools hook
against the same build with hooks disabled (``HATCH_BUILD_NO_HOOKS``), and
``agenttools validate`` alone.

Times interleaved, R rounds each, on a copy of ``sample_packages/<sample>``:

- plain:    ``WheelBuilder.build`` with hooks off (modules only, no skills);
- hook:     the same build with the hook (validation, manifest, skill files, wheel check);
- validate: ``validate_project`` (what ``agenttools validate`` and pre-commit run).

Prints the medians and the ratios against plain.
Run: ``python benchmarks/hook.py [sample] [R]`` (default: weather-tools, 30).

``python benchmarks/hook.py backends [R]`` measures the wrapping backend instead: for each
backend of tests/hook/backends.py (setuptools, uv_build, poetry-core, flit-core, pdm-backend,
installed in this environment), whole ``python -m build --no-isolation --wheel`` processes of
the same project built through ``agenttools_hook.backend`` and by the backend alone, in turn
(wrapped, alone, wrapped, ...), R rounds each (default 10; ``backends R uv-build ...``
measures only the backends named); prints the medians of wall and
CPU time (the kernel's count for the process and every hook process it ran) and the medians of
the pair-by-pair ratios wrapped/alone.
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

from agenttools_runtime.project import validate_project

SAMPLES = Path(__file__).resolve().parents[1] / "sample_packages"


def main(argv: list[str]) -> int:
    if argv[:1] == ["backends"]:
        return backends(int(argv[1]) if len(argv) > 1 else 10, argv[2:])
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


def backends(rounds: int, keys: list[str]) -> int:
    """The wrapping backend against each backend alone (those of *keys*, else all), whole
    processes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.hook.backends import BACKENDS, SOURCE_DATE_EPOCH, make_project

    # bytecode caches as an installed agenttools has them (the uncounted first round writes
    # them for an editable checkout): without, every run would compile agenttools anew
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    print(f"python -m build --no-isolation --wheel, {rounds} rounds each (medians)")
    with tempfile.TemporaryDirectory() as scratch:
        for backend in [b for b in BACKENDS.values() if not keys or b.key in keys]:
            projects = {
                "wrapped": make_project(Path(scratch) / backend.key / "wrapped", backend),
                "alone": make_project(Path(scratch) / backend.key / "alone", backend, wrap=False),
            }
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in projects}
            for round_ in range(rounds + 1):  # the first round warms caches, uncounted
                for name, project in projects.items():
                    out = Path(scratch) / "out" / backend.key / name
                    shutil.rmtree(out, ignore_errors=True)
                    command = [sys.executable, "-m", "build", "--no-isolation", "--wheel"]
                    measured = _run([*command, "--outdir", str(out), str(project)], env)
                    if round_:
                        times[name].append(measured)
            for which, label in ((0, "wall"), (1, "CPU")):
                wrapped = statistics.median(t[which] for t in times["wrapped"])
                alone = statistics.median(t[which] for t in times["alone"])
                pairs = statistics.median(
                    a[which] / b[which]
                    for a, b in zip(times["wrapped"], times["alone"], strict=True)
                )
                print(
                    f"  {backend.key:12} {label:4} alone {alone * 1000:6.0f} ms   "
                    f"wrapped {wrapped * 1000:6.0f} ms   x{pairs:5.2f}"
                )
    return 0


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of a whole process; CPU is the kernel's user + system time of it
    and of every process it waited for (the hooks' subprocesses, the backend's own tools)."""
    import subprocess

    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    assert process.stderr is not None
    errors = process.stderr.read()
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {errors.decode()}")
    return wall, usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
