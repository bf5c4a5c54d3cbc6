"""The status table of ``agenttools deployed`` as last computed, kept with the file stats of
everything each row was computed from, so the next ``deployed`` shows it by ``stat`` calls
alone when nothing changed.

``<state>/deployments/.index/status.marshal`` holds, per deployment, its row (client, scope,
bundle, version, status, first finding), its status in full (what ``deployed --json`` shows:
every finding; kept apart, decoded only for ``--json``) and its *depends*: the record file, the config
files, the skill directories and every file and folder in them, the registry entries, the
interpreter, the ``.dist-info`` and its manifest, the directories its distribution was
looked up in (see ``status.py``), each with its stat signature (``lstat``: modification and
change times in ns, size, inode, mode; where a link leads too; None for a path that is
missing). A row is used only while every signature is unchanged; a deployment without a
row, or with a changed path, is computed again (and its row replaced).

The registry entries are looked at through their directory: agenttools writes an entry only
by atomic replacement (``fs.write_bytes_atomic``) and removes it by ``unlink``, and either
changes the directory's signature. So an entry is stored with its directory as its *group*
(when the directory had not changed within ``RACY_NS`` of the computation), and while the
directory's signature is unchanged the entries in it are not looked at one by one (with
1,001 deployments: 1,001 ``lstat`` calls of 4,011, 0.25x ``python -c pass``); when it changed,
each entry's own signature decides, as for any path. (An entry edited in place by hand, not
by agenttools, is not seen until its directory changes.)

The format is ``marshal`` (decoding it is a quarter of what ``json`` takes for 1,001 rows, and
``json`` brings ``re``: together about 0.6x ``python -c pass`` on ``deployed``). It is a cache,
never the only copy of anything: unreadable, of another agenttools version
or another interpreter, it is ignored. It is written by ``deployed`` itself (atomically,
without the lock: two writers leave one complete file; failures are ignored). A row is not
kept when one of its paths changed within ``RACY_NS`` of the computation (a change in the
same clock tick as the read could leave the signature unchanged, as git's "racily clean"
entries), nor when the status came from more than a list of paths can tell (an editable
install's live source, the current interpreter's path).
"""

from __future__ import annotations

import gc
import marshal
import os
import stat
import struct
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools_runtime.paths import StatePaths

# 2: each row with its status in full (for --json); 3: marshal, full apart, registry grouped,
# signatures packed
CACHE_SCHEMA = 3
CACHE_NAME = "status.marshal"
RACY_NS = 2_000_000_000

Signature = bytes | None

# the statuses (status.py computes them), in the order the summary line counts them
OK, OUTDATED, DRIFTED, ORPHANED, BROKEN = "ok", "outdated", "drifted", "orphaned", "broken"
STATUSES = (OK, OUTDATED, DRIFTED, ORPHANED, BROKEN)


class Row(tuple[str, str, str, str, str, str, str, str]):
    """One line of ``deployed``: the deployment's id, when it was made (the order), where it
    went, what it is, and its status with its first finding (and how many more). A tuple, as a
    ``NamedTuple`` is (without importing ``typing``: 0.15x ``python -c pass``)."""

    __slots__ = ()
    FIELDS = ("uuid", "timestamp", "client", "scope", "bundle", "version", "status", "detail")

    def __new__(cls, *fields: str) -> Row:
        if len(fields) != len(cls.FIELDS):
            raise TypeError(f"a row has {len(cls.FIELDS)} fields, not {len(fields)}")
        return tuple.__new__(cls, fields)

    uuid = property(lambda self: self[0])
    timestamp = property(lambda self: self[1])
    client = property(lambda self: self[2])
    scope = property(lambda self: self[3])
    bundle = property(lambda self: self[4])
    version = property(lambda self: self[5])
    status = property(lambda self: self[6])
    detail = property(lambda self: self[7])


def table_order(row: Row) -> tuple[bool, str, str]:
    """The order of the table's rows: by time, the broken (no time) last."""
    return (row.status == BROKEN, row.timestamp, row.uuid)


def cache_file(deployments: str) -> str:
    """The cache of the state whose deployments directory is *deployments*."""
    return os.path.join(deployments, ".index", CACHE_NAME)


def cache_path(state: StatePaths) -> str:
    return cache_file(str(state.deployments))


def cache_key() -> list[str]:
    """What every row also depends on: this agenttools (its client table, its checks, its
    built-in skills) and the interpreter running it."""
    from agenttools_runtime import __version__

    return [str(CACHE_SCHEMA), __version__, sys.prefix]


