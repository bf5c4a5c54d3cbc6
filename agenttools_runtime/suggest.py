""" "Did you mean": the known names closest to a mistyped one (clients, bundles, servers,
commands), by :mod:`difflib`, imported only when a name was not found."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable

    from agenttools_runtime.discovery import SearchPath
    from agenttools_runtime.errors import AgentToolsError


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to *n* of *candidates* closest to *word*, best first, compared case-insensitively;
    a candidate *word* is a prefix of counts too (``weather`` → ``weather-tools``)."""
    import difflib

    by_fold: dict[str, str] = {}
    for candidate in candidates:
        by_fold.setdefault(candidate.casefold(), candidate)
    folded = word.casefold()
    found = difflib.get_close_matches(folded, list(by_fold), n=n, cutoff=0.6)
    if not found and len(folded) >= 3:
        found = sorted(f for f in by_fold if f.startswith(folded))[:n]
    return [by_fold[f] for f in found]


def did_you_mean(word: str, candidates: Iterable[str] | Mapping[str, str]) -> str:
    """``' Did you mean "cursor"?'`` (or ``' Did you mean "a" or "b"?'``), else ``""``.
    *candidates* may map each spelling to the name to suggest (an alias to its client id)."""
    spellings: dict[str, str] = (
        dict(candidates) if isinstance(candidates, Mapping) else {c: c for c in candidates}
    )
    names: list[str] = []
    for match in close_matches(word, spellings):
        if spellings[match] not in names and spellings[match] != word:
            names.append(spellings[match])
    if not names:
        return ""
    return " Did you mean " + " or ".join(f'"{n}"' for n in names[:2]) + "?"


# errors of a bundle or server name that was not found
NAME_ERRORS = frozenset(
    {
        "AgentToolsNotFound",
        "DistributionNotInstalled",
        "DistributionAgentToolsNotFound",
        "DistributionServerNotFound",
        "MCPServerNotFound",
    }
)


def server_names(search: SearchPath | None = None) -> list[str]:
    """Every server name ``mcp install`` accepts: ``dist/server`` and the bare name."""
    from agenttools_runtime.discovery import find_distributions

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
    from agenttools_runtime.bundles import BUILTIN_BUNDLES, distribution_bundles
    from agenttools_runtime.discovery import find_distributions

    names = list(BUILTIN_BUNDLES)
    for dist in find_distributions(search):
        if dist.problem is not None:
            continue
        names.append(dist.name)
        names.extend(b.qualified_name for b in distribution_bundles(dist, search))
        for server in dist.server_names:
            names.extend((f"{dist.name}/{server}", server))
    return list(dict.fromkeys(names))


def hint_for(error: AgentToolsError, search: SearchPath | None = None) -> str:
    """The "did you mean" for a bundle or server *error* (``""`` for any other error, or
    when nothing comes close)."""
    if error.tag not in NAME_ERRORS:
        return ""
    from agenttools_runtime.errors import AgentToolsError
    from agenttools_runtime.names import canonical_dist_name

    name = error.data.get("name") or error.data.get("distribution")
    if error.tag in ("DistributionServerNotFound", "DistributionAgentToolsNotFound"):
        dist, item = error.data.get("distribution"), error.data.get("name")
        if isinstance(item, str) and "/" not in item and dist:
            name = f"{canonical_dist_name(str(dist))}/{item}"
    if not isinstance(name, str) or not name:
        return ""

    try:
        return did_you_mean(name, installed_names(search))
    except (AgentToolsError, OSError):  # the hint is a courtesy: never a second failure
        return ""
