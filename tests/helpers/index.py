"""A real package index on loopback for tests: ``pypiserver`` serving wheel directories on
127.0.0.1 at a free port, started and waited for with a deadline.

- :func:`dependency_wheels` — the wheels of what the samples need at run and build time (the
  MCP SDK and its dependencies, hatchling, agenttools' own dependencies), downloaded once
  into the test cache (``$AGENTTOOLS_TEST_CACHE/envs-wheels``) with pip's own configuration
  switched off; every later run reads them from there.
- :func:`sample_release` — a ``weather-tools`` wheel of the version asked (1.2.0 is the sample
  as it is; 1.3.0 changes the ``weather-report`` skill), and :func:`plain_wheel` — a
  distribution that ships no agent tools; built once per run.
- :class:`IndexServer` — one pypiserver process over some directories, optionally behind
  basic auth (``user``/``password``); :meth:`IndexServer.url` is the simple index URL.
- :func:`isolated_installer_environment` — the variables every test process gets so that the
  machine's pip/uv configuration (config files, ``PIP_FIND_LINKS`` …) never leaks in, with
  pip's and uv's caches in the test cache.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from filelock import FileLock

from tests.helpers.cache import cache_path, run_dir
from tests.helpers.wheels import REPO, SAMPLES, _cached, build_agenttools_wheel, build_wheel

START_DEADLINE = 60.0

# the variables through which a machine configures pip and uv: none reaches a test's installer
INSTALLER_VARIABLES = (
    "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_CONSTRAINT",
    "PIP_REQUIRE_VIRTUALENV", "PIP_TARGET", "PIP_PREFIX", "PIP_USER", "PIP_CERT",
    "UV_DEFAULT_INDEX", "UV_INDEX_URL", "UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS",
    "UV_NO_INDEX", "UV_CONSTRAINT", "UV_PYTHON", "UV_SYSTEM_PYTHON", "UV_TOOL_DIR",
    "UV_TOOL_BIN_DIR", "VIRTUAL_ENV", "CONDA_PREFIX", "PIPX_HOME", "PIPX_BIN_DIR",
)  # fmt: skip


def isolated_installer_environment(scratch: Path) -> dict[str, str]:
    """``{variable: value}`` to set (and :data:`INSTALLER_VARIABLES` to unset): no pip or uv
    configuration file, their caches in the test cache, time-outs a loaded machine meets,
    agenttools' own cache under *scratch*."""
    return {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_DEFAULT_TIMEOUT": "60",
        "PIP_CACHE_DIR": str(cache_path("pip")),
        "UV_NO_CONFIG": "1",
        "UV_CACHE_DIR": str(cache_path("uv")),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_HTTP_TIMEOUT": "60",
        "AGENTTOOLS_CACHE_DIR": str(scratch / "agenttools-cache"),
    }


def apply_isolation(monkeypatch: pytest.MonkeyPatch, scratch: Path) -> None:
    for name in INSTALLER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in isolated_installer_environment(scratch).items():
        monkeypatch.setenv(name, value)


# -- wheels --------------------------------------------------------------------------------


def _agenttools_dependencies() -> list[str]:
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [d for d in data["project"]["dependencies"] if "python_version" not in d]


