"""One reader/writer per config file format, and the one function that edits a file.

A *format* edits text: it finds the entry ``key`` inside a *container* (a key path such as
``("mcpServers",)``, optionally a list of entries matched by ``list_key``), and returns the new
text with that one entry set or removed, everything else byte-for-byte as it was. Formats never
touch the file system; :func:`edit_config_file` does, for every format alike: decode (keeping a
UTF-8 BOM), edit, re-read the file just before writing to catch a concurrent change, and write
atomically through :mod:`agenttools_runtime.fs`.

Install, uninstall and the deploy engine's rollback all go through here.
"""

from __future__ import annotations

import codecs
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from agenttools_runtime import errors, fs, regular_files
from agenttools_runtime.mcp.formats.base import ConfigFormat as ConfigFormat
from agenttools_runtime.mcp.formats.base import Container as Container
from agenttools_runtime.mcp.formats.base import ParseError as ParseError
from agenttools_runtime.mcp.formats.base import StructureError as StructureError
from agenttools_runtime.mcp.formats.base import plain as plain
from agenttools_runtime.mcp.formats.base import same_data as same_data

if TYPE_CHECKING:  # each format module is a ConfigFormat
    from agenttools_runtime.mcp.formats import json_format, toml_format, yaml_format

    _MODULES: tuple[ConfigFormat, ...] = (json_format, toml_format, yaml_format)

R = TypeVar("R")

# format name -> the module that reads and edits it, imported on first use: a command
# that only meets JSON files never loads tomlkit or ruamel.yaml
_FORMAT_MODULES = {
    "json": "agenttools_runtime.mcp.formats.json_format",
    "toml": "agenttools_runtime.mcp.formats.toml_format",
    "yaml": "agenttools_runtime.mcp.formats.yaml_format",
}


def get_format(name: str) -> ConfigFormat:
    """The format module for ``json`` (JSON and JSONC), ``toml`` or ``yaml``: its functions
    are those of :class:`ConfigFormat`."""
    module = _FORMAT_MODULES.get(name)
    if module is None:
        raise ValueError(f"unknown config format {name!r}")
    return cast(ConfigFormat, importlib.import_module(module))


# -- the file layer --------------------------------------------------------------------------

_BOM = codecs.BOM_UTF8


def read_config_text(path: Path) -> tuple[bytes | None, str]:
    """``(raw bytes or None when missing, text without BOM)``. Raises ``ConfigFileUnparseable``
    for a file that is not UTF-8, ``ConfigFileInvalid`` for one that is not a regular file."""
    raw = _read_config_bytes(path)
    if raw is None:
        return None, ""
    text = _decode(path, raw)
    # an empty or whitespace-only file counts as empty (some formats reject a lone tab)
    return raw, "" if text.strip() == "" else text


def read_entries(path: Path, format_name: str, container: Container) -> dict[str, Any]:
    """Every entry of *container* in *path* (empty when the file or container is missing).
    Raises ``ConfigFileUnparseable`` / ``ConfigFileInvalid``."""
    _raw, text = read_config_text(path)
    return _guard(path, lambda: get_format(format_name).read_entries(text, container))


def edit_config_file(
    path: Path, edit: Callable[[str], tuple[str, R]], shared: bool = False
) -> tuple[R, PlannedEdit | None]:
    """Apply *edit* (text → (new text, result)) to *path* and write the result atomically.

    Returns ``(result, the edit written or None)``: its bytes before and after, from which
    what agenttools created is claimed. A missing file counts as empty text; its parent
    directory is created only when something is written. An existing file keeps its permission bits; a
    new one is readable by its owner only (0600: user config files hold servers' tokens),
    unless *shared* (a project's file, meant to be committed and read by the team), which
    gets the usual mode of a new file (0666 minus the umask). The file is re-read just before
    writing; if it changed meanwhile (the running client rewrote it), the edit is redone once
    on the new contents, and ``ConfigFileChanged`` is raised if it changes again. Parse failures raise
    ``ConfigFileUnparseable`` (file, line, column) and nothing is written. A symbolic link
    is followed: the file it points to is edited, the link stays.
    """
    for _attempt in range(2):
        planned = plan_edit(path, edit, shared)
        if not planned.changes:
            return planned.result, None
        if commit_edit(planned):
            return planned.result, planned
    raise errors.ConfigFileChanged(file=path)


