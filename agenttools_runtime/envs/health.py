"""What ``doctor`` finds in the managed environments, and what ``doctor --fix`` does about it:

``unused``
    a complete environment no deployment uses — removed;
``incomplete``
    a directory without a receipt that can be read and no operation in progress (what a
    failure left) — removed when nothing uses it;
``interpreter gone``
    the environment's interpreter no longer runs (its Python was upgraded or removed) —
    rebuilt from its receipt at its own path;
``receipt mismatch``
    the distributions installed are not the ones the receipt lists (something was installed
    into it or taken out) — rebuilt from its receipt;
``trash``
    what an interrupted removal left — deleted;
``unusable environments directory``
    something else than a directory at ``<state>/envs`` itself (a file, a named pipe, a link
    to nothing: not agenttools'), so every command that makes or changes an environment
    stops on it and nothing else can be looked at — moved to ``<state>/envs-set-aside/envs``,
    never over anything there (nor into something else than a directory there);
``unusable journal directory``
    something else than a directory where the journals go (a file, a named pipe, a link to
    nothing: not agenttools'), so every command that changes an environment stops on it —
    moved to ``.journal-set-aside/.journal``, never over anything there (nor into something
    else than a directory at ``.journal-set-aside``);
``unreadable journal``
    a journal that cannot be read (nothing is done from it; the environments it names are
    kept) — moved to ``.journal-set-aside/`` (while something else than a directory is
    there: reported, for the user to move away);
``set-aside journal``
    one moved there — reported until the user deletes it (it keeps those environments).

The environments an operation in progress (or a journal that cannot be read) names are not
looked at: nothing of them is removed.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from agenttools_runtime.deploy.journal import (
    directory_problem_detail,
    not_set_aside_detail,
    set_aside_unusable_directory,
)
from agenttools_runtime.envs import journal, layout, provision
from agenttools_runtime.envs.layout import ManagedEnvironment
from agenttools_runtime.envs.receipt import VENV
from agenttools_runtime.envs.refs import empty_trash, references, remove_environment
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.state_directories import (
    directory_problem,
    directory_set_aside,
    set_aside_problem,
)

UNUSED = "unused"
INCOMPLETE = "incomplete"
INTERPRETER_GONE = "interpreter gone"
MISMATCH = "receipt mismatch"
TRASH = "trash"
UNREADABLE_JOURNAL, SET_ASIDE_JOURNAL = "unreadable journal", "set-aside journal"
JOURNAL_DIRECTORY = "unusable journal directory"
ENVIRONMENTS_DIRECTORY = "unusable environments directory"


@dataclass(frozen=True, slots=True)
class EnvironmentFinding:
    """One problem of one environment: ``kind`` (see the module docstring), ``path``,
    ``message``, and whether ``--fix`` can repair it (``fixable``)."""

    kind: str
    path: Path
    message: str
    fixable: bool

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "path": str(self.path)}


def check() -> list[EnvironmentFinding]:
    """Every finding (nothing is changed)."""
    root = layout.envs_dir()
    what = directory_problem(root)
    if what is not None:  # (everything else would be in it)
        return [_directory_finding(ENVIRONMENTS_DIRECTORY, root, what, "managed environments")]
    refs = references()
    busy = journal.busy()
    found = []
    for env in layout.environments():
        finding = None if env.name in busy else _finding(env, refs.used(env.name))
        if finding is not None:
            found.append(finding)
    for entry in layout.trash_entries():
        found.append(EnvironmentFinding(TRASH, entry, f"{entry} is left from a removal", True))
    directory = journal.journal_dir()
    what = directory_problem(directory)
    if what is not None:
        found.append(_directory_finding(JOURNAL_DIRECTORY, directory, what, "journals"))
    blocked = set_aside_problem(journal.set_aside_dir())
    for item in journal.pending():
        if isinstance(item, journal.Unreadable):
            message = (
                f"the journal {item.path} cannot be read ({item.reason}): nothing is done "
                f"from it, and {journal.what_it_keeps(item.path)}; "
            )
            message += "--fix sets it aside" if blocked is None else not_set_aside_detail(blocked)
            finding = EnvironmentFinding(UNREADABLE_JOURNAL, item.path, message, blocked is None)
            found.append(finding)
    for path in journal.set_aside_journals():
        message = (
            f"the journal {path} could not be read and was set aside by 'agenttools doctor "
            f"--fix'; nothing was done from it, and {journal.what_it_keeps(path)}: look at "
            "it, then delete it"
        )
        found.append(EnvironmentFinding(SET_ASIDE_JOURNAL, path, message, False))
    return found


def _directory_finding(kind: str, directory: Path, what: str, holding: str) -> EnvironmentFinding:
    """Something else than a directory where agenttools' *holding* go: set aside by --fix,
    unless something is where it would go, or something else than a directory is where
    that is (``<name>-set-aside``)."""
    detail = directory_problem_detail(what, f"agenttools' {holding}", "the managed environments")
    message = f"{directory} {detail}"
    target = directory_set_aside(directory)
    blocked = set_aside_problem(target.parent)
    if blocked is not None:
        message += f"; {not_set_aside_detail(blocked)}"
        return EnvironmentFinding(kind, directory, message, False)
    if os.path.lexists(target):
        return EnvironmentFinding(kind, directory, f"{message}; move it away", False)
    return EnvironmentFinding(kind, directory, f"{message}: --fix sets it aside", True)


def _finding(env: ManagedEnvironment, used: bool) -> EnvironmentFinding | None:
    name = env.name
    if env.receipt is None:
        kept = "; deployments use it, so it is kept" if used else ""
        message = f"the managed environment {name} is incomplete ({env.problem}){kept}"
        return EnvironmentFinding(INCOMPLETE, env.path, message, not used)
    if not used:
        message = f"no deployment uses the managed environment {name}"
        return EnvironmentFinding(UNUSED, env.path, message, True)
    if env.receipt.layout != VENV:
        return None
    if not env.python.exists():
        message = (
            f"the interpreter of the managed environment {name} is gone "
            f"({env.python} -> {_target(env.python)})"
        )
        return EnvironmentFinding(INTERPRETER_GONE, env.path, message, True)
    difference = mismatch(env)
    if difference:
        message = f"the managed environment {name} does not hold what its receipt lists: "
        return EnvironmentFinding(MISMATCH, env.path, message + difference, True)
    return None


def fix(findings: list[EnvironmentFinding]) -> list[tuple[EnvironmentFinding, str]]:
    """Repair each fixable finding (environments lock held); ``(finding, what was done)``
    per finding, the error's message when it could not be done."""
    done: list[tuple[EnvironmentFinding, str]] = []
    for finding in findings:
        if not finding.fixable:
            continue
        try:
            if finding.kind in (UNUSED, INCOMPLETE):
                remove_environment(finding.path)
                done.append((finding, "removed"))
            elif finding.kind in (INTERPRETER_GONE, MISMATCH):
                provision.rebuild(layout.load(finding.path))
                done.append((finding, "rebuilt from its receipt"))
            elif finding.kind == TRASH:
                empty_trash()
                done.append((finding, "deleted"))
            elif finding.kind in (JOURNAL_DIRECTORY, ENVIRONMENTS_DIRECTORY):
                moved = set_aside_unusable_directory(finding.path)
                done.append((finding, f"set aside as {moved}"))
            elif finding.kind == UNREADABLE_JOURNAL:
                moved = journal.set_aside(finding.path)
                done.append((finding, f"set aside as {moved}"))
        except (AgentToolsError, OSError) as exc:
            done.append((finding, f"not fixed: {exc}"))
    return done


def installed(env: ManagedEnvironment) -> dict[str, str]:
    """``{normalized name: version}`` of the distributions in *env*'s site-packages."""
    found: dict[str, str] = {}
    try:
        entries = os.listdir(env.site_packages)
    except OSError:
        return found
    for name in entries:
        if not name.endswith(".dist-info"):
            continue
        project, _, version = name[: -len(".dist-info")].rpartition("-")
        if project:
            found[str(canonicalize_name(project))] = _normal(version)
    return found


def mismatch(env: ManagedEnvironment) -> str:
    """What differs between *env*'s receipt and what it holds ("" when nothing)."""
    assert env.receipt is not None
    wanted = {d.name: _normal(d.version) for d in env.receipt.resolved}
    have = installed(env)
    parts = []
    for name in sorted(set(wanted) | set(have)):
        if name not in have:
            parts.append(f"{name} {wanted[name]} missing")
        elif name not in wanted:
            parts.append(f"{name} {have[name]} not in the receipt")
        elif wanted[name] != have[name]:
            parts.append(f"{name} {have[name]} instead of {wanted[name]}")
    return ", ".join(parts)


def _normal(version: str) -> str:
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def _target(python: Path) -> str:
    try:
        return os.readlink(python)
    except OSError:
        return "missing"
