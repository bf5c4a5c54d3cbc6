"""The wrapping PEP 517 build backend: any backend's builds, with agenttools' files added.

    [build-system]
    requires = ["agenttools", "setuptools>=77"]
    build-backend = "agenttools_hook.backend"

    [tool.agenttools]
    backend = "setuptools.build_meta"      # the backend that builds everything else

Every hook of PEP 517 and PEP 660 delegates to that backend; the optional ones exist exactly
when it has them. The work is :mod:`agenttools_hook.wrapping`'s; this module only
speaks PEP 517: it runs in the project directory, prints warnings to stderr and turns every
expected failure into one :class:`AgentToolsBuildError` listing the problems.

Each hook runs in a process of its own; the frontend's ``get_requires_for_build_*`` process
needs only the wrapped backend (:mod:`agenttools_hook.delegate`), so the hooks that build
import the build's work (the project's checks, the wheel rewrite) when they run.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from agenttools_hook import delegate
from agenttools_hook.delegate import ConfigSettings
from agenttools_hook.errors import AgentToolsBuildError
from agenttools_runtime.errors import AgentToolsError

T = TypeVar("T")

__all__ = [
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
]


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    return _requires("get_requires_for_build_wheel", config_settings)


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> list[str]:
    return _requires("get_requires_for_build_sdist", config_settings)


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    return _requires("get_requires_for_build_editable", config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    return _build(wheel_directory, config_settings, metadata_directory, editable=False)


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    from agenttools_hook import wrapping  # (see the module's docstring)

    return _run(lambda: wrapping.build_sdist(_root(), sdist_directory, config_settings, warn=_warn))


def __getattr__(name: str) -> Any:
    """The optional hooks, present when the wrapped backend has them (frontends test with
    ``hasattr`` and fall back, e.g. to metadata from a built wheel)."""
    hook = _OPTIONAL.get(name)
    if hook is None or not _run(lambda: delegate.has_hook(_root(), name)):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return hook


def _requires(hook: str, config_settings: ConfigSettings) -> list[str]:
    return _run(lambda: delegate.get_requires(_root(), hook, config_settings))


def _build(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
    *,
    editable: bool,
) -> str:
    from agenttools_hook import wrapping  # (see the module's docstring)

    return _run(
        lambda: wrapping.build_wheel(
            _root(),
            wheel_directory,
            config_settings,
            metadata_directory,
            editable=editable,
            warn=_warn,
        )
    )


def _prepare_metadata(
    metadata_directory: str, config_settings: ConfigSettings = None, *, editable: bool
) -> str:
    from agenttools_hook import wrapping  # (see the module's docstring)

    return _run(
        lambda: wrapping.prepare_metadata(
            _root(), metadata_directory, config_settings, editable=editable, warn=_warn
        )
    )


# the optional hooks (see __getattr__), each taking the arguments PEP 517 and PEP 660 give it
_OPTIONAL: dict[str, Callable[..., str]] = {
    "build_editable": functools.partial(_build, editable=True),
    "prepare_metadata_for_build_wheel": functools.partial(_prepare_metadata, editable=False),
    "prepare_metadata_for_build_editable": functools.partial(_prepare_metadata, editable=True),
}


def _root() -> Path:
    return Path.cwd()  # PEP 517: hooks run in the project directory


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


def _run(call: Callable[[], T]) -> T:
    try:
        return call()
    except AgentToolsError as exc:
        # what users read is the end of the traceback: keep agenttools' frames out of it
        raise AgentToolsBuildError(str(exc)).with_traceback(None) from None