@dataclass(frozen=True, slots=True)
class PlannedEdit:
    """An edit computed but not written: the file (its real path), its bytes before (None:
    missing) and after, what the edit returned, and the mode a new file gets."""

    path: Path
    before: bytes | None
    after: bytes
    result: Any
    mode: int | None = None

    @property
    def changes(self) -> bool:
        return self.after != (self.before or b"")  # (a new empty file is no change)


def plan_edit(
    path: Path, edit: Callable[[str], tuple[str, Any]], shared: bool = False
) -> PlannedEdit:
    """Read *path* and compute *edit* on it (see :func:`edit_config_file`); nothing is
    written. Raises ``ConfigFileUnparseable`` / ``ConfigFileInvalid``."""
    # a linked config file (dotfiles kept in a repository) is edited where it lives: replacing
    # the link with a file would cut the user's link and leave the real file stale
    link, path = path, Path(os.path.realpath(path))
    raw, text = read_config_text(path)
    new_text, result = _guard(path, lambda: edit(text))
    if new_text == text:
        return PlannedEdit(path, raw, raw or b"", result)
    if raw is None and os.path.islink(link):
        # a dangling link: creating its target (and the directories above it) would leave
        # a file where the user's link points and nothing says it was not theirs
        raise errors.ConfigFileInvalid(
            file=link,
            reason=f"it is a symbolic link to {os.readlink(link)}, which does not exist; "
            "agenttools does not create the file a link points to (create it, or remove "
            "the link)",
        )
    data = new_text.encode("utf-8")
    if raw is not None and raw.startswith(_BOM):
        data = _BOM + data
    mode = None
    if raw is None:
        mode = 0o666 & ~_umask() if shared else 0o600
    return PlannedEdit(path, raw, data, result, mode)


def commit_edit(planned: PlannedEdit) -> bool:
    """Write a planned edit if the file still has the bytes it was planned on (compare and
    swap: False, nothing written, when someone changed it since; plan again). The write is
    atomic and durable; a missing parent directory is created."""
    fs.checkpoint("mcp-config-reread", planned.path)
    current = _read_config_bytes(planned.path)
    if current != planned.before:
        return False
    if planned.before is None:
        fs.mkdir(planned.path.parent)
    fs.write_bytes_atomic(planned.path, planned.after, planned.mode)
    return True


def _read_config_bytes(path: Path) -> bytes | None:
    """The bytes of a config file, None when it is missing. ``ConfigFileInvalid`` for a
    directory or anything else that is not a regular file (a named pipe would wait forever,
    ``/dev/zero`` never end)."""
    try:
        return regular_files.read_bytes_if_present(path)
    except IsADirectoryError:
        raise errors.ConfigFileInvalid(file=path, reason="it is a directory") from None
    except regular_files.NotRegularFile as exc:
        raise errors.ConfigFileInvalid(file=path, reason=exc.strerror) from None


def _umask() -> int:
    """The process umask, read without changing it where the system allows."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)  # no other way to read it: set and restore at once
    os.umask(current)
    return current


def _decode(path: Path, raw: bytes) -> str:
    body = raw.removeprefix(_BOM)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = body[: exc.start].decode("utf-8")  # the column counts characters, not bytes
        err = ParseError.at("not UTF-8 text", before, len(before))
        raise errors.ConfigFileUnparseable(file=path, reason=err.describe()) from None


def _guard(path: Path, fn: Callable[[], R]) -> R:
    try:
        return fn()
    except ParseError as exc:
        raise errors.ConfigFileUnparseable(
            file=path, reason=exc.describe(), line=exc.line, column=exc.column
        ) from None
    except StructureError as exc:
        raise errors.ConfigFileInvalid(file=path, reason=exc) from None
