"""The deployment lock: across processes (timeout → DeploymentLockTimeout), re-entrant in one."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, lock
from agenttools_runtime.errors import DeploymentLockTimeout
from agenttools_runtime.lock import lock_held
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, snapshot

HOLDER = """
import sys, time
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold_lock(seconds: float, lock_file: Path | None = None) -> subprocess.Popen[str]:
    lock_file = lock_file or paths.state_paths().lock
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_file), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_nested_use_in_one_process_does_not_deadlock() -> None:
    assert not lock_held()
    with lock.deployment_lock(timeout=1):
        assert lock_held()
        with lock.deployment_lock(timeout=1):
            assert lock_held()
        assert lock_held()
    assert not lock_held()
    # (nothing deployed: the state folder it made for the lock goes as the lock is let go)
    assert not paths.state_paths().lock.parent.exists()


def test_another_process_holding_the_lock_times_out() -> None:
    proc = hold_lock(30)
    try:
        start = time.monotonic()
        with (
            pytest.raises(DeploymentLockTimeout, match="another process"),
            lock.deployment_lock(timeout=0.3),
        ):
            pass
        assert time.monotonic() - start < 10
    finally:
        proc.kill()
        proc.wait()
    with lock.deployment_lock(timeout=5):  # free again
        pass


def test_the_environments_lock_is_another_processes_lock_too(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environments lock (a lock of the same kind as the state lock, on a file of its
    own) excludes another process holding it, is tried without waiting, and is re-entrant."""
    from agenttools_runtime.envs import envlock
    from agenttools_runtime.errors import EnvironmentsLockTimeout

    monkeypatch.setattr(envlock, "LOCK_TIMEOUT", 0.3)
    proc = hold_lock(30, envlock.lock_file())
    try:
        with envlock.try_environments_lock() as taken:
            assert not taken and not envlock.environments_lock_held()
        with pytest.raises(EnvironmentsLockTimeout), envlock.environments_lock():
            pass
        with lock.deployment_lock(timeout=1):  # (another file)
            pass
    finally:
        proc.kill()
        proc.wait()
    with envlock.environments_lock():
        assert envlock.environments_lock_held()
        with envlock.try_environments_lock() as taken:
            assert not taken  # (the enclosing block's)
        with envlock.environments_lock():
            pass
    assert not envlock.environments_lock_held()


def test_deploy_waits_for_the_lock_and_changes_nothing_on_timeout(
    home: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime import lock as state_lock

    monkeypatch.setattr(state_lock, "LOCK_TIMEOUT", 0.3)
    proc = hold_lock(30)
    try:
        before = snapshot(home)
        with pytest.raises(DeploymentLockTimeout) as caught:
            deploy("cursor", bundle("b", [inline("waits")]))
        assert snapshot(home) == before
        assert caught.value.data["timeout"] == 0.3  # the timeout in force, for --json
    finally:
        proc.kill()
        proc.wait()
    deploy("cursor", bundle("b", [inline("waits")]))
    assert (home / ".cursor" / "skills" / "waits").is_dir()


def test_a_short_holder_is_waited_for(home: Path) -> None:
    proc = hold_lock(0.5)
    try:
        deploy("cursor", bundle("b", [inline("patient")]))
    finally:
        proc.wait()
    assert (home / ".cursor" / "skills" / "patient").is_dir()


def test_deploy_inside_a_held_lock_does_not_deadlock(home: Path) -> None:
    with lock.deployment_lock(timeout=1):
        dep = deploy("cursor", bundle("nested", [inline("nested-skill")]))
        dep.remove()
    assert not (home / ".cursor" / "skills" / "nested-skill").exists()


RACER = """
import sys, warnings
warnings.simplefilter("ignore")
from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.deploy import deploy
name, client = sys.argv[1], sys.argv[2]
skills = [{"name": "raced", "description": "Shared.", "body": "Same.\\n"},
          {"name": f"own-{name}", "description": "Own.", "body": "Own.\\n"}]
deploy(client, AgentTools(name=name, skills=skills))
"""


@pytest.mark.slow
def test_concurrent_deploys_from_several_processes_keep_every_reference(home: Path) -> None:
    """Processes that deploy bundles sharing one skill directory at the same time: the lock
    serializes them, so the registry entry ends with every deployment's reference."""
    import os

    from agenttools_runtime.deploy import deployed

    clients = ["codex", "goose", "zed", "codex"]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, f"racer{i}", client],
            env=dict(os.environ),
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, client in enumerate(clients)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    uuids = sorted(d.uuid for d in deployed())
    assert len(uuids) == len(clients)
    (entry,) = [e for e in iter_entries() if e.name == "raced"]
    assert sorted(entry.references) == uuids
    root = home / ".agents" / "skills"
    assert sorted(os.listdir(root)) == sorted(
        ["raced"] + [f"own-racer{i}" for i in range(len(clients))]
    )
