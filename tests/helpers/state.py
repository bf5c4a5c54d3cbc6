"""The deployment state read and changed around an operation, as a test sets it up or looks at
it: every registry entry, and an entry or a record written or deleted by hand (the index is
then rebuilt on next use, as after any change made around it)."""

from __future__ import annotations

from collections.abc import Iterator

from agenttools_runtime import fs, paths
from agenttools_runtime.deploy import records, registry
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.paths import StatePaths


def iter_entries(state: StatePaths | None = None) -> Iterator[RegistryEntry]:
    """Every readable entry, by reading every file (O(n))."""
    for key in registry.entry_keys(state):
        entry = registry.load_entry(key, state)
        if entry is not None:
            yield entry


def save_entry(entry: RegistryEntry, state: StatePaths | None = None) -> None:
    """Write an entry outside an operation (durably)."""
    state = state or paths.state_paths()
    registry.write_entry(entry, state, durable=True)
    fs.unlink(state.index, missing_ok=True)


def delete_entry(key: str, state: StatePaths | None = None) -> None:
    """Delete an entry outside an operation."""
    state = state or paths.state_paths()
    registry.remove_entry(key, state)
    fs.unlink(state.index, missing_ok=True)


def rewrite_record(record: DeploymentRecord) -> None:
    """Replace an existing record's file outside an operation."""
    state = paths.state_paths()
    records.write_record_file(record, state.deployments)
    fs.unlink(state.index, missing_ok=True)