def signature(path: str) -> Signature:
    """The stat signature of *path*: modification and change times (ns), size, inode and
    mode of its ``lstat``, and for a link, its target's times and inode (-1: no target),
    packed in 64 bytes (None: missing or unreadable). Bytes, not a list of numbers: with
    1,001 deployments the cache holds 4,000 of them, and one object each instead of six
    halves what loading the cache costs."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISLNK(st.st_mode):
        return _pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode, 0, 0, 0)
    try:
        target = os.stat(path)
    except (OSError, ValueError):
        return _pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode, -1, 0, 0)
    return _pack(
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_size,
        st.st_ino,
        st.st_mode,
        target.st_mtime_ns,
        target.st_ctime_ns,
        target.st_ino,
    )


_SIGNATURE = struct.Struct("<qqQQqqqQ")
# the signature of what is not a link: the same bytes (no target: zeros), packed in one call
_PLAIN = struct.Struct("<qqQQq24x")


def _pack(*fields: int) -> bytes:
    try:
        return _SIGNATURE.pack(*fields)
    except struct.error:  # (a number out of range: an inode of more than 64 bits)
        return _SIGNATURE.pack(fields[0], fields[1], 0, 0, 0, 0, 0, 0) + repr(fields).encode()


def changed_ns(sig: bytes) -> int:
    """When what *sig* signs last changed: its modification or change time, the later (and
    for a link, where it leads: a file a link leads to, rewritten while it was read, has
    changed though the link has not)."""
    mtime, ctime = struct.unpack_from("<qq", sig)
    target_mtime, target_ctime = struct.unpack_from("<qq", sig, 40)
    return int(max(mtime, ctime, target_mtime, target_ctime))


class Signatures:
    """Stat signatures taken at most once per path in one run."""

    def __init__(self) -> None:
        self.seen: dict[str, Signature] = {}

    def __call__(self, path: str) -> Signature:
        if path not in self.seen:
            self.seen[path] = signature(path)
        return self.seen[path]


class Cache:
    """The stored cache: ``paths`` (each path with its signature when stored, and the index of
    its group, if any), ``needs`` (uuid → the indexes into ``paths`` its row was computed
    from), ``table`` (the table of every row as printed; "" when not stored) and, decoded on
    first use (the stored table needs neither), the rows (uuid → row) and the full statuses
    (uuid → ``DeploymentStatus.to_json()`` without the uuid)."""

    __slots__ = (
        "_full",
        "_rows",
        "_statuses",
        "_table_rows",
        "grouped",
        "needs",
        "paths",
        "table",
    )  # fmt: skip

    def __init__(
        self,
        paths: list[Any],
        needs: dict[str, list[int]],
        rows: bytes = b"",
        full: bytes = b"",
        table: str = "",
        grouped: bool = False,
    ) -> None:
        self.paths = paths
        self.needs = needs
        self.table = table
        self.grouped = grouped  # the registry entries stored with their directory
        self._rows = rows
        self._full = full
        self._table_rows: dict[str, Any] | None = None
        self._statuses: dict[str, Any] | None = None

    @property
    def rows(self) -> dict[str, Any]:
        """uuid → the row's fields, as stored."""
        if self._table_rows is None:
            self._table_rows = _decoded(self._rows)
        return self._table_rows

    def depends(self, uid: str) -> list[str]:
        return [self.paths[i][0] for i in self.needs[uid]]

    def full(self, uid: str) -> dict[str, Any]:
        """The stored full status of *uid* (without its uuid); ``{}`` when none is."""
        if self._statuses is None:
            self._statuses = _decoded(self._full)
        value = self._statuses.get(uid)
        return value if isinstance(value, dict) else {}

    def status(self, uid: str) -> dict[str, Any]:
        """The full status of a row :func:`fresh_rows` found true, as ``--json`` shows it."""
        return {"uuid": uid, **self.full(uid)}


def _decoded(data: bytes) -> dict[str, Any]:
    try:
        found = marshal.loads(data) if data else {}
    except (EOFError, ValueError, TypeError):
        found = {}
    return found if isinstance(found, dict) else {}


def load(state: StatePaths) -> Cache:
    """The stored cache (empty when there is none, or none usable)."""
    return load_file(cache_path(state))


