"""What a mistyped bundle, distribution or server name was probably meant to be: every name
the installed distributions offer (also for shell completion), and the "did you mean" of an
error for a name that was not found."""

from __future__ import annotations

from agenttools_runtime import errors
from agenttools_runtime.bundles import BUILTIN_BUNDLES, distribution_bundles
from agenttools_runtime.discovery import SearchPath, find_distributions
from agenttools_runtime.names import canonical_dist_name
from agenttools_runtime.suggest import did_you_mean

# the tags of the errors of a bundle or server name that was not found
NAME_ERRORS = frozenset(
    error.tag
    for error in (
        errors.AgentToolsNotFound,
        errors.DistributionNotInstalled,
        errors.DistributionAgentToolsNotFound,
        errors.DistributionServerNotFound,
        errors.MCPServerNotFound,
    )
)
# ... of those, the ones whose name is an item of a distribution
_ITEM_ERRORS = (errors.DistributionServerNotFound.tag, errors.DistributionAgentToolsNotFound.tag)


def server_names(search: SearchPath | None = None) -> list[str]:
    """Every server name ``mcp install`` accepts: ``dist/server`` and the bare name."""
    names: list[str] = []
    for dist in find_distributions(search):
        if dist.problem is None:
            for server in dist.server_names:
                names.extend((f"{dist.name}/{server}", server))
    return list(dict.fromkeys(names))


def installed_names(search: SearchPath | None = None) -> list[str]:
    """Every name ``deploy`` / ``show`` accept for the installed distributions: bundles
    (``dist/bundle``), distributions, servers (``dist/server`` and bare), and the built-in
    bundle."""
    names = list(BUILTIN_BUNDLES)
    for dist in find_distributions(search):
        if dist.problem is not None:
            continue
        names.append(dist.name)
        names.extend(b.qualified_name for b in distribution_bundles(dist, search))
        for server in dist.server_names:
            names.extend((f"{dist.name}/{server}", server))
    return list(dict.fromkeys(names))


def hint_for(error: errors.AgentToolsError, search: SearchPath | None = None) -> str:
    """The "did you mean" for a bundle or server *error* (``""`` for any other error, or
    when nothing comes close)."""
    if error.tag not in NAME_ERRORS:
        return ""
    name = error.data.get("name") or error.data.get("distribution")
    if error.tag in _ITEM_ERRORS:
        dist, item = error.data.get("distribution"), error.data.get("name")
        if isinstance(item, str) and "/" not in item and dist:
            name = f"{canonical_dist_name(str(dist))}/{item}"
    if not isinstance(name, str) or not name:
        return ""

    try:
        return did_you_mean(name, installed_names(search))
    except (errors.AgentToolsError, OSError):  # the hint is a courtesy: never a second failure
        return ""
