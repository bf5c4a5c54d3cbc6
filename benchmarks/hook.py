"""Build-hook cost: an in-process hatchling wheel build of a sample with the agenttools hook
against the same build with hooks disabled (``HATCH_BUILD_NO_HOOKS``), and
``agenttools validate`` alone.

Times interleaved, R rounds each, on a copy of ``sample_packages/<sample>``:

- plain:    ``WheelBuilder.build`` with hooks off (modules only, no skills);
- hook:     the same build with the hook (validation, manifest, skill files, wheel check);
- validate: ``validate_project`` (what ``agenttools validate`` and pre-commit run).

Prints the medians and the ratios against plain.
Run: ``python benchmarks/hook.py [sample] [R]`` (default: weather-tools, 30).

``python benchmarks/hook.py backends [R] [KEY ...] [--before DIR]`` measures the wrapping
backend instead: for each backend of tests/hook/backends.py (setuptools, uv_build,
poetry-core, flit-core, pdm-backend, installed in this environment; or only those named),
whole ``python -m build --no-isolation --wheel`` processes of the same project built through
``agenttools_hook.backend``, through a backend that only delegates (the floor of any
wrapper: same requirements, the wrapped backend found as ``agenttools_hook.backend`` finds
it, no checks, nothing added) and by the backend alone, in turn (wrapped, delegating, alone,
wrapped, ...), R rounds each (default 10); ``--before DIR`` adds the wrapping backend of
another checkout of agenttools (an earlier commit's files, put first on ``PYTHONPATH``) to
each round. Prints the medians of wall and CPU time (the kernel's count for the process and
every hook process it ran) and the medians of the pair-by-pair ratios to alone; or, with
``--instructions``, the instructions one build of each executes (valgrind's callgrind,
every process: they do not vary with the load of a shared machine).
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.hook.backends import Backend

SAMPLES = Path(__file__).resolve().parents[1] / "sample_packages"


def main(argv: list[str]) -> int:
    if argv[:1] == ["backends"]:
        before = None
        instructions = "--instructions" in argv
        argv = [a for a in argv if a != "--instructions"]
        if "--before" in argv:
            at = argv.index("--before")
            before = Path(argv[at + 1]).resolve()
            argv = argv[:at] + argv[at + 2 :]
        rounds = int(argv[1]) if len(argv) > 1 else 10
        return backends(rounds, argv[2:], before, instructions=instructions)
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


def backends(
    rounds: int, keys: list[str], before: Path | None = None, *, instructions: bool = False
) -> int:
    """The wrapping backend against each backend alone (those of *keys*, else all), whole
    processes; with *before*, also the wrapping backend of that checkout (on PYTHONPATH);
    with *instructions*, the instructions each build executes instead of its times."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.hook.backends import BACKENDS, SOURCE_DATE_EPOCH, make_project

    # bytecode caches as an installed agenttools has them (the uncounted first round writes
    # them for an editable checkout): without, every run would compile agenttools anew
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    if instructions:
        print("python -m build --no-isolation --wheel, instructions (callgrind, one build each)")
    else:
        print(f"python -m build --no-isolation --wheel, {rounds} rounds each (medians)")
    with tempfile.TemporaryDirectory() as scratch:
        for backend in [b for b in BACKENDS.values() if not keys or b.key in keys]:
            projects = {
                "wrapped": make_project(Path(scratch) / backend.key / "wrapped", backend),
                **(
                    {"before": make_project(Path(scratch) / backend.key / "before", backend)}
                    if before
                    else {}
                ),
                "delegating": _delegating(Path(scratch) / backend.key / "delegating", backend),
                "alone": make_project(Path(scratch) / backend.key / "alone", backend, wrap=False),
            }
            if instructions:
                counts = {
                    name: _instructions(
                        project,
                        Path(scratch) / "out" / backend.key / name,
                        {**env, "PYTHONPATH": str(before)} if name == "before" else env,
                    )
                    for name, project in projects.items()
                }
                alone_total = sum(counts["alone"].values())
                for name, count in counts.items():
                    parts = "  ".join(f"{k} {v / 1e6:6.1f}" for k, v in sorted(count.items()))
                    total = sum(count.values())
                    print(
                        f"  {backend.key:12} {name:10} {total / 1e6:7.1f} M "
                        f"x{total / alone_total:5.2f}   ({parts})"
                    )
                continue
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in projects}
            for round_ in range(rounds + 1):  # the first round warms caches, uncounted
                for name, project in projects.items():
                    out = Path(scratch) / "out" / backend.key / name
                    shutil.rmtree(out, ignore_errors=True)
                    command = [sys.executable, "-m", "build", "--no-isolation", "--wheel"]
                    run_env = {**env, "PYTHONPATH": str(before)} if name == "before" else env
                    measured = _run([*command, "--outdir", str(out), str(project)], run_env)
                    if round_:
                        times[name].append(measured)
            for which, label in ((0, "wall"), (1, "CPU")):
                alone = statistics.median(t[which] for t in times["alone"])
                line = f"  {backend.key:12} {label:4} alone {alone * 1000:6.0f} ms"
                for name in [n for n in projects if n != "alone"]:
                    median = statistics.median(t[which] for t in times[name])
                    pairs = statistics.median(
                        a[which] / b[which]
                        for a, b in zip(times[name], times["alone"], strict=True)
                    )
                    line += f"   {name} {median * 1000:6.0f} ms x{pairs:5.2f}"
                print(line)
    return 0