def load_file(path: str) -> Cache:
    """The cache stored at *path* (empty when there is none, or none usable)."""
    collecting = gc.isenabled()
    # (no cycles in what marshal decodes: the collector's passes over its 10,000 new lists
    # with 1,001 deployments are a sixth of the decoding's time in a new process)
    gc.disable()
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())  # (marshal.load(f) reads in small pieces: 8x slower)
    except (OSError, EOFError, ValueError, TypeError):
        return Cache([], {})
    finally:
        if collecting:
            gc.enable()
    if not isinstance(data, dict) or data.get("key") != cache_key():
        return Cache([], {})
    found, needs = data.get("paths"), data.get("needs")
    rows, full, table = data.get("rows"), data.get("full"), data.get("table")
    if not isinstance(found, list) or not isinstance(needs, dict):
        return Cache([], {})
    if not isinstance(rows, bytes) or not isinstance(full, bytes) or not isinstance(table, str):
        return Cache([], {})
    return Cache(found, needs, rows, full, table, data.get("grouped") is True)


def could_group(cache: Cache, deployments: str) -> bool:
    """Whether *cache* holds registry entries one by one although their directory has not
    changed for ``RACY_NS`` now (it had when the cache was stored): storing it again would
    spare their ``lstat`` calls."""
    if cache.grouped or not cache.needs:
        return False
    sig = signature(os.path.join(deployments, ".skill-registry"))
    return sig is not None and changed_ns(sig) < time.time_ns() - RACY_NS


def fresh_rows(
    cache: Cache, uuids: Iterable[str], signatures: Signatures
) -> tuple[dict[str, Row], list[str]]:
    """The rows of *uuids* that are still true (the signature of every path each was
    computed from unchanged), and the uuids to compute again."""
    held = holding(cache, uuids, signatures)
    rows: dict[str, Row] = {}
    stale: list[str] = []
    for uid in uuids:
        try:
            if uid not in held:
                raise ValueError(uid)
            row = Row(*cache.rows[uid])
            if row.uuid != uid:
                raise ValueError(uid)
        except (TypeError, KeyError, ValueError):
            stale.append(uid)
        else:
            rows[uid] = row
    return rows, stale


def holding(cache: Cache, uuids: Iterable[str], signatures: Signatures) -> set[str]:
    """The uuids of *uuids* whose stored rows are still true: every path each was computed
    from has its signature unchanged. Each path is looked at once, in one pass (with 1,001
    deployments, 3,000 paths: the per-path cost is most of ``deployed``'s own time, so the
    loop is plain and takes the signature itself)."""
    candidates: list[tuple[str, list[int]]] = []
    for uid in uuids:
        needs = cache.needs.get(uid)
        if isinstance(needs, list):
            candidates.append((uid, needs))
    wanted: Iterable[int] = range(len(cache.paths))  # every row's: each path is some row's
    if len(candidates) != len(cache.needs):
        try:
            wanted = {index for _, needs in candidates for index in needs}
        except TypeError:  # (not a list of indexes: a cache written by hand)
            return set()
    changed: set[int] = set()
    paths, seen = cache.paths, signatures.seen
    groups: dict[int, bool] = {}  # a group's index -> its directory unchanged
    lstat, is_link, pack = os.lstat, stat.S_ISLNK, _PLAIN.pack

    def group_holds(group: int) -> bool:
        if group not in groups:
            path, sig = paths[group][:2]
            groups[group] = signatures(path) == sig
        return groups[group]

    for index in wanted:
        try:
            entry = paths[index]
            path, sig = entry[0], entry[1]
            if len(entry) > 2 and group_holds(entry[2]):
                seen[path] = sig  # (as it was: its directory says nothing changed in it)
                continue
            try:
                st = lstat(path)
            except (OSError, ValueError):
                now = None
            else:  # signature(path), the common case inline (a fifth of the loop's time)
                try:
                    if is_link(st.st_mode):
                        raise struct.error(path)
                    now = pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)
                except struct.error:  # a link, or a number out of range
                    now = signature(path)
            seen[path] = now
        except (TypeError, IndexError):
            now, sig = None, True  # (not a stored path: its rows are stale)
        if now != sig:
            changed.add(index)
    return {uid for uid, needs in candidates if changed.isdisjoint(needs)}


def all_unchanged(checks: Iterable[tuple[str, Signature]]) -> bool:
    """Whether each ``(path, signature)`` of *checks* has that :func:`signature` still, the
    common case (not a link) inline: a function call per path is a third of the look's time
    (``cli/recorded.py``, with 300 paths: 0.2 ms of the 0.55 ms)."""
    lstat, is_link, pack = os.lstat, stat.S_ISLNK, _PLAIN.pack
    for path, sig in checks:
        try:
            st = lstat(path)
        except (OSError, ValueError):
            if sig is not None:
                return False
            continue
        now: Signature
        try:
            if is_link(st.st_mode):
                raise struct.error(path)
            now = pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)
        except struct.error:  # a link, or a number out of range
            now = signature(path)
        if now != sig:
            return False
    return True


