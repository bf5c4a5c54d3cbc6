"""A project's ``sync`` and ``verify`` against their floors, side by side in one run.

A real index on loopback (pypiserver over three sample wheels: ``weather-tools``,
``skills-only``, a ``team-notes`` wheel of one small skill, and a ``big-skills`` wheel whose
one skill holds 16 MB), a project of 3 bundles x 3 clients (claude-code, gemini-cli, opencode)
with ``uvx`` runners, its lock made once; whole processes timed, R rounds, interleaved, medians:

- up to date: ``agenttools sync --locked`` with everything as locked, against
  ``python -m pip --version`` (the budget: cheap enough for a git hook, <= 0.5x);
- nothing installed yet: ``agenttools sync --locked`` on a fresh HOME and state with none of
  the generated files, against the same 9 deploys done one by one (``agenttools deploy CLIENT
  DIST --install --runner uvx --project DIR -i URL``), also on a fresh HOME and state (<= 1.2x);
- verify: ``agenttools verify`` of a project whose skills hold 16 MB, against ``sha256sum -c``
  over the same files (<= 1.5x).

Every process runs with the interpreter of a fresh virtual environment (that of
``benchmarks/startup.py``: pip installed this checkout there, and uv for the ``uvx`` runners).

Run: ``python benchmarks/project.py [R]`` (R = 5 by default).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.startup import REPO, user_environment
from tests.helpers.index import INSTALLER_VARIABLES, IndexServer, isolated_installer_environment
from tests.helpers.wheels import SAMPLES, build_wheel

CLIENTS = ("claude-code", "gemini-cli", "opencode")
BUNDLES = (("weather-tools", None), ("skills-only", None), ("team-notes", None))
GENERATED = (".mcp.json", ".gemini", ".claude", ".agents", ".opencode", "opencode.json")
BIG_FILES, BIG_FILE_SIZE = 64, 256 * 1024  # 16 MB


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        served = work / "index"
        served.mkdir()
        for wheel in _wheels(work):
            (served / wheel.name).symlink_to(wheel)
        python, user = user_environment(work / "user", REPO, "uv")
        server = IndexServer([served], work / "server")
        try:
            results = _measure(work, server.url(), rounds, python, user)
        finally:
            server.stop()
    print(f"rounds: {rounds} (medians, whole processes)")
    for name, ours, theirs, baseline in results:
        print(f"{name:<26} agenttools {ours:6.3f} s   {baseline:<44} {theirs:6.3f} s   "
              f"ratio {ours / theirs:.2f}x")  # fmt: skip


def _measure(
    work: Path, url: str, rounds: int, python: Path, user: Mapping[str, str]
) -> list[tuple[str, float, float, str]]:
    """The figures, with *python* and the environment variables *user*."""
    times: dict[str, list[float]] = {}
    agenttools = [str(python), "-m", "agenttools"]

    def timed(key: str, steps: Sequence[Sequence[str]], env: dict[str, str], cwd: Path) -> None:
        start = time.perf_counter()
        for step in steps:
            done = subprocess.run(list(step), env=env, cwd=cwd, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(step)}: {done.stdout}\n{done.stderr}")
        times.setdefault(key, []).append(time.perf_counter() - start)

    project = _project(work / "project", url, [(d, b, CLIENTS) for d, b in BUNDLES])
    big = _project(work / "big", url, [("big-skills", None, ("claude-code",))])
    env = _fresh(work / "machine", user)
    for root in (project, big):
        _run([*agenttools, "sync"], env, root)  # the lock, the files, this machine's state
    checks = big / "checks.sha256"
    checks.write_text(_checksums(big), encoding="utf-8")
    deploys = [
        [*agenttools, "deploy", client, dist if bundle is None else f"{dist}/{bundle}", "--install",
         "--runner", "uvx", "--project", ".", "-i", url]
        for dist, bundle in BUNDLES for client in CLIENTS
    ]  # fmt: skip
    for i in range(-1, rounds):  # round -1 warms the caches and the byte-code
        timed("up-to-date", [[*agenttools, "sync", "--locked"]], env, project)
        timed("pip-version", [[str(python), "-m", "pip", "--version"]], env, project)
        _clear(project)
        timed(
            "fresh", [[*agenttools, "sync", "--locked"]], _fresh(work / f"{i}-ours", user), project
        )
        _clear(project)
        timed("one-by-one", deploys, _fresh(work / f"{i}-theirs", user), project)
        _clear(project)
        _run([*agenttools, "sync", "--locked"], env, project)  # (back to up to date)
        timed("verify", [[*agenttools, "verify"]], env, big)
        timed("sha256sum", [["sha256sum", "--quiet", "-c", str(checks)]], env, big)
    median = {k: statistics.median(v[1:]) for k, v in times.items()}  # (without the warm-up)
    return [
        ("sync --locked, up to date", median["up-to-date"], median["pip-version"],
         "python -m pip --version"),
        ("sync --locked, fresh", median["fresh"], median["one-by-one"],
         "the 9 deploys --install --runner uvx"),
        ("verify, 16 MB of skills", median["verify"], median["sha256sum"],
         "sha256sum -c over the same files"),
    ]  # fmt: skip


def _project(
    root: Path, url: str, bundles: Sequence[tuple[str, str | None, Sequence[str]]]
) -> Path:
    root.mkdir(parents=True)
    text = f'[agenttools]\nindex-url = "{url}"\n'
    for dist, bundle, clients in bundles:
        text += f'\n[[bundle]]\nrequirement = "{dist}"\nclients = {list(clients)!r}\n'
        if bundle is not None:
            text += f'bundles = ["{bundle}"]\n'
    (root / "agenttools.toml").write_text(text.replace("'", '"'), encoding="utf-8")
    return root


def _clear(root: Path) -> None:
    for name in GENERATED:
        path = root / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def _checksums(root: Path) -> str:
    """``sha256sum`` lines for every file the lock lists (read from the lock)."""
    import tomllib

    lock = tomllib.loads((root / "agenttools.lock").read_text(encoding="utf-8"))
    lines = [f"{f['sha256']}  {f['path']}" for d in lock["deployment"] for f in d.get("file", [])]
    return "\n".join(lines) + "\n"


def _run(argv: Sequence[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(list(argv), env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stdout}\n{done.stderr}")


def _fresh(root: Path, user: Mapping[str, str]) -> dict[str, str]:
    """*user* with a new HOME and state; the installers' own configuration switched off."""
    (root / "home").mkdir(parents=True)
    env = {k: v for k, v in user.items() if k not in INSTALLER_VARIABLES}
    env.update(isolated_installer_environment(root))
    env["AGENTTOOLS_CACHE_DIR"] = str(root.parent / "agenttools-cache")  # (the wheels: warm)
    env.update(HOME=str(root / "home"), AGENTTOOLS_HOME=str(root / "state"))
    return env


