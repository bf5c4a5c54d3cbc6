"""``agenttools deployed`` (the table, every client) served from the status cache on
strings: the rows ``deployed_view`` would show, when the cache holds a true row for every
deployment and no operation was interrupted; None otherwise, and ``deployed_view`` computes
and stores what changed. Without it the table imports ``pathlib``, the client table and the
error classes before it looks at the cache (about 1x ``python -c pass``:
``benchmarks/startup.py``). A row is true while the stat signature of every path it was
computed from is unchanged (``status_cache.py``)."""

from __future__ import annotations

import os

from agenttools_runtime import status_cache
from agenttools_runtime.state_dir import lean_state_dir

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    import argparse

    from agenttools_runtime.status_cache import Row


def lean_deployed(args: argparse.Namespace) -> int | None:
    """The table of every deployment straight from the status cache; None:
    ``deployed_view`` answers (``--json``, ``--long``, a client, a row to compute)."""
    if args.json or args.long or args.client is not None:
        return None
    table = cached_table()
    if table is None:
        return None
    if not isinstance(table, str):  # rows (no table stored): lifecycle's renderer
        from agenttools_runtime.cli.lifecycle import _render_table

        table = _render_table(table)
    print(table)
    return 0


def cached_table() -> str | list[Row] | None:
    """The table of every deployment as stored (when all its rows are true), else every
    deployment's row in the table's order; None when a row must be computed."""
    state = lean_state_dir()
    if state is None:
        return None
    deployments = os.path.join(state, "deployments")
    try:
        with os.scandir(os.path.join(deployments, ".journal")) as left:
            if any(True for _ in left):  # an interrupted operation: deployed_view finishes it
                return None
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError:
        return None
    try:
        uuids = [n for n in os.listdir(deployments) if not n.startswith(".")]
    except FileNotFoundError:
        uuids = []
    except OSError:
        return None
    cache = status_cache.load_file(status_cache.cache_file(deployments))
    if len(cache.needs) != len(uuids):  # a row to compute, or one of a removed deployment
        return None
    if status_cache.could_group(cache, deployments):  # (stored again by deployed_view)
        return None
    signatures = status_cache.Signatures()
    if cache.table:  # (no row object needed)
        needs = cache.needs
        if all(isinstance(needs.get(uid), list) for uid in uuids) and status_cache.unchanged(cache):
            return cache.table  # (every row stored, every path unchanged: holding's answer)
        holding = status_cache.holding(cache, uuids, signatures)
        return cache.table if len(holding) == len(uuids) else None
    rows, stale = status_cache.fresh_rows(cache, uuids, signatures)
    return None if stale else sorted(rows.values(), key=status_cache.table_order)
