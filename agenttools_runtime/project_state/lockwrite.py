"""Writing ``agenttools.lock`` (the format: :mod:`agenttools_runtime.project_state.lockfile`):
sorted, so that the same lock is always the same bytes, and written only when they change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit

from agenttools_runtime import fs, regular_files
from agenttools_runtime.project_state.lockfile import LOCK_VERSION, Lock

HEADER = (
    "This file is written by 'agenttools lock' from agenttools.toml: commit it, do not edit it."
)


def dumps(lock: Lock) -> str:
    """The lock's text: sorted, the same lock always the same bytes."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(HEADER))
    doc.add("version", LOCK_VERSION)
    doc.add("input", lock.input)
    distributions = sorted(lock.distributions, key=lambda d: d.name)
    deployments = sorted(lock.deployments, key=lambda d: (d.bundle, d.client, d.scope))
    if distributions:
        doc.add(tomlkit.nl())
        doc.add("distribution", _array([d.to_data() for d in distributions]))
    if deployments:
        doc.add(tomlkit.nl())
        doc.add("deployment", _array([d.to_data() for d in deployments]))
    return tomlkit.dumps(doc)


def write(path: Path, lock: Lock) -> bool:
    """Write the lock atomically unless *path* holds these bytes already; whether it wrote."""
    data = dumps(lock).encode("utf-8")
    if regular_files.read_bytes_if_present(path) == data:
        return False
    fs.write_bytes_atomic(path, data)
    return True


def _array(items: Sequence[Mapping[str, Any]]) -> Any:
    array = tomlkit.aot()
    for item in items:
        table = tomlkit.table()
        for key, value in item.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                table.add(key, _array(value))
            else:
                table.add(key, value)
        array.append(table)
    return array
