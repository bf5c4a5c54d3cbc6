"""Bundle markers: a PEP 508 marker an installed environment can evaluate, and whether two
markers can both hold on one system (two bundles of one name must not)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName

from agenttools_runtime.project.context import Checker
from agenttools_runtime.toml_text import KeyPath


def check_marker(checker: Checker, key: KeyPath, marker: str) -> None:
    """*marker* parses, and evaluates in a real environment."""
    try:
        parsed = Marker(marker)
    except InvalidMarker as exc:
        first = str(exc).splitlines()[0]
        checker.add(key, "InvalidMarker", f'"{marker}" is not a PEP 508 marker: {first}')
        return
    try:
        parsed.evaluate(next(_environments()))
    except UndefinedEnvironmentName as exc:  # e.g. dependency_groups: lock files only
        checker.add(
            key,
            "InvalidMarker",
            f'"{marker}" uses {exc}, which an installed environment does not define; '
            "the bundle would never be offered",
        )
    except UndefinedComparison as exc:
        checker.add(
            key,
            "InvalidMarker",
            f'"{marker}" cannot be evaluated ({exc}); the bundle would never be offered',
        )


def markers_overlap(first: str | None, second: str | None) -> bool:
    """Whether two bundle markers (None: always) can both hold on one system."""
    try:
        markers = [Marker(m) if m else None for m in (first, second)]
    except InvalidMarker:
        return False  # reported on its own
    return any(all(_holds(m, env) for m in markers) for env in _environments())


def _holds(marker: Marker | None, environment: dict[str, str]) -> bool:
    """Whether *marker* (None: always) holds in *environment*; one that cannot be evaluated
    is false, as at run time (and reported on its own)."""
    try:
        return marker is None or bool(marker.evaluate(environment))
    except (UndefinedComparison, UndefinedEnvironmentName):
        return False


def _environments() -> Iterator[dict[str, str]]:
    """Every combination of the platforms, interpreters and versions a wheel realistically
    meets, made one at a time: the environments over which two markers are tested for
    overlap (the first is enough to tell whether a marker evaluates at all)."""
    platforms = [
        {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"},
        {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"},
        {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt"},
    ]
    machines = ["x86_64", "aarch64", "arm64", "AMD64", "ARM64"]
    implementations = [("cpython", "CPython"), ("pypy", "PyPy")]
    return (
        {
            **platform,
            "platform_machine": machine,
            "implementation_name": impl,
            "platform_python_implementation": impl_name,
            "python_version": f"3.{minor}",
            "python_full_version": f"3.{minor}.0",
            "implementation_version": f"3.{minor}.0",
            "platform_release": "",
            "platform_version": "",
            "extra": "",
        }
        for platform, machine, (impl, impl_name), minor in itertools.product(
            platforms, machines, implementations, range(8, 16)
        )
    )