def _instructions(project: Path, out: Path, env: dict[str, str]) -> dict[str, int]:
    """Millions of instructions a build executes (valgrind's callgrind, every process it
    starts), by process: the frontend, each hook process, the tools a backend runs. Unlike
    times, they do not depend on what else the machine runs."""
    import subprocess

    command = [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out)]
    subprocess.run([*command, str(project)], env=env, capture_output=True, check=True)  # warm
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as profiles:
        valgrind = ["valgrind", "--tool=callgrind", "--trace-children=yes", "-q",
                    f"--callgrind-out-file={profiles}/%p"]  # fmt: skip
        subprocess.run(
            [*valgrind, *command, str(project)], env=env, capture_output=True, check=True
        )
        counts: dict[str, int] = {}
        for profile in Path(profiles).iterdir():
            text = profile.read_text(errors="replace")
            cmd = next((line for line in text.splitlines() if line.startswith("cmd:")), "")
            totals = [line for line in text.splitlines() if line.startswith("summary:")]
            role = (
                "requires" if "_in_process.py get_requires" in cmd
                else "wheel" if "_in_process.py build_wheel" in cmd
                else "frontend" if " -m build " in cmd
                else "tools"
            )  # fmt: skip
            counts[role] = counts.get(role, 0) + sum(int(t.split()[1]) for t in totals)
    return counts


# The floor of any wrapping backend: every hook delegated, the backend named by
# [tool.agenttools] found as agenttools_hook.backend finds it, no checks, nothing added.
DELEGATING_BACKEND = """\
import os

from agenttools_hook.wrapping import load_backend


def get_requires_for_build_wheel(config_settings=None):
    hook = getattr(load_backend(os.getcwd()), "get_requires_for_build_wheel", None)
    return [] if hook is None else hook(config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    backend = load_backend(os.getcwd())
    return backend.build_wheel(wheel_directory, config_settings, metadata_directory)
"""


def _delegating(directory: Path, backend: Backend) -> Path:
    """The wrapped project, built through :data:`DELEGATING_BACKEND` (an in-tree backend)
    instead: the same frontend work (its requirements are the wrapped project's)."""
    from tests.hook.backends import make_project

    make_project(directory, backend)
    pyproject = directory / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    text = text.replace(
        'build-backend = "agenttools_hook.backend"',
        'build-backend = "delegating_backend"\nbackend-path = ["."]',
    )
    pyproject.write_text(text, encoding="utf-8")
    (directory / "delegating_backend.py").write_text(DELEGATING_BACKEND, encoding="utf-8")
    return directory


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
