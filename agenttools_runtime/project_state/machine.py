"""What this machine knows of a project, outside it: ``<state>/projects/<key>.json`` — the
project's directory, the SHA-256 of the lock its last sync applied (and verified), the
deployments its syncs made (by identity: ``client scope dist/bundle`` -> deployment UUID), and
the SHA-256 of each project config file that sync left (its entries were verified then). ``sync`` removes
only deployments listed here, so a deployment the user made by hand in the same project is
never taken away by a sync.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime import fs, paths, regular_files

SCHEMA = 1


@dataclass(frozen=True, slots=True)
class ProjectRecord:
    project: str
    lock_sha256: str | None = None
    deployments: Mapping[str, str] = field(default_factory=dict)
    config_files: Mapping[str, str | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "project": self.project,
            "lock_sha256": self.lock_sha256,
            "deployments": dict(sorted(self.deployments.items())),
            "config_files": dict(sorted(self.config_files.items())),
        }


def record_path(root: Path) -> Path:
    key = hashlib.sha256(paths.canonical_path_key(root).encode("utf-8")).hexdigest()[:16]
    return paths.state_dir() / "projects" / f"{key}.json"


def read(root: Path) -> ProjectRecord:
    """The record of the project at *root* (an empty one when there is none, or it cannot be
    read: a sync then removes nothing it cannot prove its own)."""
    try:
        data = json.loads(regular_files.read_bytes(record_path(root)))
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError("another shape")
        deployments = data.get("deployments") or {}
        configs = data.get("config_files") or {}
        if not isinstance(deployments, dict) or not isinstance(configs, dict):
            raise ValueError("another shape")
        lock = data.get("lock_sha256")
        return ProjectRecord(
            str(root),
            lock if isinstance(lock, str) else None,
            {str(k): str(v) for k, v in deployments.items()},
            {str(k): None if v is None else str(v) for k, v in configs.items()},
        )
    except (OSError, ValueError):
        return ProjectRecord(str(root))


def write(record: ProjectRecord, root: Path) -> None:
    path = record_path(root)
    fs.mkdir(path.parent)
    text = json.dumps(record.to_json(), indent=2, sort_keys=True) + "\n"
    fs.write_bytes_atomic(path, text.encode("utf-8"))
