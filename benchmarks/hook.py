"""Build-hook cost: an in-process hatchling wheel build of a sample with the agenttools hook
against the same build with hooks disabled (``HATCH_BUILD_NO_HOOKS``), and
``agenttools validate`` alone.

Times interleaved, R rounds each, on a copy of ``sample_packages/<sample>``:

- plain:    ``WheelBuilder.build`` with hooks off (modules only, no skills);
- hook:     the same build with the hook (validation, manifest, skill files, wheel check);
- validate: ``validate_project`` (what ``agenttools validate`` and pre-commit run).

Prints the medians and the ratios against plain.
Run: ``python benchmarks/hook.py [sample] [R]`` (default: weather-tools, 30).

``python benchmarks/hook.py files [N] [R]`` measures a bundle of N files (default 1,000: one
skill, its ``SKILL.md`` and N-1 references of 2 KB): whole processes of ``pip wheel
--no-build-isolation`` (pip asks for the metadata first, and hatchling offers no metadata hook
under pip: pyproject_hooks builds the wheel and unpacks its ``.dist-info``) and of
``python -m build --no-isolation --wheel`` (no metadata step), and the in-process
``WheelBuilder`` build, of the same project three ways, in turn, R rounds (default 7):

- hook:           the agenttools hook bundles the skill (checked, hashed, manifest);
- force-include:  hatchling alone adds the same files with ``force-include`` (into the package,
                  outside ``.dist-info``), no hook;
- extra-metadata: hatchling alone adds them with ``extra-metadata`` (where the hook puts
                  them, inside ``.dist-info``), no hook.

Prints the medians (CPU of the process and every process it waited for) and the median
pair-by-pair ratios of hook to each. ``--before DIR`` adds the hook of another checkout of
agenttools (put first on ``PYTHONPATH``; in-process: not measured) to each round.

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

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hatchling.builders.wheel import WheelBuilder

from agenttools_runtime.project import validate_project

if TYPE_CHECKING:
    from tests.hook.backends import Backend

SAMPLES = Path(__file__).resolve().parents[1] / "sample_packages"


MODES = ("sample", "files", "backends")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="benchmarks/hook.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    modes = parser.add_subparsers(dest="mode", metavar="MODE")
    rounds = "rounds (default %(default)s)"
    sample_mode = modes.add_parser("sample", help="a sample's build with and without the hook")
    samples = sorted(p.name for p in SAMPLES.iterdir())
    sample_mode.add_argument("sample", nargs="?", default="weather-tools", choices=samples)
    sample_mode.add_argument("rounds", metavar="R", nargs="?", type=int, default=30, help=rounds)
    files_mode = modes.add_parser("files", help="a bundle of N files: the hook against hatchling")
    files_mode.add_argument(
        "count", metavar="N", nargs="?", type=int, default=1000, help="files (default 1000)"
    )
    files_mode.add_argument("rounds", metavar="R", nargs="?", type=int, default=7, help=rounds)
    backends_mode = modes.add_parser("backends", help="the wrapping backend against each alone")
    backends_mode.add_argument("rounds", metavar="R", nargs="?", type=int, default=10, help=rounds)
    backends_mode.add_argument("keys", metavar="KEY", nargs="*", help="only these backends")
    backends_mode.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not time"
    )
    for mode in (files_mode, backends_mode):
        mode.add_argument(
            "--before", metavar="DIR", type=Path, help="also the hook of another checkout"
        )
    if not argv or (argv[0] not in MODES and not argv[0].startswith("-")):
        argv = ["sample", *argv]  # the mode of a command line that names none
    args = parser.parse_args(argv)
    before = args.before.resolve() if getattr(args, "before", None) else None
    if args.mode == "files":
        return files(args.count, args.rounds, before)
    if args.mode == "backends":
        return backends(args.rounds, args.keys, before, instructions=args.instructions)
    return sample(args.sample, args.rounds)


def sample(sample: str, rounds: int) -> int:
    """The in-process build of *sample* with hooks off and on, and its validation alone."""
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


FILES_PYPROJECT = """\
[build-system]
requires = ["hatchling", "agenttools"]
build-backend = "hatchling.build"

