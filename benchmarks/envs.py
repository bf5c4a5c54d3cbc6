"""Managed environments against the peers' way of doing the same, side by side in one run.

A real index on loopback (pypiserver over the ``weather-tools`` wheels 1.2.0 and 1.3.0 and
their dependencies, the test helpers' wheels), warm uv and pip caches (in the test cache), a
fresh HOME and state directory for every round, whole processes timed, R rounds each,
interleaved, medians:

- install: ``agenttools deploy claude-code weather-tools --install -i URL`` against
  ``uv tool install weather-tools --default-index URL`` followed by ``agenttools deploy
  claude-code weather-tools --python <the tool's interpreter>``;
- install with pip: the same with ``--installer pip`` against ``pipx install weather-tools
  --index-url URL`` followed by the same deploy (pipx is installed from PyPI into the test
  cache once, when it is not there);
- upgrade: ``agenttools sync --upgrade`` 1.2.0 -> 1.3.0 against ``uv tool upgrade
  weather-tools`` followed by ``agenttools sync``;
- show: ``agenttools show weather-tools --index -i URL`` against ``pip download --no-deps
  weather-tools -i URL`` followed by reading the manifest out of the wheel.

Run: ``python benchmarks/envs.py [R]`` (R = 3 by default). Byte-code writing is on for every
process (``PYTHONDONTWRITEBYTECODE`` removed), as a user's interpreter has it.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers.cache import cache_path
from tests.helpers.index import (
    INSTALLER_VARIABLES,
    IndexServer,
    dependency_wheels,
    isolated_installer_environment,
    wheels_of,
)
from tests.helpers.wheels import REPO, SAMPLES, build_wheel

PYTHON = sys.executable
BIN = Path(PYTHON).parent


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        wheels = _wheels(work)
        served = work / "index"
        served.mkdir()
        pipx, pip_wheels = _pipx()
        for wheel in [*wheels_of(dependency_wheels()), *wheels_of(pip_wheels), wheels["agenttools"],
                      wheels["1.2.0"]]:  # fmt: skip
            (served / wheel.name).symlink_to(wheel)
        server = IndexServer([served], work / "server")
        try:
            results = _measure(work, server, served, wheels["1.3.0"], pipx, rounds)
        finally:
            server.stop()
    print(f"rounds: {rounds} (medians, whole processes)")
    for name, ours, theirs, baseline in results:
        print(f"{name:<8} agenttools {ours:6.2f} s   {baseline:<44} {theirs:6.2f} s   "
              f"ratio {ours / theirs:.2f}x")  # fmt: skip


def _measure(
    work: Path, server: IndexServer, served: Path, newer: Path, pipx: Path, rounds: int
) -> list[tuple[str, float, float, str]]:
    times: dict[str, list[float]] = {}
    url = server.url()
    published = served / newer.name

    def timed(key: str, steps: Sequence[Sequence[str]], env: dict[str, str], cwd: Path) -> None:
        start = time.perf_counter()
        for step in steps:
            done = subprocess.run(list(step), env=env, cwd=cwd, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(step)}: {done.stdout}\n{done.stderr}")
        times.setdefault(key, []).append(time.perf_counter() - start)

    agenttools = [PYTHON, "-m", "agenttools"]
    uv = str(BIN / "uv")
    for i in range(-1, rounds):  # round -1 warms the caches (their keys hold this index's URL)
        published.unlink(missing_ok=True)  # 1.2.0 is the newest
        ours, peer = _fresh(work / f"{i}-ours"), _fresh(work / f"{i}-peer")
        tool_python = Path(peer["UV_TOOL_DIR"]) / "weather-tools" / "bin" / "python"
        deploy = [*agenttools, "deploy", "claude-code", "weather-tools"]
        timed("install", [[*deploy, "-i", url, "--install"]], ours, work)
        timed("install-peer", [[uv, "tool", "install", "weather-tools", "--default-index", url],
                               [*deploy, "--python", str(tool_python)]], peer, work)  # fmt: skip
        published.symlink_to(newer)  # 1.3.0 is published
        timed("upgrade", [[*agenttools, "sync", "--upgrade"]], ours, work)
        peer["UV_DEFAULT_INDEX"] = url  # (uv tool upgrade reads the index from its receipt)
        timed(
            "upgrade-peer",
            [[uv, "tool", "upgrade", "weather-tools"], [*agenttools, "sync"]],
            peer,
            work,
        )
        published.unlink()
        ours, peer = _fresh(work / f"{i}-ours-pip"), _fresh(work / f"{i}-peer-pip")
        peer["PIPX_DEFAULT_BACKEND"] = "pip"  # (pipx uses uv when it finds it)
        venv_python = Path(peer["PIPX_HOME"]) / "venvs" / "weather-tools" / "bin" / "python"
        timed("pip", [[*deploy, "-i", url, "--installer", "pip", "--install"]], ours, work)
        timed("pip-peer", [[str(pipx), "install", "weather-tools", "--index-url", url],
                           [*deploy, "--python", str(venv_python)]], peer, work)  # fmt: skip
        published.symlink_to(newer)
        download = work / f"{i}-download"
        timed("show", [[*agenttools, "show", "weather-tools", "--index", "-i", url]], ours, work)
        timed("show-peer", [[PYTHON, "-m", "pip", "download", "--no-deps", "weather-tools", "-i", url,
                             "-d", str(download)], [PYTHON, "-c", READ_MANIFEST, str(download)]],
              peer, work)  # fmt: skip
    median = {k: statistics.median(v[1:]) for k, v in times.items()}  # (without the warm-up)
    return [
        (
            "install",
            median["install"],
            median["install-peer"],
            "uv tool install + agenttools deploy",
        ),
        ("pip", median["pip"], median["pip-peer"], "pipx install + agenttools deploy"),
        ("upgrade", median["upgrade"], median["upgrade-peer"], "uv tool upgrade + agenttools sync"),
        ("show", median["show"], median["show-peer"], "pip download --no-deps + read the manifest"),
    ]


READ_MANIFEST = """
import json, sys, zipfile, pathlib
(wheel,) = pathlib.Path(sys.argv[1]).glob("*.whl")
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("extra_metadata/agenttools/manifest.json"))
    print(sorted(json.loads(z.read(name))["skills"]))
