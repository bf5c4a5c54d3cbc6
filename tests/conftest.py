"""Test isolation: every test gets its own HOME, USERPROFILE and AGENTTOOLS_HOME under tmp_path,
so no test can touch the real home directory or the real deployment state.

And the run order for parallel runs (``-n auto``): slow tests first, so the long ones spread
over the workers from the start instead of finishing last on one of them; the real-client
tests last, their npm installs running in the background meanwhile (tests/clients/npm.py).

And hypothesis without its two clocks: no per-example deadline (200 ms by default) and no
"too slow" health check, which a loaded machine trips with nothing wrong in the code; tests
that set their own ``@settings`` keep the rest of this profile."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# A fixed example sequence (CI never flakes on a rare example); AGENTTOOLS_FUZZ=deep draws at
# random, as the fuzz tests' deep profile does (tests/helpers/fuzz.py).
settings.register_profile(
    "agenttools",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("AGENTTOOLS_FUZZ", "ci") != "deep",
)
settings.load_profile("agenttools")

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_packages"


# The tools' caches, kept in the test cache for every later run (tests/helpers/cache.py).
TOOL_CACHES = {
    "PIP_CACHE_DIR": "pip",
    "UV_CACHE_DIR": "uv",
    "npm_config_cache": "npm-cache",
    "PRE_COMMIT_HOME": "pre-commit",
}
# Where a tool keeps what it writes for one user: the session's home has them all.
USER_DIRS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


def pytest_configure(config: pytest.Config) -> None:
    """Before any fixture (session-wide ones too) starts a process: HOME, the state directory
    and the user folders of every tool inside a temporary directory of this run, and the
    tools' download caches inside the test cache. Tests then get their own HOME on top
    (``isolated_home``); this catches what runs outside a test (session fixtures, npm
    installs in background threads), so nothing reaches the developer's home."""
    from tests.helpers.cache import cache_path

    session_home = Path(tempfile.mkdtemp(prefix="agenttools-tests-home-"))
    config.stash[SESSION_HOME] = session_home
    os.environ["HOME"] = os.environ["USERPROFILE"] = str(session_home)
    os.environ["AGENTTOOLS_HOME"] = str(session_home / "agenttools-state")
    for variable in USER_DIRS:
        os.environ.pop(variable, None)
    for variable, name in TOOL_CACHES.items():
        os.environ.setdefault(variable, str(cache_path(name)))
    # the tools of this interpreter's environment (uv, uvx) on the PATH the deployed entries
    # are checked against, whether or not the environment was activated
    scripts = os.path.dirname(sys.executable)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([scripts, os.environ.get("PATH", "")])
    # Ctrl-C as a terminal gives it, here and in every process a test starts: a suite run in
    # the background of a shell without job control starts with SIGINT ignored, which its
    # children would inherit (the tests that interrupt a command would see it ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config: pytest.Config) -> None:
    session_home = config.stash.get(SESSION_HOME, None)
    if session_home is not None:
        shutil.rmtree(session_home, ignore_errors=True)


SESSION_HOME = pytest.StashKey[Path]()


def run_order(item: pytest.Item) -> int:
    if item.get_closest_marker("clients"):
        return 2
    return 0 if item.get_closest_marker("slow") else 1


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=run_order)  # stable: file order within each group
    if config.option.collectonly:
        return
    if any(item.get_closest_marker("clients") for item in items):
        from tests.clients.npm import start_installs

        start_installs()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("AGENTTOOLS_HOME", str(tmp_path / "agenttools-state"))
    for var in (
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "APPDATA",
        "LOCALAPPDATA",
        "CODEX_HOME",
        "CLAUDE_CONFIG_DIR",
        "VIRTUAL_ENV",  # discovery would look in the developer's active venv
    ):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture
def home(isolated_home: Path) -> Path:
    return isolated_home