def _wheels(work: Path) -> list[Path]:
    out = work / "wheels"
    found = [build_wheel(SAMPLES / name, out / name) for name in ("weather-tools", "skills-only")]
    found.append(_skills_wheel(work, "team-notes", files=4, size=2048))
    found.append(_skills_wheel(work, "big-skills", files=BIG_FILES, size=BIG_FILE_SIZE))
    return found


def _skills_wheel(work: Path, name: str, *, files: int, size: int) -> Path:
    """A distribution with one skill of *files* files of *size* random bytes each."""
    source = work / name
    module = name.replace("-", "_")
    skill = source / "skills" / f"{name}-skill"
    (skill / "data").mkdir(parents=True)
    (source / "src" / module).mkdir(parents=True)
    (source / "src" / module / "__init__.py").write_text("")
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "agenttools"]\nbuild-backend = "hatchling.build"\n'
        f'[project]\nname = "{name}"\nversion = "1.0"\n'
        f'[tool.hatch.build.targets.wheel]\npackages = ["src/{module}"]\n'
        f"[tool.hatch.build.hooks.agenttools]\n[tool.agenttools.skills.{name}-skill]\n"
    )
    (skill / "SKILL.md").write_text(
        f"---\nname: {name}-skill\ndescription: A skill with reference data.\n---\n# Data\n"
    )
    for n in range(files):
        (skill / "data" / f"part-{n:02d}.bin").write_bytes(os.urandom(size))
    return build_wheel(source, work / "wheels" / name)


if __name__ == "__main__":
    main()