[project]
name = "big-bundle"
version = "1.0"

[tool.hatch.build.targets.wheel]
packages = ["big_bundle"]
"""
FILES_HOW = {
    "hook": "[tool.hatch.build.hooks.agenttools]\n\n[tool.agenttools.skills.big]\n",
    "force-include": (
        '[tool.hatch.build.targets.wheel.force-include]\n"skills/big" = "big_bundle/big"\n'
    ),
    "extra-metadata": (
        '[tool.hatch.build.targets.wheel.extra-metadata]\n"skills/big" = "agenttools/skills/big"\n'
    ),
}


def files_project(directory: Path, how: str, count: int) -> Path:
    """The big-bundle project: one skill of *count* files, added to the wheel *how*."""
    (directory / "big_bundle").mkdir(parents=True)
    (directory / "big_bundle" / "__init__.py").write_text("")
    (directory / "pyproject.toml").write_text(FILES_PYPROJECT + "\n" + FILES_HOW[how])
    skill = directory / "skills" / "big"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: big\ndescription: Many files.\n---\n\nRead on.\n")
    line = "A line of reference text, as a skill's references hold them.\n"
    for index in range(count - 1):
        text = f"# Reference {index}\n\n" + line * 32
        (skill / "references" / f"ref-{index:04}.md").write_text(text)
    return directory


def files(count: int, rounds: int, before: Path | None = None) -> int:
    """The hook against hatchling's own inclusion of the same *count* files, under pip, under
    build, and in-process; with *before*, also the hook of that checkout."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("HATCH_BUILD_NO_HOOKS", None)
    frontends = {
        "pip wheel": [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                      "--no-index", "-q", "--wheel-dir"],
        "python -m build": [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir"],
    }  # fmt: skip
    print(f"{count:,} files, {rounds} rounds each (medians; ratios pair by pair)")
    with tempfile.TemporaryDirectory() as scratch:
        projects = {how: files_project(Path(scratch) / how, how, count) for how in FILES_HOW}
        if before is not None:
            projects["hook before"] = files_project(Path(scratch) / "before", "hook", count)
        out = Path(scratch) / "out"
        for frontend, command in frontends.items():
            cpu: dict[str, list[float]] = {how: [] for how in projects}
            for round_ in range(rounds + 1):  # the first round warms caches, uncounted
                for how, project in projects.items():
                    shutil.rmtree(out, ignore_errors=True)
                    run_env = {**env, "PYTHONPATH": str(before)} if how == "hook before" else env
                    _wall, seconds = _run([*command, str(out), str(project)], run_env)
                    if round_:
                        cpu[how].append(seconds)
            _print_files(frontend, "CPU", cpu)
        times: dict[str, list[float]] = {how: [] for how in projects if how != "hook before"}
        for round_ in range(rounds + 1):
            for how, project in projects.items():
                if how == "hook before":
                    continue
                shutil.rmtree(out, ignore_errors=True)
                start = time.perf_counter()
                list(WheelBuilder(str(project)).build(directory=str(out), versions=["standard"]))
                if round_:
                    times[how].append(time.perf_counter() - start)
        _print_files("in-process", "time", times)
    return 0


def _print_files(frontend: str, label: str, measured: dict[str, list[float]]) -> None:
    for hook in [h for h in measured if h.startswith("hook")]:
        line = f"  {frontend:16} {label:4} {hook:11} {statistics.median(measured[hook]) * 1000:6.0f} ms"
        for how in [h for h in measured if not h.startswith("hook")]:
            pairs = zip(measured[hook], measured[how], strict=True)
            ratio = statistics.median(a / b for a, b in pairs)
            line += f"   {how} {statistics.median(measured[how]) * 1000:6.0f} ms x{ratio:5.2f}"
        print(line)


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

from agenttools_hook.delegate import load_backend


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
