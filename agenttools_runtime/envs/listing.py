"""The rows of ``agenttools envs``: each managed environment with its distribution, version,
request, index, installer, interpreter, size and the deployments that use it."""

from __future__ import annotations

from typing import Any

from agenttools_runtime.envs import layout
from agenttools_runtime.envs.refs import references


def rows() -> list[dict[str, Any]]:
    """One row per environment (see the module docstring), by name."""
    refs = references()
    found = []
    for env in layout.environments():
        r = env.receipt
        row: dict[str, Any] = {
            "name": env.name,
            "path": str(env.path),
            "distribution": r.distribution if r else None,
            "version": r.version if r else None,
            "requirement": r.requirement if r else None,
            "kind": r.kind if r else None,
            "layout": r.layout if r else None,
            "index": r.index.to_json() if r else None,
            "installer": f"{r.installer} {r.installer_version}" if r else None,
            "python": f"{r.python_version} ({r.interpreter})" if r else None,
            "distributions": len(r.resolved) if r else 0,
            "deployments": refs.of(env.name),
            "problem": env.problem,
            "size": layout.directory_size(env.path),
        }
        found.append(row)
    return found


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
