"""The backend the wrapping backend wraps: ``[tool.agenttools] backend`` read with tomllib
and imported, and the hooks it has. What a ``get_requires_for_build_*`` hook process needs,
and no more: the project's checks (``agenttools_runtime.project``) are imported only when the
setting is unusable, to report its located problems, and the error tree only when a
backend cannot be loaded."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agenttools_runtime import regular_files
from agenttools_runtime.backend_names import wrapped_backend_problem
from agenttools_runtime.project_paths import is_project_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ConfigSettings = Mapping[str, Any] | None

PYPROJECT = "pyproject.toml"

# Hooks a backend may lack (PEP 517 and PEP 660): the wrapper has them exactly when the
# wrapped backend does, so frontends fall back as they would without agenttools.
OPTIONAL_HOOKS = (
    "prepare_metadata_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "build_editable",
)


def load_backend(root: str | Path) -> Any:
    """The backend object ``[tool.agenttools] backend`` names, imported (its ``backend-path``
    directories first on ``sys.path``). A missing or unusable ``backend`` raises the
    project's located problems (:class:`ProjectInvalid`); an import that fails raises
    :class:`~agenttools_runtime.errors.BuildBackendUnavailable`."""
    spec, paths = backend_setting(root)
    module_name, _, attribute = spec.partition(":")
    directories = [os.path.abspath(os.path.join(root, p)) for p in paths]
    for directory in reversed(directories):
        if directory not in sys.path:
            sys.path.insert(0, directory)
    try:
        backend: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise _unavailable(root, spec, str(exc)) from None
    if directories and not any(
        _is_inside(getattr(backend, "__file__", None) or "", d) for d in directories
    ):
        reason = f"it was loaded from {backend.__file__}, not from backend-path"
        raise _unavailable(root, spec, reason)
    for part in attribute.split(".") if attribute else ():
        try:
            backend = getattr(backend, part)
        except AttributeError:
            reason = f"{module_name} has no attribute {attribute}"
            raise _unavailable(root, spec, reason) from None
    return backend


def has_hook(root: str | Path, name: str) -> bool:
    """Whether the wrapped backend implements the optional hook *name*."""
    return name in OPTIONAL_HOOKS and callable(getattr(load_backend(root), name, None))


def get_requires(root: str | Path, hook: str, config_settings: ConfigSettings) -> list[str]:
    """The wrapped backend's ``get_requires_for_build_*`` (``[]`` where it has none)."""
    function = getattr(load_backend(root), hook, None)
    return [] if function is None else list(function(config_settings))


def backend_setting(root: str | Path) -> tuple[str, list[str]]:
    """``backend`` and ``backend-path`` of ``[tool.agenttools]``; anything unusable raises
    the project's problems as ``agenttools validate`` reports them."""
    try:  # (a named pipe or a device there: an error, never a read that hangs)
        text = regular_files.read_bytes(os.path.join(root, PYPROJECT)).decode("utf-8")
        config = tomllib.loads(text).get("tool", {}).get("agenttools", {})
        spec, paths = config.get("backend"), config.get("backend-path", [])
        if _usable(spec, paths):
            return spec, list(paths)
    except (OSError, ValueError, AttributeError):
        pass
    from agenttools_runtime.project.build import load_plan  # (only to say what is wrong)

    load_plan(Path(root), "0")  # raises the located problems (MissingBackend, UnknownKey …)
    raise _unavailable(root, "", "[tool.agenttools] backend must name the backend to wrap")


def _usable(spec: object, paths: object) -> bool:
    """What validation accepts, asked before anything else is checked: a backend to wrap,
    and backend-path directories that follow the rule of a project's paths."""
    return (
        isinstance(spec, str)
        and wrapped_backend_problem(spec) is None
        and isinstance(paths, list)
        and all(isinstance(p, str) and is_project_path(p) for p in paths)
    )


def _unavailable(root: str | Path, spec: str, reason: str) -> Exception:
    from agenttools_runtime.errors import BuildBackendUnavailable  # (only to say what failed)

    pyproject = os.path.join(root, PYPROJECT)
    return BuildBackendUnavailable(backend=spec, pyproject=pyproject, reason=reason)


def _is_inside(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), directory]) == directory
    except ValueError:  # another drive on Windows
        return False