def unchanged(cache: Cache) -> bool:
    """Whether every path *cache* holds has its stored signature still (a registry entry: its
    directory's, while that is unchanged) — :func:`holding`'s answer when every stored row is
    wanted and nothing changed, without its bookkeeping: it stops at the first change, keeps
    no signature, builds no set (with 1,001 deployments, a fifth of ``deployed``'s own time
    in a new process, whose every allocation is new memory). False: :func:`holding` decides."""
    paths = cache.paths
    groups: dict[int, bool] = {}  # a group's index -> its directory unchanged
    lstat, is_link, pack = os.lstat, stat.S_ISLNK, _PLAIN.pack
    try:
        for entry in paths:
            if len(entry) > 2:
                group = entry[2]
                held = groups.get(group)
                if held is None:
                    directory = paths[group]
                    held = groups[group] = signature(directory[0]) == directory[1]
                if held:
                    continue
            path = entry[0]
            try:
                st = lstat(path)
            except (OSError, ValueError):
                if entry[1] is not None:
                    return False
                continue
            if is_link(st.st_mode):
                if signature(path) != entry[1]:
                    return False
            elif (
                pack(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode) != entry[1]
            ):
                return False
    except (TypeError, IndexError, KeyError, struct.error):  # (not as written: a miss)
        return False
    return True


def store(
    state: StatePaths,
    cache: Cache,
    keep: Iterable[str],
    computed: Iterable[tuple[Row, dict[str, Any], Iterable[str]]],
    signatures: Signatures,
    started_ns: int,
    render: Callable[[list[Row]], str] | None = None,
) -> None:
    """Write the rows of *keep* (uuids whose rows in *cache* were found true in this run)
    and the *computed* rows (each with its full status, ``DeploymentStatus.to_json()``, and
    the paths it depends on) whose paths did not change
    since *started_ns* − ``RACY_NS``, all with the signatures *signatures* took in this run
    (each before what it signs was read); and, with *render*, the table of all of them as
    *render* prints it (in ``table_order``): shown as it is while every row is true and no
    deployment came or went, it spares the next ``deployed`` sorting and formatting (a third
    of its own time with 1,001 deployments). Best effort: nothing is written without a
    deployments directory, and a failure to write is ignored (the next run computes again)."""
    if not os.path.isdir(state.deployments):
        return
    table: dict[str, int] = {}
    found: list[Any] = []
    rows: dict[str, Any] = {}
    needs: dict[str, list[int]] = {}
    limit = started_ns - RACY_NS
    registry = str(state.registry)
    group = _settled(registry, signatures, limit) and signatures(registry) is not None

    def index(path: str) -> int:
        if path not in table:
            table[path] = len(found)
            found.append([path, signatures(path)])
            if group and os.path.dirname(path) == registry:
                found[-1].append(index(registry))
        return table[path]

    statuses: dict[str, Any] = {}
    for uid in keep:
        rows[uid] = list(cache.rows[uid])
        needs[uid] = [index(p) for p in cache.depends(uid)]
        statuses[uid] = cache.full(uid)
    for row, full, paths in computed:
        paths = list(paths)
        if all(_settled(p, signatures, limit) for p in paths):
            rows[row.uuid] = list(row)
            needs[row.uuid] = [index(p) for p in paths]
            statuses[row.uuid] = {k: v for k, v in full.items() if k != "uuid"}  # (its key)
    text = render(sorted((Row(*r) for r in rows.values()), key=table_order)) if render else ""
    try:
        data = marshal.dumps(
            {
                "key": cache_key(),
                "paths": found,
                "needs": needs,
                "rows": marshal.dumps(rows),
                "full": marshal.dumps(statuses),
                "table": text,
                "grouped": group,
            }
        )
    except ValueError:  # (a value marshal cannot hold: nothing is cached)
        return
    from agenttools_runtime import fs  # (the writers' module: not needed to show the rows)

    try:
        fs.mkdir(state.index.parent)
        fs.write_bytes_atomic(state.index.parent / CACHE_NAME, data, durable=False)
    except OSError:
        pass


def _settled(path: str, signatures: Signatures, limit: int) -> bool:
    """Whether *path* last changed before *limit* (a missing path: its folder)."""
    sig = signatures(path)
    if sig is None:  # it may have gone while it was read: its folder says when
        sig = signatures(os.path.dirname(path))
        return sig is None or changed_ns(sig) < limit
    return changed_ns(sig) < limit
