"""Where managed environments live: ``<state>/envs/<dist>-<version>-<key>/``, each built at
that final path (a virtual environment cannot be moved), beside ``.journal/`` (intents of
installs in progress), ``.lock`` and ``.trash-*`` (environments being deleted: renamed there
first, so that a half-deleted one is never taken for an environment).

The ``key`` is the first 8 hex digits of the SHA-256 of what was asked: the request, the index
options (credentials removed), the installer and the interpreter. A rerun of the same request
finds its environment by it without asking any index; an upgrade keeps it and changes only the
version in the name.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agenttools_runtime import paths
from agenttools_runtime.envs import receipt as receipts
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.envs.receipt import Receipt
from agenttools_runtime.errors import InvalidReceipt

if TYPE_CHECKING:
    from packaging.version import Version

TRASH_PREFIX = ".trash-"
STAGING = ".staging"  # resolutions and builds in progress, one directory each
METADATA_SITE = "site-packages"  # a metadata-only environment's one directory


def envs_dir() -> Path:
    """``<state>/envs`` (``$AGENTTOOLS_HOME/envs``)."""
    return paths.state_paths().environments


def request_key(request: str, index: IndexOptions, installer: str, layout: str) -> str:
    """The identity of one request for this interpreter (see the module docstring)."""
    data = {
        "request": request,
        "index": index.to_json(),  # (credentials removed)
        "installer": installer,
        "interpreter": sys.executable,
        "layout": layout,
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def environment_path(distribution: str, version: str, key: str) -> Path:
    """Where the environment of *distribution* *version* made for *key* goes."""
    return envs_dir() / f"{distribution}-{version}-{key}"


@dataclass(frozen=True, slots=True)
class ManagedEnvironment:
    """One directory under :func:`envs_dir`; ``receipt`` None when it has none that can be
    read (``problem`` says why)."""

    path: Path
    receipt: Receipt | None
    problem: str | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def python(self) -> Path:
        """Its interpreter (for a metadata-only environment: none; this path does not exist)."""
        if os.name == "nt":
            return self.path / "Scripts" / "python.exe"
        return self.path / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        if self.receipt is not None and self.receipt.layout == receipts.METADATA:
            return self.path / METADATA_SITE
        return site_packages(self.path, self.receipt.python_version if self.receipt else None)


def site_packages(root: Path, python_version: str | None = None) -> Path:
    """The site-packages directory of the venv at *root* (Python *python_version*, default
    this one's ``X.Y``)."""
    if os.name == "nt":
        return root / "Lib" / "site-packages"
    major_minor = (
        ".".join((python_version or "").split(".")[:2])
        or f"{sys.version_info[0]}.{sys.version_info[1]}"
    )
    return root / "lib" / f"python{major_minor}" / "site-packages"


def load(path: Path) -> ManagedEnvironment:
    try:
        return ManagedEnvironment(path, receipts.read(path))
    except InvalidReceipt as exc:
        return ManagedEnvironment(path, None, str(exc.data.get("reason")))


def environments() -> Iterator[ManagedEnvironment]:
    """Every environment directory, by name (dot-entries are not environments)."""
    root = envs_dir()
    try:
        names = sorted(os.listdir(root))
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in names:
        path = root / name
        if not name.startswith(".") and path.is_dir() and not path.is_symlink():
            yield load(path)


def newest(wanted: Callable[[str, Receipt, Version], bool]) -> ManagedEnvironment | None:
    """The environment of the highest version among the usable ones (a receipt, and a
    virtual environment's interpreter still there) that ``wanted(name, receipt, version)``
    accepts; None when there is none."""
    from packaging.version import InvalidVersion, Version

    found = []
    for env in environments():
        r = env.receipt
        if r is None or (r.layout == receipts.VENV and not env.python.exists()):
            continue
        try:
            version = Version(r.version)
        except InvalidVersion:
            continue
        if wanted(env.name, r, version):
            found.append((version, env))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def environment_of(location: str | os.PathLike[str] | None) -> str | None:
    """The name of the managed environment *location* (a path) is inside, if any."""
    if not location:
        return None
    try:
        relative = Path(os.path.abspath(location)).relative_to(os.path.abspath(envs_dir()))
    except ValueError:
        return None
    first = relative.parts[0] if relative.parts else ""
    return first if first and not first.startswith(".") else None


def staging_dir() -> Path:
    return envs_dir() / STAGING


def empty_staging() -> None:
    """Delete what killed processes left of their resolutions and builds (call with the
    environments lock held: then none of them runs)."""
    root = staging_dir()
    for name in os.listdir(root) if root.is_dir() else ():
        shutil.rmtree(root / name, ignore_errors=True)


def trash_entries() -> list[Path]:
    root = envs_dir()
    try:
        return sorted(root / n for n in os.listdir(root) if n.startswith(TRASH_PREFIX))
    except (FileNotFoundError, NotADirectoryError):
        return []


def directory_size(path: Path) -> int:
    """Bytes of every file under *path* (links not followed)."""
    total = 0
    for directory, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                pass
    return total