def dependency_wheels() -> Path:
    """The directory of downloaded dependency wheels (see the module docstring)."""
    wanted = sorted(["mcp>=2.3,<3", "hatchling>=1.24", *_agenttools_dependencies()])
    directory = cache_path("envs-wheels")
    directory.parent.mkdir(parents=True, exist_ok=True)
    marker = directory / ".complete"
    with FileLock(str(directory) + ".lock", timeout=900):
        if marker.is_file() and marker.read_text(encoding="utf-8").splitlines() == wanted:
            return directory
        shutil.rmtree(directory, ignore_errors=True)
        staging = directory.with_name(directory.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        env = {k: v for k, v in os.environ.items() if k not in INSTALLER_VARIABLES}
        env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
        command = [sys.executable, "-m", "pip", "download", "--only-binary", ":all:",
                   "--dest", str(staging), *wanted]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
        (staging / ".complete").write_text("\n".join(wanted) + "\n", encoding="utf-8")
        staging.rename(directory)
    return directory


def sample_release(factory: pytest.TempPathFactory, version: str) -> Path:
    """The ``weather-tools`` wheel of *version* (1.2.0: the sample as it is; any other: its
    version changed and a line added to the ``weather-report`` skill)."""

    def make(out: Path) -> None:
        source = out.parent / f".src-weather-{version}-{os.getpid()}"
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(SAMPLES / "weather-tools", source)
        try:
            if version != "1.2.0":
                pyproject = source / "pyproject.toml"
                text = pyproject.read_text(encoding="utf-8")
                pyproject.write_text(text.replace('version = "1.2.0"', f'version = "{version}"'))
                skill = source / "skills" / "weather-report" / "SKILL.md"
                skill.write_text(skill.read_text(encoding="utf-8") + f"\nChanged in {version}.\n")
            build_wheel(source, out)
        finally:
            shutil.rmtree(source, ignore_errors=True)

    return _cached(factory, f"weather-tools-release-{version}", make)


def plain_wheel(factory: pytest.TempPathFactory) -> Path:
    """``plain-dist`` 1.0: a distribution that ships no agent tools."""

    def make(out: Path) -> None:
        source = out.parent / f".src-plain-{os.getpid()}"
        shutil.rmtree(source, ignore_errors=True)
        (source / "plain_dist").mkdir(parents=True)
        (source / "plain_dist" / "__init__.py").write_text("")
        (source / "pyproject.toml").write_text(
            '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
            '[project]\nname = "plain-dist"\nversion = "1.0"\n'
        )
        try:
            build_wheel(source, out)
        finally:
            shutil.rmtree(source, ignore_errors=True)

    return _cached(factory, "plain-dist", make)


def package_directory(factory: pytest.TempPathFactory, name: str, wheels: Sequence[Path]) -> Path:
    """A directory of links to *wheels* (a pypiserver package directory, or ``--find-links``)."""
    directory = run_dir(factory, f"index-{name}")
    for wheel in wheels:
        link = directory / wheel.name
        if not link.exists():
            try:
                link.symlink_to(wheel)
            except FileExistsError:
                pass
    return directory


def wheels_of(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix == ".whl")


def base_wheels(factory: pytest.TempPathFactory) -> list[Path]:
    """What every test index serves: the dependencies and agenttools itself."""
    return [*wheels_of(dependency_wheels()), build_agenttools_wheel(factory)]


# -- the server ----------------------------------------------------------------------------


class IndexServer:
    """A pypiserver over *directories* on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        directories: Sequence[Path],
        scratch: Path,
        *,
        user: str | None = None,
        password: str | None = None,
    ) -> None:
        self.directories = list(directories)
        self.user, self.password = user, password
        scratch.mkdir(parents=True, exist_ok=True)
        auth = ["-a", ".", "-P", "."]
        if user is not None and password is not None:
            from passlib.apache import HtpasswdFile

            htpasswd = scratch / "htpasswd"
            passwords = HtpasswdFile(str(htpasswd), new=True)
            passwords.set_password(user, password)
            passwords.save()
            auth = ["-a", "download,list,update", "-P", str(htpasswd)]
        self.port = _free_port()
        self.log = scratch / f"pypiserver-{self.port}.log"
        command = [sys.executable, "-m", "pypiserver", "run", "-p", str(self.port),
                   "-i", "127.0.0.1", "--disable-fallback", "--backend", "cached-dir",
                   "--hash-algo", "sha256", "--health-endpoint", "/health", *auth,
                   "--cache-control", "31536000",  # (files never change, as on PyPI)
                   *(str(d) for d in self.directories)]  # fmt: skip
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        self._wait()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, *, credentials: bool = True) -> str:
        """The simple index URL (with the credentials in it, when it has any and asked)."""
        if credentials and self.user is not None:
            return f"http://{self.user}:{self.password}@127.0.0.1:{self.port}/simple/"
        return f"{self.base}/simple/"

    def _wait(self) -> None:
        deadline = time.monotonic() + START_DEADLINE
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"pypiserver exited: {self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"pypiserver did not answer within {START_DEADLINE} s")
            time.sleep(0.05)  # (polling the condition, with the deadline above)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(directories: Sequence[Path], scratch: Path, **auth: str) -> Iterator[IndexServer]:
    server = IndexServer(directories, scratch, **auth)
    try:
        yield server
    finally:
        server.stop()


class SilentServer:
    """A TCP port that accepts connections and never answers (an index that times out)."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = int(self.socket.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/simple/"

    def close(self) -> None:
        self.socket.close()
