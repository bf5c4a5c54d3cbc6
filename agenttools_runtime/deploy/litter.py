"""What agenttools itself created for deployments, and taking it away again once nothing
uses it ("leave no litter").

A deploy creates more than its entries and skill directories: a config file that did not
exist (``.mcp.json`` holding ``{"mcpServers": {}}`` once the entry is gone), the keys it added
to a config file that did (the ``"mcp"`` container of an ``opencode.json``, Continue's
``name``/``version``/``schema``), the directories above them (``.codex/``, ``.claude/skills``).
The deploy lists these *claims* in its record (``created``). After the commit point they go
into the **ledger**, ``<state>/deployments/.created/paths.json`` (under the state lock), which
outlives the records: several deployments use one ``.mcp.json`` or ``~/.agents/skills``, and
whichever of them is removed last must know what agenttools created there.

After every removal (:func:`clean`), each claimed path that the removed deployment used is
looked at, innermost first:

- a config file agenttools created is deleted when it holds nothing but what a new file gets
  (the empty container, required keys): exactly :func:`skeleton` of an empty file;
- keys agenttools added to a user's config file are taken out when the file is exactly the
  text without them plus those keys as agenttools adds them (so an edited container stays);
- a directory agenttools created is removed when it is empty — and only while it is the
  directory agenttools created (same inode): one the user deleted and made again is theirs.

Anything the user touched stays, and its claim with it. A claim whose path is gone is dropped.
Detection (``detection.py``) reads the ledger to tell a client's own traces from paths
only agenttools created.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import fs, jsonform, paths, regular_files
from agenttools_runtime.clients import all_clients
from agenttools_runtime.deploy import shapes
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.mcp import entries
from agenttools_runtime.mcp.formats import (
    Container,
    ParseError,
    PlannedEdit,
    StructureError,
    edit_config_file,
    get_format,
    read_config_text,
)
from agenttools_runtime.mcp.origin import common_ends
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.paths import StatePaths

if TYPE_CHECKING:
    from agenttools_runtime.clients import Client
    from agenttools_runtime.deploy.records import DeploymentRecord
    from agenttools_runtime.mcp.install import ConfigPlan

CREATED = "created"
LEDGER_SCHEMA = 1
FILE, KEYS, DIR = "file", "keys", "dir"
_PROBE_KEY = "agenttools-probe"


@dataclass(frozen=True, slots=True)
class Claim(jsonform.Form):
    """One path agenttools created: a config ``file`` (of ``client``'s format), ``keys`` it
    added to an existing config file (key paths from the document's root; ``restore``: the
    text that was there and the text agenttools leaves in its place, ``("null", "{}")``), or
    a ``dir`` (``inode``: the directory's, once it exists)."""

    WHAT = "a claim"
    kind: str
    path: str
    client: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    keys: tuple[tuple[str, ...], ...] = field(default=(), metadata=jsonform.key(omit=()))
    inode: int | None = field(default=None, metadata=jsonform.OMIT_NONE)
    restore: tuple[str, str] | None = field(default=None, metadata=jsonform.OMIT_NONE)


# -- at deploy time --------------------------------------------------------------------------


def planned_claims(
    config: ConfigPlan | None, client: Client, skills_root: Path | None
) -> list[Claim]:
    """What a deploy is about to create: for its config edit (*config*: the planned edit),
    what :func:`edit_claims` says; for a skills root it writes into (*skills_root*), the
    directories of it that do not exist yet."""
    claims = []
    if config is not None:
        # one entry that was not there: what the edit adds is read from the text it writes
        new = [key for key, (prior, _entry) in config.entries.items() if prior is None]
        new_key = new[0] if len(new) == len(config.entries) == 1 else None
        claims = edit_claims(config.edit, client, new_key=new_key)
    if skills_root is not None:
        claims += [Claim(DIR, str(d)) for d in paths.missing_dirs(skills_root)]
    return claims


def edit_claims(
    edit: PlannedEdit,
    client: Client,
    new_dirs: Iterable[Path] | None = None,
    new_key: str | None = None,
) -> list[Claim]:
    """What writing a first entry with *edit* creates besides the entry: a file that did
    not exist and the directories above it (*new_dirs*, when the edit is written already:
    :func:`~agenttools_runtime.paths.missing_dirs` of its directory before it was); in one
    that did, the keys it adds, and — when writing an entry and removing it again would not
    give back the text byte for byte (a null container, ``[ ]``, an empty or whitespace-only
    file, a container or required keys it adds) — the text to put back
    (:func:`give_back`). *new_key*: the key of the one entry *edit* writes, when the file did
    not hold it; that entry is then the one removed again (from the text written, which the
    edit has parsed already), rather than a probe entry written and removed."""
    if not edit.changes:
        return []
    path = edit.path
    if edit.before is None:
        dirs = paths.missing_dirs(path.parent) if new_dirs is None else new_dirs
        return [Claim(FILE, str(path), client.id)] + [Claim(DIR, str(d)) for d in dirs]
    before = _decoded(edit.before)
    written = None if new_key is None else (_decoded(edit.after), new_key)
    restore = give_back(before, client, path, written)
    if restore is None:  # taking the entry out again gives back the text as it was
        return []
    added = added_keys(before if before.strip() else "", client, path)
    return [Claim(KEYS, str(path), client.id, added, restore=restore)]


def added_keys(text: str, client: Client, config_file: Path) -> tuple[tuple[str, ...], ...]:
    """The key paths that writing a first entry into *text* adds besides the entry: the
    required top-level keys it lacks, and the outermost missing part of the container."""
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    try:
        top = fmt.read_entries(text, Container(()))
        required = entries.required_top_level(client, config_file)
        added: list[tuple[str, ...]] = [(key,) for key in required if not _has(top, key)]
        for depth in range(len(container.path)):
            level = fmt.read_entries(text, Container(container.path[:depth]))
            if not _has(level, container.path[depth]):
                added.append(container.path[: depth + 1])
                break
    except Exception:  # a document of another shape: claim nothing (cleaning stays safe)
        return ()
    return tuple(added)


def give_back(
    text: str, client: Client, config_file: Path, written: tuple[str, str] | None = None
) -> tuple[str, str] | None:
    """When writing an entry into *text* and removing it again leaves another text (a null
    container becomes ``{}``, ``[ ]`` becomes ``[]``, an empty or whitespace-only file a
    document, a missing container or required key is added): the part of *text* that
    differs and what stands there instead, as ``(before, after)`` — with enough of the text
    around them that *after* occurs once in what agenttools leaves — so the last removal
    can put *text* back byte for byte. None when nothing would differ. *written*: ``(the
    text, key)`` of an entry written into *text* already, to remove (see :func:`skeleton`)."""
    try:
        if written is None:
            after = skeleton(text, client, config_file)
        else:
            after = _left(written[0], client, config_file, written[1])
    except Exception:  # a document of another shape: claim nothing (cleaning stays safe)
        return None
    if after == text:
        return None
    if not after:  # all of it goes (a TOML file of blank lines): the whole text comes back
        return text, ""
    head, tail = common_ends(text, after)
    # widen the differing part with the text around it until it is unambiguous (an added
    # "[]" would be found in every empty list), at most a line's worth either way
    for _ in range(_CONTEXT):
        new = after[head : len(after) - tail]
        if new and after.count(new) == 1:
            break
        if head > 0:
            head -= 1
        elif tail > 0:
            tail -= 1
        else:
            break
    old, new = text[head : len(text) - tail], after[head : len(after) - tail]
    return (old, new) if new else None


_CONTEXT = 160  # characters of surrounding text at most, to make a give-back unambiguous


def _restored(text: str, client: Client, config_file: Path, restore: tuple[str, str]) -> str:
    """*text* with the null container put back: the one place where undoing *restore* gives
    a text that agenttools would leave exactly as *text* is; *text* itself if there is none
    (the user changed it since)."""
    old, new = restore
    if not new:  # (the whole text: see give_back)
        return text or old
    at = text.find(new)
    while at >= 0:
        candidate = text[:at] + old + text[at + len(new) :]
        if skeleton(candidate, client, config_file) == text:
            return candidate
        at = text.find(new, at + 1)
    return text


def remember(state: StatePaths, record: DeploymentRecord) -> None:
    """Add a committed deployment's claims to the ledger (idempotent; under the lock). A
    claimed path that does not exist is skipped; a directory is claimed with its inode."""
    try:
        claims = [Claim.from_json(c) for c in shapes.items(record.extra, CREATED, "a record")]
    except ValueError:
        return  # (a record of the wrong shape claims nothing)
    remember_claims(state, claims)


def remember_claims(state: StatePaths, claims: Iterable[Claim]) -> None:
    """:func:`remember` for claims of an edit no record tracks (``mcp install``)."""
    claims = list(claims)
    if not claims:
        return
    ledger = load(state)
    changed = False
    for claim in claims:
        # claimed before: by the first deployment that created it — unless this edit made
        # the file anew (the claim was of a file that is gone since)
        if claim.path in ledger and claim.kind != FILE:
            continue
        try:
            info = os.lstat(claim.path)
        except OSError:
            continue
        if claim.kind == DIR:
            claim = Claim(DIR, claim.path, inode=info.st_ino)
        ledger[claim.path] = claim
        changed = True
    if changed:
        save(state, ledger)


# -- after a removal -------------------------------------------------------------------------


def clean(state: StatePaths, record: DeploymentRecord) -> list[str]:
    """Take away what agenttools created for *record* that nothing uses any more (see the
    module docstring); call under the lock after its entries and skills are gone. Returns the
    paths removed. Failures leave the path (and its claim) for the next removal."""
    files = {str(Path(os.path.realpath(s.config_file))) for s in record.mcp_servers}
    places = [Path(f).parent for f in files]
    if record.skills_directory is not None:
        places.append(Path(os.path.realpath(record.skills_directory)))
    # (a skill may be a copy in another root the client reads, created by another deployment)
    places += [Path(os.path.realpath(os.path.dirname(s.directory))) for s in record.installed]
    return clean_paths(state, files, places)


def clean_config_file(state: StatePaths, config_file: Path) -> list[str]:
    """:func:`clean` for one config file whose entry an edit no record tracks took away
    (``mcp uninstall``): its claim and the claimed directories above it."""
    real = str(Path(os.path.realpath(config_file)))
    return clean_paths(state, {real}, [Path(real).parent])


def clean_paths(state: StatePaths, files: Iterable[str], places: Iterable[Path]) -> list[str]:
    """Take away the claimed config *files* that are back to what agenttools found, and the
    claimed directories among *places* and above them that are empty (see :func:`clean`)."""
    ledger = load(state)
    if not ledger:
        return []
    before = len(ledger)
    removed: list[str] = []
    claimed = [(p, _clean_file) for p in sorted(files) if p in ledger and ledger[p].kind != DIR]
    # (the directories innermost first)
    claimed += [(d, _clean_dir) for d in sorted(_ancestors(places, ledger), key=len, reverse=True)]
    for path, clean_one in claimed:
        outcome = clean_one(ledger[path])
        if outcome is not None:
            del ledger[path]
            if outcome:
                removed.append(path)
    if len(ledger) != before:
        save(state, ledger)
    return removed


def _clean_file(claim: Claim) -> bool | None:
    """True: removed (the file, or the keys); False: gone already; None: kept."""
    path = Path(claim.path)
    client = all_clients().get(claim.client or "")
    if client is None:
        return None
    try:
        raw, text = read_config_text(path)
    except AgentToolsError:
        return None
    if raw is None:
        return False
    try:
        if claim.kind == FILE:
            if text.strip() and text != skeleton("", client, path):
                return None
            fs.unlink(path, missing_ok=True)
            return True
        if claim.restore is not None:
            stripped = _restored(text, client, path, claim.restore)
        else:
            stripped = _without(text, client, claim.keys)
        if stripped == text or skeleton(stripped, client, path) != text:
            return None  # the user changed what we added (or it is not there): theirs now
        # (written only over the very text looked at: a change since is the user's)
        done, _written = edit_config_file(
            path, lambda current: (stripped, True) if current == text else (current, False)
        )
        return True if done else None
    except (AgentToolsError, OSError, ValueError, ParseError, StructureError):
        return None


def _clean_dir(claim: Claim) -> bool | None:
    """True: removed; False: gone, or no longer the directory we created; None: kept."""
    try:
        info = os.lstat(claim.path)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    if claim.inode is not None and info.st_ino != claim.inode:
        return False  # deleted and made again since: not ours
    try:
        with os.scandir(claim.path) as children:
            if any(True for _ in children):
                return None
        fs.rmdir(Path(claim.path))
    except OSError:
        return None
    return True


def skeleton(text: str, client: Client, config_file: Path) -> str:
    """*text* as it is after writing an entry into it and removing that entry again: what
    agenttools leaves of its own writes (the container, the required keys). A text of
    nothing but white space is an empty document, as the file layer reads it."""
    text = text if text.strip() else ""
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    probe = entries.build_entry(client, MCPServer(name=_PROBE_KEY, command="probe"), _PROBE_KEY)
    required = entries.required_top_level(client, config_file)
    text, _ = fmt.set_entry(text, container, _PROBE_KEY, probe, required)
    return _left(text, client, config_file, _PROBE_KEY)


def _left(text: str, client: Client, config_file: Path, key: str) -> str:
    """*text*, which holds the entry *key* agenttools wrote into it, without that entry."""
    container = entries.container_for(client, config_file)
    text, _ = get_format(client.config_format).remove_entry(text, container, key)
    return text


def _without(text: str, client: Client, keys: Iterable[tuple[str, ...]]) -> str:
    fmt = get_format(client.config_format)
    for key in keys:
        text, _ = fmt.remove_entry(text, Container(key[:-1]), key[-1])
    return text


def _ancestors(places: Iterable[Path], ledger: Mapping[str, Claim]) -> set[str]:
    """The claimed directories among *places* and their ancestors."""
    found: set[str] = set()
    for place in places:
        for candidate in (place, *place.parents):
            claim = ledger.get(str(candidate))
            if claim is not None and claim.kind == DIR:
                found.add(str(candidate))
    return found


# -- the ledger ------------------------------------------------------------------------------


def load(state: StatePaths) -> dict[str, Claim]:
    """The ledger (empty when there is none or it cannot be read: then nothing is cleaned,
    which is safe)."""
    try:
        return read(state)
    except (OSError, ValueError, RecursionError):
        return {}


def read(state: StatePaths) -> dict[str, Claim]:
    """The ledger; ``OSError`` / ``ValueError`` when it cannot be read (``doctor`` says so)."""
    raw = regular_files.read_bytes_if_present(state.created)
    if raw is None:
        return {}
    data = shapes.obj(json.loads(raw), "the ledger")
    return {k: Claim.from_json(v) for k, v in shapes.table(data, "paths", "the ledger").items()}


def save(state: StatePaths, ledger: Mapping[str, Claim]) -> None:
    path = state.created
    if not ledger:
        with contextlib.suppress(OSError):
            fs.unlink(path, missing_ok=True)
            fs.rmdir(path.parent)
        return
    data = {"schema": LEDGER_SCHEMA, "paths": {k: c.to_json() for k, c in sorted(ledger.items())}}
    fs.mkdir(path.parent)
    fs.write_bytes_atomic(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))


# -- helpers ---------------------------------------------------------------------------------


def _decoded(raw: bytes) -> str:
    return raw.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace")


def _has(mapping: Any, key: str) -> bool:
    return isinstance(mapping, Mapping) and key in mapping
