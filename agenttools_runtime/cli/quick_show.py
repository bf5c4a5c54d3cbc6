"""``agenttools show DIST/ITEM`` of this interpreter's environment from a cache: what
``run_show`` printed for it, kept with everything it was computed from, shown again while
none of that changed — without ``pathlib``, the bundle and server objects, the error classes,
``hashlib`` or ``shlex`` (together about 2x ``python -c pass``: ``benchmarks/startup.py``).

What ``show`` prints for a bundle (or server) of one distribution depends on: that
distribution's ``.dist-info`` (found by the scan, every time: an install, removal, upgrade or
shadowing is seen at once) and its manifest (by its stat signature); this interpreter (its
path: the server command lines) and this code; and each skill file of the wheel's copy, with
every directory on the way to it (by ``lstat`` signature: ``show`` verifies them, and a
changed or replaced file, or a link put in the way, changes a signature). An entry is kept in
``<state>/cache/show.marshal`` only when nothing of that changed within ``RACY_NS`` of the
computation, and only for what those paths tell all of: not for an editable install (live
source files), a bundle with a marker or with items of another distribution, a problem or a
warning (the full path prints those, with their hints). Anything else is ``run_show``'s.
``tests/discovery/test_quick_show.py`` holds the answers equal to the full path's.
"""

from __future__ import annotations

import os
import time

from agenttools_runtime import status_cache
from agenttools_runtime.cli import lean_cache
from agenttools_runtime.cli.quick_list import this_path
from agenttools_runtime.dist_scan import canonical_dist_name, iter_dist_infos
from agenttools_runtime.wheel import layout

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

# the modules that compute what is shown, relative to the package (their stats key the cache)
CODE_FILES = (
    "cli/quick_show.py",
    "cli/show_view.py",
    "bundles.py",
    "discovery.py",
    "mcp/server.py",
    "wheel/manifest.py",
    "names.py",
    "dist_scan.py",
)


def show_output(name: str, as_json: bool) -> str | None:
    """What ``show NAME`` (``--json``) prints for a ``dist/item`` of this interpreter's
    environment when it succeeds, or None: ``run_show`` answers."""
    dist, _, item = name.partition("/")
    paths = this_path()
    if not dist or not item or "/" in item or paths is None:
        return None
    key = canonical_dist_name(dist)
    entry = next(iter_dist_infos(paths, key), None)
    if entry is None or entry.zip_file is not None or entry.is_egg:
        return None
    manifest = entry.dist_info + layout.MANIFEST_SUFFIX
    cache_file = lean_cache.cache_file("show")
    stored = lean_cache.load(cache_file)
    interpreter = lean_cache.interpreter_key(CODE_FILES)
    known: dict[str, Any] = lean_cache.entries(stored, interpreter)
    started = time.time_ns()
    signature = status_cache.signature(manifest)
    if signature is None:
        return None
    shown: Any = {}
    try:
        if known[manifest][0] == signature:
            shown = known[manifest][1]
            text, json_text, checks = shown[name]
            if all(status_cache.signature(path) == sig for path, sig in checks):
                return str(json_text if as_json else text)
    except (KeyError, TypeError, ValueError, IndexError):  # not held (or not as written)
        pass
    if not isinstance(shown, dict):
        shown = {}  # (not as written: nothing of it kept)
    computed = _compute(name, key, started)
    if computed is None:
        return None
    if status_cache.changed_ns(signature) < started - lean_cache.RACY_NS and cache_file:
        kept = {path: value for path, value in known.items() if path != manifest}
        kept[manifest] = (signature, {**shown, name: computed})
        lean_cache.store(cache_file, stored, interpreter, kept)
    text, json_text, _ = computed
    return json_text if as_json else text


def _compute(name: str, key: str, started: int) -> tuple[str, str, list[Any]] | None:
    """What the full path prints for *name* (text and JSON) with the paths it depends on and
    their signatures; None when it is not for the cache to hold (see the module docstring)."""
    import json
    import warnings

    from agenttools_runtime.bundles import resolve_tools
    from agenttools_runtime.cli.show_view import bundle_details, render_show

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            bundle = resolve_tools(name, None)
            details = bundle_details(bundle)
        except Exception:  # an error: the full path reports it (with its hint)
            return None
    location = details["location"]
    items = [*details["mcp_servers"], *details["skills"]]
    if (
        caught
        or details["marker"]
        or not isinstance(location, dict)
        or location["editable"]
        or any(item.get("problem") or not item["name"].startswith(f"{key}/") for item in items)
    ):
        return None
    checks: dict[str, bytes | None] = {}
    for skill in details["skills"]:
        skill_name = skill["name"].partition("/")[2]
        for rel in skill["files"]:
            parts = [*layout.SKILLS_DIR.split("/"), skill_name, *rel.split("/")]
            path = location["dist_info"]
            for part in parts:
                path = f"{path}{os.sep}{part}"
                if path not in checks:
                    checks[path] = status_cache.signature(path)
    limit = started - lean_cache.RACY_NS
    if any(sig is None or status_cache.changed_ns(sig) >= limit for sig in checks.values()):
        return None
    text = render_show(details)
    json_text = json.dumps({"ok": True, "bundle": details}, indent=2, default=str)
    return text, json_text, list(checks.items())
