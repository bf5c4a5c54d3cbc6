"""Reading the PEP 751 lock file (``pylock.toml``) an installer wrote for one environment: each
package's name, version, and the one file installed for this interpreter (a wheel's name and
SHA-256, where it came from), as :class:`ResolvedDistribution` — what a receipt records and a
rebuild installs again (:func:`hashed_requirements`)."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote, urlsplit

from packaging.tags import sys_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

from agenttools_runtime import jsonform
from agenttools_runtime.envs.index import redact

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ResolvedDistribution(jsonform.Form):
    """One distribution of an environment: ``name`` (normalized), ``version``, the file
    installed (``file``: a wheel's or archive's name; None for a directory built in place),
    its ``sha256``, and where it came from: ``url`` (credentials removed) or a local ``path``,
    and the source that served it (``index``: an index or a find-links location, no
    credentials) — the lock's ``packages.index`` when it names one, which pip's and uv's do
    not (``simple.with_sources`` finds it then)."""

    WHAT = "a resolved distribution"
    name: str
    version: str
    file: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    sha256: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    url: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    path: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    index: str | None = field(default=None, metadata=jsonform.OMIT_NONE)


class LockFileError(ValueError):
    """A lock file that is not the PEP 751 file this module reads."""


def read(text: str, base: Path) -> tuple[ResolvedDistribution, ...]:
    """The packages of a ``pylock.toml`` (*text*; relative paths are relative to *base*),
    sorted by name. Raises :class:`LockFileError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockFileError(f"not TOML ({exc})") from None
    version = str(data.get("lock-version", ""))
    if not version.startswith("1."):
        raise LockFileError(f"lock-version {version!r} is not 1.x")
    packages = data.get("packages", [])
    if not isinstance(packages, list):
        raise LockFileError("packages is not an array of tables")
    found = [_package(p, base) for p in packages if isinstance(p, dict)]
    return tuple(sorted(found, key=lambda d: d.name))


def hashed_requirements(resolved: Iterable[ResolvedDistribution]) -> tuple[list[str], bool]:
    """Requirement lines that install exactly *resolved* (``name==version --hash=sha256:…``,
    a local file as ``name @ file:///…``), and whether every line has a hash (then the
    installer is told to require them)."""
    lines, hashed = [], True
    for item in resolved:
        if item.path is not None:
            line = f"{item.name} @ {Path(item.path).resolve().as_uri()}"
        else:
            line = f"{item.name}=={item.version}"
        if item.sha256 is not None:
            line += f" --hash=sha256:{item.sha256}"
        else:
            hashed = False
        lines.append(line)
    return lines, hashed


def _package(table: Mapping[str, object], base: Path) -> ResolvedDistribution:
    try:
        name = str(canonicalize_name(str(table["name"])))
    except KeyError:
        raise LockFileError("a package without a name") from None
    version = str(table.get("version") or "")
    index = _text(table.get("index"))
    given = table.get("wheels")
    wheels = [w for w in given if isinstance(w, dict)] if isinstance(given, list) else []
    artifacts = (table.get(key) for key in ("archive", "sdist"))
    built = next((a for a in artifacts if isinstance(a, dict)), None)
    if wheels:
        chosen = most_specific(wheels, _wheel_name)
        # (none of its wheels installs here, a lock made elsewhere: its sdist builds)
        if built is None or _rank(_wheel_name(chosen)) < len(_tag_ranks()):
            return _artifact(name, version, chosen, base, index)
    if built is not None:
        return _artifact(name, version, built, base, index)
    directory = table.get("directory")
    if isinstance(directory, dict):
        path = _text(directory.get("path"))
        return ResolvedDistribution(
            name, version, path=None if path is None else _local(path, base), index=index
        )
    return ResolvedDistribution(name, version, index=index)


def _artifact(
    name: str, version: str, artifact: Mapping[str, object], base: Path, index: str | None
) -> ResolvedDistribution:
    url, path = _text(artifact.get("url")), _text(artifact.get("path"))
    hashes = artifact.get("hashes")
    sha = _text(hashes.get("sha256")) if isinstance(hashes, dict) else None
    file = _text(artifact.get("name"))
    if url is not None and url.startswith("file:"):
        path, url = unquote(urlsplit(url).path), None
    if file is None:
        source = url or path or ""
        file = os.path.basename(urlsplit(source).path if url else source) or None
    return ResolvedDistribution(
        name=name,
        version=version,
        file=file,
        sha256=sha,
        url=None if url is None else redact(url),
        path=None if path is None else _local(path, base),
        index=None if index is None else redact(index),
    )


def most_specific(items: Sequence[T], file_name: Callable[[T], str]) -> T:
    """The item whose wheel (its *file_name*) this interpreter installs: the one with the most
    specific tag it supports, the first on a tie; the first item when none is a wheel's."""
    if len(items) == 1:  # (an installer's lock for one interpreter: the usual case)
        return items[0]
    return min(items, key=lambda item: _rank(file_name(item)))


def _rank(file_name: str) -> int:
    """The rank of the most specific tag of the wheel *file_name* that this interpreter
    supports (0: its most specific one); ``len(_tag_ranks())`` or more: none, or not a
    wheel's name."""
    ranks = _tag_ranks()
    try:
        tags = parse_wheel_filename(file_name)[3]
    except ValueError:
        return len(ranks) + 1
    return min((ranks.get(str(t), len(ranks)) for t in tags), default=len(ranks))


def _wheel_name(wheel: Mapping[str, object]) -> str:
    source = _text(wheel.get("name")) or _text(wheel.get("url")) or _text(wheel.get("path"))
    return os.path.basename(urlsplit(source or "").path)


@functools.lru_cache(maxsize=1)
def _tag_ranks() -> dict[str, int]:
    """This interpreter's tags, most specific first (a fact of the interpreter: computed once)."""
    return {str(tag): i for i, tag in enumerate(sys_tags())}


def _local(path: str, base: Path) -> str:
    return os.path.normpath(os.path.join(base, path))


def _text(value: object) -> str | None:
    return None if value is None else str(value)
