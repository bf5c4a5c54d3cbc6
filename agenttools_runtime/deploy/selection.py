"""Choosing deployments: by id (UUIDs or unique prefixes), by client, by bundle, or all —
what ``remove``, ``verify`` and ``sync`` act on.

A bundle is named as ``deployed`` shows it (``weather-tools/weather-tools``), by its
distribution (``weather-tools``: every bundle of it), or by its own name (``weather``), PEP
503-normalized where it is a distribution name; a single server deployed on its own matches
by its qualified and its short name too.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy.deployment import find_deployment
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.names import canonical_dist_name


def select(
    pool: Sequence[DeploymentRecord],
    *,
    ids: Sequence[str] = (),
    client: str | None = None,
    bundle: str | None = None,
) -> list[DeploymentRecord]:
    """The records of *pool* matching every criterion given (all of them when none is).
    *ids* are UUIDs or unique prefixes (``DeploymentNotFound`` / ``DeploymentIdAmbiguous``
    for one that matches none or several); *client* an id, name or alias (``UnknownClient``)."""
    chosen = list(pool)
    if ids:
        wanted = {find_deployment(i, pool).uuid for i in ids}
        chosen = [r for r in chosen if r.uuid in wanted]
    if client is not None:
        client_id = get_client(client).id
        chosen = [r for r in chosen if r.client == client_id]
    if bundle is not None:
        chosen = [r for r in chosen if bundle_matches(r, bundle)]
    return chosen


def bundle_matches(record: DeploymentRecord, name: str) -> bool:
    """Whether *name* names *record*'s bundle (see the module docstring)."""
    full = record.toolset_name
    dist, _, short = full.rpartition("/")
    wanted = name.strip()
    if wanted in (full, short):
        return True
    distribution = str(record.agent_tools.get("distribution") or dist)
    wanted_dist, sep, wanted_short = wanted.rpartition("/")
    if not distribution or (sep and wanted_short != short):
        return False
    return canonical_dist_name(wanted_dist if sep else wanted) == canonical_dist_name(distribution)
