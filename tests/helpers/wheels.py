"""Real wheels of the sample packages (and of agenttools itself), built once per test session.

Builds run hatchling in-process with the agenttools hook (about 0.1 s each), into a cache
directory shared by every pytest-xdist worker of the session and guarded by a file lock, so
each wheel is built once per session whatever the number of workers.

Use the fixtures (import them into your test module; they only need pytest's own
``tmp_path_factory``)::

    from tests.helpers.wheels import agenttools_wheel, sample_wheel  # noqa: F401

    def test_something(sample_wheel):
        wheel = sample_wheel("weather-tools")          # Path to weather_tools-1.2.0-py3-none-any.whl

or the functions with an explicit ``tmp_path_factory``:

- ``build_sample_wheel(name, tmp_path_factory, editable=False) -> Path`` — a sample of
  ``sample_packages/`` (``weather-tools``, ``multi-bundle``, ``skills-only``); cached.
- ``build_sample_sdist(name, tmp_path_factory) -> Path`` — its sdist; cached.
- ``build_agenttools_wheel(tmp_path_factory) -> Path`` — the agenttools wheel of this checkout
  (for ``pip install --find-links``); cached.
- ``build_wheel(project_dir, out_dir, version="standard") -> Path`` — uncached, any project.
- ``build_sdist(project_dir, out_dir) -> Path`` — uncached.
- ``wheelhouse(tmp_path_factory) -> Path`` — a directory holding the agenttools wheel, for
  ``pip install --find-links DIR`` with build isolation.

Editable wheels need the ``editables`` package (hatchling imports it for ``editable``).
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
from filelock import FileLock

from tests.helpers.cache import run_dir

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_packages"


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sample_wheel(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A function ``(name, editable=False) -> Path`` returning the cached wheel of a sample."""

    def build(name: str, editable: bool = False) -> Path:
        return build_sample_wheel(name, tmp_path_factory, editable=editable)

    return build


@pytest.fixture(scope="session")
def sample_sdist(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A function ``(name) -> Path`` returning the cached sdist of a sample."""

    def build(name: str) -> Path:
        return build_sample_sdist(name, tmp_path_factory)

    return build


@pytest.fixture(scope="session")
def agenttools_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agenttools wheel of this checkout."""
    return build_agenttools_wheel(tmp_path_factory)


# -- cached builds ---------------------------------------------------------------------------


def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's wheel cache: shared by all xdist workers of one run, never across runs."""
    return run_dir(tmp_path_factory, "agenttools-wheels")


def build_sample_wheel(
    name: str, tmp_path_factory: pytest.TempPathFactory, *, editable: bool = False
) -> Path:
    """The wheel of ``sample_packages/<name>`` (``editable=True``: its editable wheel)."""
    version = "editable" if editable else "standard"
    return _cached(
        tmp_path_factory,
        f"{name}-{version}",
        lambda out: build_wheel(SAMPLES / name, out, version=version),
    )


def build_sample_sdist(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _cached(tmp_path_factory, f"{name}-sdist", lambda out: build_sdist(SAMPLES / name, out))


def build_agenttools_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _cached(tmp_path_factory, "agenttools", lambda out: build_wheel(REPO, out))


def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding only the agenttools wheel (``pip --find-links``)."""
    return build_agenttools_wheel(tmp_path_factory).parent


def _cached(tmp_path_factory: pytest.TempPathFactory, key: str, make) -> Path:  # type: ignore[no-untyped-def]
    cache = cache_dir(tmp_path_factory)
    final = cache / key
    with FileLock(str(cache / f"{key}.lock"), timeout=600):
        if final.is_dir():
            return _single_artifact(final)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache))
        try:
            make(staging)
            staging.rename(final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return _single_artifact(final)


def _single_artifact(directory: Path) -> Path:
    (artifact,) = [p for p in directory.iterdir() if p.suffix in (".whl", ".gz")]
    return artifact


# -- uncached builds -------------------------------------------------------------------------


def build_wheel(project_dir: Path, out_dir: Path, *, version: str = "standard") -> Path:
    """Build *project_dir*'s wheel in-process with hatchling (and the agenttools hook)."""
    from hatchling.builders.wheel import WheelBuilder

    builder = WheelBuilder(str(project_dir), plugin_manager=plugin_manager())
    out_dir.mkdir(parents=True, exist_ok=True)
    (artifact,) = builder.build(directory=str(out_dir), versions=[version])
    return Path(artifact)


def build_sdist(project_dir: Path, out_dir: Path) -> Path:
    """Build *project_dir*'s sdist in-process with hatchling (and the agenttools hook)."""
    from hatchling.builders.sdist import SdistBuilder

    builder = SdistBuilder(str(project_dir), plugin_manager=plugin_manager())
    out_dir.mkdir(parents=True, exist_ok=True)
    (artifact,) = builder.build(directory=str(out_dir), versions=["standard"])
    return Path(artifact)


def plugin_manager():  # type: ignore[no-untyped-def]
    """A hatchling plugin manager that knows the agenttools hook, whether or not agenttools
    is installed with its entry point."""
    from importlib.metadata import entry_points

    from hatchling.plugin.manager import PluginManager

    manager = PluginManager()
    if not any(ep.name == "agenttools" for ep in entry_points(group="hatch")):
        import agenttools_hook.hooks

        manager.manager.register(agenttools_hook.hooks)
    return manager


def manifest_bytes(wheel: Path) -> bytes:
    """The ``manifest.json`` *wheel* carries, as its bytes."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [
            n for n in archive.namelist() if n.endswith("/extra_metadata/agenttools/manifest.json")
        ]
        return archive.read(name)


def wheel_skill_files(wheel: Path, skill: str) -> dict[str, bytes]:
    prefix_marker = f"extra_metadata/agenttools/skills/{skill}/"
    out = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if prefix_marker in name and not name.endswith("/"):
                out[name.split(prefix_marker, 1)[1]] = zf.read(name)
    return out


def tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }
