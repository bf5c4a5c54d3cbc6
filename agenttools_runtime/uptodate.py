"""The answer to a ``deploy`` that would change nothing, given without the deploy engine: a
ticket the engine's last identical answer left, checked by ``stat`` calls alone.

When ``agenttools deploy`` finds the same tools already deployed there with the same content
("already deployed ..., up to date"), it leaves a *ticket* beside the state index
(``<state>/deployments/.index/uptodate-<digest>``): the command line as parsed, what else the
answer depended on (agenttools' version, the interpreter and its path, the working directory,
the environment, as one digest), the output it printed, and the stat signature of every path
the answer was computed from (:mod:`agenttools_runtime.deploy.noop_inputs` lists them: the
records, registry entries, index and journal directory; the config files; the skills roots the
client and every other client read there, each deployed skill folder and every file and
folder in it; the ``.dist-info`` and every file in it; the directories the distribution was
looked up in). The next run of the same command line in the same context, before importing
the engine, compares those signatures (:func:`answer`); when every one is unchanged and no
journal is left, the answer is the same and is printed again. Any changed or missing path,
any option the ticket does not cover, an unreadable ticket: ``None``, and the engine decides
(it stays the only writer, and writes a new ticket when it again finds nothing to do).

The bet is the one the skill registry, the status cache and the verified-files cache make:
a file whose size, modification and change times, inode and mode are unchanged has not
changed (every write changes the change time, which no program can set back). Tickets are
written only when every path last changed well before the engine started (``RACY_NS``, as
git's "racily clean" entries), so a change made while the engine read is never hidden.

This module imports only what the interpreter has loaded at start-up (``os``, ``sys``,
``marshal``; ``_sha256`` for the digest): it is the whole cost of an identical redeploy.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

SCHEMA = 1
PREFIX = "uptodate-"  # the tickets' names in <state>/deployments/.index/
KEEP = 16  # tickets kept (the most recently written)
TEMP_PREFIX = ".agenttools-"  # (fs.TEMP_MARK: the names of backups and staging copies)

# the options a ticket may cover: value options (``--path`` repeatable) and flags; anything
# else (``--force``, ``--dry-run``, ``--link``, ``--python``, several clients, an
# abbreviation, ``--``) is the engine's to decide
VALUE_OPTIONS = ("--path", "--project", "--config", "--skills-dir", "--runner", "--name")
FLAGS = ("--upgrade", "--json", "--no-skills")
# environment variables that differ between two runs of the same command in one shell
VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})

Signature = list[int] | None


class Answer:
    """What the engine printed on stdout for this command line, and its exit status."""

    __slots__ = ("output", "status")

    def __init__(self, output: str, status: int) -> None:
        self.output = output
        self.status = status


def command(words: Sequence[str]) -> tuple[object, ...] | None:
    """``deploy``'s arguments (*words*, after the command) in the form a ticket keys them:
    ``(target, tools, upgrade, json, no_skills, paths, project, config, skills_dir, runner,
    name)``; None for a line with anything else (which argparse then reads)."""
    values: dict[str, str | None] = dict.fromkeys(VALUE_OPTIONS)
    flags = dict.fromkeys(FLAGS, False)
    paths: list[str] = []
    positionals: list[str] = []
    last = -2  # the index of the last positional word
    i = 0
    while i < len(words):
        word = words[i]
        if word in flags:
            flags[word] = True
        elif not word.startswith("-"):
            # (argparse takes TARGET and TOOLS from one run of words: an option between
            # them makes TOOLS an unrecognized argument)
            if positionals and last != i - 1:
                return None
            positionals.append(word)
            last = i
        else:
            option, equals, value = word.partition("=")
            if option not in values:
                return None
            if not equals:
                i += 1
                value = words[i] if i < len(words) else ""
                if value.startswith("-"):
                    return None
            if not value:
                return None  # (an empty value is a usage error)
            if option == "--path":
                paths.append(value)
            else:
                values[option] = value
        i += 1
    if not positionals or len(positionals) > 2:
        return None
    return command_key(
        positionals[0],
        positionals[1] if len(positionals) == 2 else None,
        "upgrade" if flags["--upgrade"] else "none",
        flags["--json"],
        flags["--no-skills"],
        paths,
        *(values[o] for o in VALUE_OPTIONS[1:]),
    )


def command_key(
    target: str | None,
    tools: str | None,
    overwrite: str,
    as_json: bool,
    no_skills: bool,
    paths: Sequence[str] | None,
    project: str | None,
    config: str | None,
    skills_dir: str | None,
    runner: str | None,
    name: str | None,
) -> tuple[object, ...] | None:
    """The key of a parsed ``deploy`` line (as argparse sets its destinations); None for what
    no ticket covers: several clients, the built-in bundle (no TOOLS: its files are
    agenttools' own), ``--force``."""
    if not target or "," in target or not tools or overwrite not in ("none", "upgrade"):
        return None
    return (target, tools, overwrite, as_json, no_skills, tuple(paths or ()), project, config,
            skills_dir, runner, name)  # fmt: skip


def digest(key: tuple[object, ...]) -> str:
    """The digest of *key* and of everything else an answer depends on that is not a path:
    this agenttools, the interpreter and its module path, the working directory and the
    environment (hashed: a ticket holds no variable's value)."""
    from agenttools_runtime import __version__

    environment = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE)
    context = (
        SCHEMA,
        key,
        __version__,
        sys.executable,
        sys.prefix,
        sys.version,
        sys.path,
        os.getcwd(),
        environment,
    )
    return str(_sha256()(repr(context).encode("utf-8", "surrogatepass")).hexdigest())