"""


def _fresh(root: Path) -> dict[str, str]:
    """A new HOME, state, tool directories; the installers' own configuration switched off."""
    root.mkdir(parents=True)
    (root / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in INSTALLER_VARIABLES}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(isolated_installer_environment(root))
    env.update(
        HOME=str(root / "home"),
        AGENTTOOLS_HOME=str(root / "state"),
        UV_TOOL_DIR=str(root / "uv-tools"),
        UV_TOOL_BIN_DIR=str(root / "bin"),
        PIPX_HOME=str(root / "pipx"),
        PIPX_BIN_DIR=str(root / "bin"),
        PIPX_MAN_DIR=str(root / "man"),
        PIPX_SHARED_LIBS=str(cache_path("pipx-shared")),
        PATH=f"{root / 'bin'}{os.pathsep}{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def _wheels(work: Path) -> dict[str, Path]:
    out = work / "wheels"
    found = {
        "1.2.0": build_wheel(SAMPLES / "weather-tools", out / "old"),
        "agenttools": build_wheel(REPO, out / "self"),
    }
    source = work / "weather-1.3.0"
    shutil.copytree(SAMPLES / "weather-tools", source)
    pyproject = source / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.2.0"', 'version = "1.3.0"'))
    skill = source / "skills" / "weather-report" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nChanged in 1.3.0.\n")
    found["1.3.0"] = build_wheel(source, out / "new")
    return found


def _pipx() -> tuple[Path, Path]:
    """pipx, installed from PyPI into the test cache when it is not there, and a directory
    with the pip wheel its shared libraries install from the index it is given."""
    venv = cache_path("pipx-venv")
    pipx = venv / "bin" / "pipx"
    wheels = cache_path("pipx-wheels")
    env = {k: v for k, v in os.environ.items() if k not in INSTALLER_VARIABLES}
    env["PIP_CONFIG_FILE"] = os.devnull
    if not pipx.is_file():
        subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True)
        install = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pipx"]
        subprocess.run(install, check=True, env=env)
    if not list(wheels.glob("pip-*.whl")):
        download = [PYTHON, "-m", "pip", "download", "-q", "--no-deps", "pip", "-d", str(wheels)]
        subprocess.run(download, check=True, env=env)
    return pipx, wheels


if __name__ == "__main__":
    main()
