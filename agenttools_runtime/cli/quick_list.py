"""``agenttools list`` of this interpreter's environment, read on strings: what
``run_list`` prints, without ``pathlib``, the distribution and bundle objects or the error
classes (together about half of ``list``'s start-up: ``benchmarks/startup.py``).

It answers only the common case and leaves everything else to the full path (``None``): a
path entry or interpreter path that ``pathlib`` would spell otherwise, a zip file on the
path, a manifest that cannot be read or used (the full path lists it with its problem), a
bundle with a marker (evaluated by ``packaging``), a name the bundle objects would refuse.

Each distribution's rows are kept in ``<state>/cache/list.marshal`` with the stat signature
of its manifest (modification and change times in ns, size, inode), per interpreter and
version of this code: a manifest unchanged by its stat is not read, decoded or validated again
(without the cache ``json``, ``re`` and the manifest checks are imported: on ``python -m
agenttools list`` that is about 0.6x ``python -c pass``). Installing, removing or upgrading a
distribution changes which ``.dist-info`` directories the scan finds (each is looked at every
time); rewriting a manifest changes its signature. A signature taken within ``RACY_NS`` of a
change is not kept (git's "racily clean" rule). The cache is never the only copy of anything:
unreadable or foreign, it is ignored; written atomically, failures ignored; never the first
thing in a state directory (a ``list`` on a new machine creates none).
``tests/discovery/test_quick_list.py`` holds the answers equal to the full path's, cache cold
and warm, across those changes.
"""

from __future__ import annotations

import os
import sys
import time

from agenttools_runtime.cli import lean_cache
from agenttools_runtime.dist_scan import iter_dist_infos
from agenttools_runtime.wheel import layout

# the modules that compute the rows, relative to the package (their stats key the cache)
CODE_FILES = ("cli/quick_list.py", "dist_scan.py", "names.py", "wheel/manifest.py", "limits.py")

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

    from agenttools_runtime.dist_scan import Entry
    from agenttools_runtime.wheel.manifest import WheelManifest


def list_data() -> dict[str, Any] | None:
    """The data of ``agenttools list`` (no option but ``--json``) for this interpreter's
    ``sys.path``, or None when the full path must answer."""
    python = sys.executable
    paths = this_path()
    if paths is None:
        return None
    cache_file = lean_cache.cache_file("list")
    stored = lean_cache.load(cache_file)
    interpreter = lean_cache.interpreter_key(CODE_FILES)
    known = lean_cache.entries(stored, interpreter)
    kept: dict[str, Any] = {}
    settled_before = time.time_ns() - lean_cache.RACY_NS
    found: list[tuple[str, list[dict[str, Any]]]] = []
    for entry in iter_dist_infos(paths, None):
        if entry.zip_file is not None:
            return None
        if entry.is_egg:  # an egg-info never carries a manifest
            continue
        manifest = entry.dist_info + layout.MANIFEST_SUFFIX
        try:
            st = os.stat(manifest)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return None
        signature = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        hit = known.get(manifest)
        if isinstance(hit, tuple) and len(hit) == 2 and hit[0] == signature:
            rows = hit[1]
        else:  # read after the stat: a later change leaves the stored signature stale
            rows = _read_rows(entry, manifest)
            if rows is None:
                return None
        if max(signature[:2]) < settled_before:
            kept[manifest] = (signature, rows)
        found.append((entry.key, rows))
    if cache_file is not None and kept != known:
        lean_cache.store(cache_file, stored, interpreter, kept)
    found.sort(key=lambda item: item[0])  # find_distributions: by name
    rows = [row for _, dist_rows in found for row in dist_rows]
    return {"ok": True, "python": python, "bundles": rows, "problems": []}


def this_path() -> list[str] | None:
    """This interpreter's ``sys.path`` as discovery spells it (``""``: the working
    directory, as for imports); None when ``pathlib`` would spell an entry, or the
    interpreter's path, otherwise (the full path names them through ``pathlib``)."""
    paths = [p or os.curdir for p in sys.path]
    if not all(_as_pathlib_spells_it(p) for p in (sys.executable, *paths)):
        return None
    return paths


def _as_pathlib_spells_it(path: str) -> bool:
    """Whether ``str(Path(path))`` is *path* (normalized, no ``..`` to keep): the full path
    names distributions and the interpreter through ``pathlib``."""
    return os.path.normpath(path) == path and (os.altsep is None or os.altsep not in path)


def _read_rows(entry: Entry, manifest: str) -> list[dict[str, Any]] | None:
    try:
        with open(manifest, "rb") as f:
            raw = f.read()
    except OSError:  # gone since the stat, or unreadable: the full path says which
        return None
    return _rows(entry, raw)


def _rows(entry: Entry, raw: bytes) -> list[dict[str, Any]] | None:
    """``list``'s rows of one distribution (``distribution_bundles`` with each bundle's
    ``to_json()`` and the version), or None when the full path must answer."""
    from agenttools_runtime import names
    from agenttools_runtime.wheel.manifest import parse

    try:
        manifest = parse(raw, entry.key)
    except Exception:  # a ManifestError: the full path lists the distribution's problem
        return None
    declarations = manifest.declared_bundles(manifest.distribution)
    location = _location(entry, manifest)
    rows = []
    for bundle in declarations:
        servers = [_qualify(entry.key, s) for s in bundle.mcp_servers]
        skills = [_qualify(entry.key, s) for s in bundle.skills]
        usable = (
            not bundle.marker
            and bundle.name.strip()
            and all(map(names.is_item_reference, servers))
            and all(map(names.is_name_shaped, skills))
        )
        if not usable:
            return None
        rows.append(
            {
                "name": bundle.name,
                "qualified_name": f"{entry.key}/{bundle.name}",
                "toolset_type": "AgentTools",
                "location": location,
                "description": bundle.description,
                "marker": None,
                "mcp_servers": servers,
                "skills": skills,
                "version": manifest.version,
            }
        )
    return rows


def _location(entry: Entry, manifest: WheelManifest) -> dict[str, Any]:
    """``AgentTools.to_json()["location"]`` of a distribution's bundle."""
    return {
        "distribution": entry.key,
        "version": manifest.version,
        "dist_info": entry.dist_info,
        "editable": bool(manifest.source_root),
    }


def _qualify(dist: str, item: str) -> str:
    """``bundles._qualify``: ``item`` -> ``dist/item``, ``other/item`` normalized."""
    from agenttools_runtime.dist_scan import canonical_dist_name

    owner, _, name = item.rpartition("/")
    return f"{canonical_dist_name(owner) if owner else dist}/{name}"
