"""``agenttools skill --list --no-local`` and ``agenttools skill URI --no-local`` of this
interpreter's environment from a cache: what ``run_skill`` printed, kept with everything it
was computed from, printed again while none of that changed — without the resolver, its
providers, ``yaml``, ``hashlib``, ``pathlib`` or the error classes (together about 3x
``python -c pass``: ``benchmarks/startup.py``).

What these print depends on: which distributions are installed and their manifests (the scan
runs every time, each manifest by its stat signature: an install, removal, upgrade or
shadowing is seen at once); the wheel's copy of every skill of every distribution, each
listed file and every directory on the way to it (by ``lstat`` signature: the file a URI
names is read from there, verified); the built-in skills (every file and folder of
``builtin_skills``); the modules that computed it, agenttools' and the libraries' (each file
by signature), and the interpreter. An entry is kept in ``<state>/cache/skill.marshal`` only
when none of that changed within ``RACY_NS`` of the computation, and not at all for an
editable install (its skills are the live source folder), an error or a warning (the full
path prints those). Without ``--no-local`` the skill folders of every client (project and user
scope, through links) are read too, which a list written here would not keep up with: that
line is kept by ``cli/recorded.py`` instead (every path the computation looked at, recorded,
and the working directory). ``tests/uri/test_quick_skill.py`` holds the answers equal to the
full path's.
"""

from __future__ import annotations

import os
import sys
import time

from agenttools_runtime import status_cache
from agenttools_runtime.cli import lean_cache
from agenttools_runtime.cli.quick_list import RACY_NS, this_path
from agenttools_runtime.dist_scan import iter_dist_infos
from agenttools_runtime.wheel import layout

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    import argparse
    from typing import Any


def skill_output(args: argparse.Namespace) -> str | bytes | None:
    """What ``run_skill`` prints for this line (``--list`` or a URI, ``--no-local``, no
    other option but ``--json``), or None: ``run_skill`` answers."""
    paths = this_path()
    if not args.no_local or paths is None:
        return None
    installed: list[tuple[str, bytes | None]] = []
    for entry in iter_dist_infos(paths, None):
        if entry.zip_file is not None:
            return None
        if not entry.is_egg:
            manifest = entry.dist_info + layout.MANIFEST_SUFFIX
            signature = status_cache.signature(manifest)
            if signature is not None:
                installed.append((manifest, signature))
    line = repr((bool(args.list), args.uri, bool(args.json)))
    cache_file = lean_cache.cache_file("skill")
    stored = lean_cache.load(cache_file)
    interpreter = lean_cache.interpreter_key(())
    known: dict[str, Any] = stored.get(interpreter, {})
    hit = known.get(line)
    if hit is not None and hit[0] == installed:
        shown, checks = hit[1], hit[2]
        if all(status_cache.signature(path) == sig for path, sig in checks):
            return shown  # type: ignore[no-any-return]
    started = time.time_ns()
    computed = _compute(args)
    if computed is None:
        return None
    shown, checks = computed
    limit = started - RACY_NS
    settled = all(
        sig is not None and status_cache.changed_ns(sig) < limit
        for sig in (*(s for _, s in installed), *(s for _, s in checks))
    )
    if settled and cache_file is not None:
        kept = {**known, line: (installed, shown, checks)}
        lean_cache.store(cache_file, stored, interpreter, kept)
    return shown


def _compute(args: argparse.Namespace) -> tuple[str | bytes, list[Any]] | None:
    """What the full path prints, with the paths it depends on and their signatures; None
    when it is not for the cache to hold (see the module docstring)."""
    import warnings

    from agenttools_runtime.cli.uri import skill_output
    from agenttools_runtime.skilluri.resolver import SkillResolver

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            resolver = SkillResolver.default(local=False)
            with resolver:
                shown = skill_output(args, resolver)
                providers = list(resolver.providers)
        except Exception:  # an error: the full path reports it (with its hint)
            return None
    if caught:
        return None
    checks: dict[str, bytes | None] = {}
    for provider in providers:
        distribution = getattr(provider, "distribution", None)
        if provider.kind == "builtin":
            _walk(_builtin_skills_dir(), checks)
        elif distribution is None or distribution.source_root is not None:
            return None  # (not a provider whose every input is a path: an editable install)
        else:
            _wheel_copies(str(distribution.dist_info), distribution.manifest, checks)
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and not name.startswith(_STDLIB):
            checks[name] = status_cache.signature(name)
    return shown, list(checks.items())


def _wheel_copies(dist_info: str, manifest: Any, checks: dict[str, bytes | None]) -> None:
    """Every listed file of every skill of the wheel's copy, and each directory on the way."""
    for skill_name, entry in manifest.skills.items():
        for rel in entry.files:
            path = dist_info
            for part in [*layout.SKILLS_DIR.split("/"), skill_name, *rel.split("/")]:
                path = f"{path}{os.sep}{part}"
                if path not in checks:
                    checks[path] = status_cache.signature(path)


def _walk(top: str, checks: dict[str, bytes | None]) -> None:
    """*top* and everything under it."""
    checks[top] = status_cache.signature(top)
    for directory, folders, files in os.walk(top):
        for name in (*folders, *files):
            path = os.path.join(directory, name)
            checks[path] = status_cache.signature(path)


def _builtin_skills_dir() -> str:
    from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR

    return str(BUILTIN_SKILLS_DIR)


# the standard library's modules: the interpreter's (sys.version keys the cache)
_STDLIB = os.path.dirname(os.__file__) + os.sep
