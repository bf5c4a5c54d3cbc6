"""Where distributions are looked for: ``sys.path``-like directories and the environment
(interpreter, scripts directory, PEP 508 markers) they belong to — this interpreter's,
another one's (asked once, in a subprocess), or explicit site-packages directories."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime import errors
from agenttools_runtime.mcp.server import Environment

# Run in another interpreter (stdlib only) for --python: its path, scripts dir, and the PEP 508
# marker environment (the same fields packaging.markers.default_environment() computes).
_PROBE = """
import json, os, platform, sys, sysconfig
def fmt(info):
    v = "%d.%d.%d" % (info.major, info.minor, info.micro)
    if info.releaselevel != "final":
        v += info.releaselevel[0] + str(info.serial)
    return v
print(json.dumps({
    "executable": sys.executable,
    "path": sys.path,
    "scripts": sysconfig.get_path("scripts"),
    "markers": {
        "implementation_name": sys.implementation.name,
        "implementation_version": fmt(sys.implementation.version),
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    },
}))
"""


@dataclass(frozen=True, slots=True)
class SearchPath:
    """Where to look: ``sys.path``-like directories plus the environment whose interpreter
    starts ``module``/``script`` servers. ``marker_environment`` is the PEP 508 environment
    bundle markers are evaluated in (None: this interpreter's); it is not compared.
    ``explicit``: the directories were given (``--path``), not an interpreter's path."""

    paths: tuple[Path, ...]
    environment: Environment
    marker_environment: Mapping[str, str] | None = field(default=None, compare=False)
    explicit: bool = False

    @classmethod
    def current(cls) -> SearchPath:
        """This interpreter's ``sys.path`` (``""`` is the working directory, as for imports)."""
        return cls(tuple(Path(p or os.curdir) for p in sys.path), Environment.current())

    @classmethod
    def for_python(cls, python: Path | str) -> SearchPath:
        """Ask that interpreter for its ``sys.path`` once (a subprocess; nothing is imported
        into it but the standard library). Raises ``InvalidPythonEnvironment`` when it cannot
        be run or answers nonsense."""
        executable = _absolute(python)
        if executable.is_dir():  # a venv directory: its interpreter
            interpreter = venv_python(executable)
            if interpreter is None:
                raise errors.InvalidPythonEnvironment(
                    python=executable,
                    reason="a directory without bin/python or Scripts/python.exe (not a virtual "
                    "environment)",
                )
            executable = interpreter
        import subprocess  # (rare: only --python runs an interpreter)

        try:
            completed = subprocess.run(
                [os.fspath(executable), "-c", _PROBE],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise errors.InvalidPythonEnvironment(python=executable, reason=exc) from None
        if completed.returncode != 0:
            detail = (completed.stderr.strip().splitlines() or ["exit status"])[-1]
            raise errors.InvalidPythonEnvironment(
                python=executable, reason=f"{detail} ({completed.returncode})"
            )
        try:
            answer = json.loads(completed.stdout)
            # "" is the subprocess's working directory: meaningless here
            paths = tuple(Path(p) for p in answer["path"] if p)
            scripts = Path(answer["scripts"])
            markers = {str(k): str(v) for k, v in answer["markers"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise errors.InvalidPythonEnvironment(
                python=executable, reason=f"unexpected answer ({exc})"
            ) from None
        # keep the path as given: a venv's python is a symlink whose target is not the venv's
        return cls(paths, Environment(executable, scripts), markers)

    @classmethod
    def for_paths(cls, paths: Sequence[Path | str]) -> SearchPath:
        """Explicit site-packages directories. Servers start with the interpreter of the
        environment the first directory belongs to (found next to it), else this one."""
        resolved = tuple(_absolute(p) for p in paths)
        environment = None
        for path in resolved:
            environment = _environment_of_site_packages(path)
            if environment is not None:
                break
        return cls(resolved, environment or Environment.current(), explicit=True)

    def describe(self) -> str:
        """Where, for messages: ``the environment of /path/to/python``, or the directories
        given (``the site-packages directory /path``)."""
        if self.explicit:
            if len(self.paths) == 1:
                return f"the site-packages directory {self.paths[0]}"
            return "the directories " + ", ".join(map(str, self.paths))
        return f"the environment of {self.environment.python}"

    def pip_install(self, name: str) -> str:
        """The command that installs *name* where this search looks: into its environment,
        or into the first directory given (``pip install --target``) when no environment is
        found beside it."""
        if self.explicit and self.paths and _environment_of_site_packages(self.paths[0]) is None:
            return f"pip install --target {self.paths[0]} {name}"
        if os.path.abspath(self.environment.python) == os.path.abspath(
            Environment.current().python
        ):
            return f"pip install {name}"
        return f"{self.environment.python} -m pip install {name}"


def venv_python(venv: Path | str) -> Path | None:
    """The interpreter of the virtual environment *venv*: its ``bin/python`` (POSIX) or
    ``Scripts/python.exe`` (Windows) file; None when it has neither."""
    candidates = (Path(venv, "bin", "python"), Path(venv, "Scripts", "python.exe"))
    return next((c for c in candidates if os.path.isfile(c)), None)


def _absolute(path: Path | str) -> Path:
    """*path* with ``~`` expanded, made absolute and normalized (``..`` folded)."""
    return Path(os.path.abspath(os.path.expanduser(path)))


def _environment_of_site_packages(path: Path) -> Environment | None:
    """The virtual environment a site-packages directory *path* belongs to: the first prefix
    with a ``pyvenv.cfg`` and an interpreter, of <prefix>/lib/pythonX.Y/site-packages
    (POSIX) or <prefix>/Lib/site-packages (Windows)."""
    for prefix in (path.parent.parent.parent, path.parent.parent):
        python = venv_python(prefix) if (prefix / "pyvenv.cfg").is_file() else None
        if python is not None:
            return Environment(python, python.parent)
    return None