def _sha256() -> Any:
    """SHA-256 from the interpreter's own module (3.11: ``_sha256``, 3.12+: ``_sha2``):
    ``hashlib`` loads OpenSSL, a tenth of this path's cost."""
    for name in ("_sha256", "_sha2"):
        try:
            return __import__(name).sha256
        except (ImportError, AttributeError):
            continue
    import hashlib

    return hashlib.sha256


def state_deployments() -> str | None:
    """The deployments directory as :func:`agenttools_runtime.paths.deployments_dir` has it,
    without importing ``platformdirs`` (a third of this path's cost); None where its rule is
    not the plain one (Windows), which then takes the engine."""
    override = os.environ.get("AGENTTOOLS_HOME")
    if override:
        base = os.path.expanduser(override)
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Application Support/agenttools")
    elif os.name == "posix":
        data = os.environ.get("XDG_DATA_HOME", "").strip()
        base = os.path.join(data or os.path.expanduser("~/.local/share"), "agenttools")
    else:
        return None
    return os.path.join(base, "deployments")


def ticket_path(deployments: str, key_digest: str) -> str:
    return os.path.join(deployments, ".index", PREFIX + key_digest[:24])


def signature(path: str) -> Signature:
    """The stat signature of *path* (as ``status_cache.signature``; None: missing)."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    found = [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode]
    if st.st_mode & 0o170000 == 0o120000:  # a link: where it leads too
        try:
            target = os.stat(path)
        except (OSError, ValueError):
            found.append(-1)
        else:
            found += [target.st_mtime_ns, target.st_ctime_ns, target.st_ino]
    return found


def answer(words: Sequence[str]) -> Answer | None:
    """The answer the engine gave to this ``deploy`` command line when nothing it depended on
    has changed since; None whenever that is not certain."""
    key = command(words)
    deployments = state_deployments()
    if key is None or deployments is None:
        return None
    key_digest = digest(key)
    try:
        with open(ticket_path(deployments, key_digest), "rb") as f:
            ticket = marshal.loads(f.read())
        schema, stored, output, status, journals, clean, depends = ticket
        if schema != SCHEMA or stored != key_digest or _journals_left(journals):
            return None  # (an unfinished journal: the engine finishes it first)
        if any(map(_left_behind, clean)):
            return None  # (what an interrupted write left: the engine reports it)
        if not isinstance(output, str) or not isinstance(status, int):
            return None
        for path, sig in depends:
            if signature(path) != sig:
                return None
    except (OSError, ValueError, EOFError, TypeError):
        return None  # none, unreadable, torn, another format: the engine decides
    return Answer(output, status)


def _journals_left(journals: str) -> bool:
    try:
        return bool(os.listdir(journals))
    except FileNotFoundError:
        return False
    except (OSError, ValueError, TypeError):
        return True


def _left_behind(directory: str) -> bool:
    """Whether *directory* holds a backup or staging copy an interrupted write left
    (``.agenttools-backup-*``, ``.agenttools-staging-*``: the engine warns about them)."""
    try:
        return any(name.startswith(TEMP_PREFIX) for name in os.listdir(directory))
    except FileNotFoundError:
        return False
    except (OSError, ValueError, TypeError):
        return True


def write(
    deployments: str,
    words_key: tuple[object, ...],
    output: str,
    status: int,
    depends: Iterable[str],
    clean: Iterable[str],
    started_ns: int,
    racy_ns: int,
) -> bool:
    """Leave the ticket of an answer the engine computed (started at *started_ns*) from the
    paths *depends*, the directories *clean* holding no backup or staging copy: only when
    every path last changed before *started_ns* − *racy_ns* (a missing path: its folder), so
    no change made while the engine read is taken for what it read. Best effort (a ticket
    not written is an answer computed again); returns whether it was written."""
    from agenttools_runtime import fs

    journals = os.path.join(deployments, ".journal")
    signed: dict[str, Signature] = {}
    limit = started_ns - racy_ns
    for path in (journals, *depends):
        if path in signed:
            continue
        sig = signed[path] = signature(path)
        settled = sig if sig is not None else signature(os.path.dirname(path))
        # (times: its own and, for a link, those of where it leads)
        if settled is not None and max(settled[:2] + settled[5:7]) >= limit:
            return False
    clean = sorted(set(clean))
    if any(map(_left_behind, clean)):
        return False
    key_digest = digest(words_key)
    signatures = [[p, s] for p, s in signed.items()]
    data = marshal.dumps((SCHEMA, key_digest, output, status, journals, clean, signatures))
    path = ticket_path(deployments, key_digest)
    from pathlib import Path

    try:
        fs.mkdir(Path(path).parent)
        fs.write_bytes_atomic(Path(path), data, durable=False)
    except OSError:
        return False
    _keep_newest(os.path.dirname(path))
    return True


def _keep_newest(directory: str) -> None:
    """Delete all but the ``KEEP`` most recently written tickets (one per command line and
    context: a new shell's environment is a new context)."""
    from agenttools_runtime import fs

    try:
        with os.scandir(directory) as found:
            tickets = [(e.stat().st_mtime_ns, e.path) for e in found if e.name.startswith(PREFIX)]
    except OSError:
        return
    from pathlib import Path

    for _, old in sorted(tickets, reverse=True)[KEEP:]:
        try:
            fs.unlink(Path(old), missing_ok=True)
        except OSError:
            pass
