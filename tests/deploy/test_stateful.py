"""A stateful property test of the deployment state (hypothesis ``RuleBasedStateMachine``).

Random sequences of: deploy, ``--upgrade``, ``--force`` and remove of three bundles that
share a skill, to four clients of which three share one skills root (Codex, Goose, Zed:
``~/.agents/skills``) and whose config files are JSON, TOML, YAML; a user editing a deployed
skill, editing their own config entry, writing their own entry under a key a bundle uses
(over nothing, or over a deployment's entry), creating a skill folder of a name a bundle
uses; ``skills install`` and ``uninstall``; a deployment record deleted by hand; and a
process killed (SIGKILL, in a forked child) at a random file system mutation of a deploy,
upgrade, forced deploy or removal, followed by the next command. After every step: records,
registry, index, skill directories and config entries agree; nothing of an interrupted
operation is left; nothing the user wrote or edited has changed, and a user's own config
entry is never lost — it is in its file, or (replaced with ``--force``) in the record of the
deployment that will put it back. At the end, once every deployment is removed, everything
agenttools wrote and nobody edited is gone, and every entry of the user's is back.

Profiles: ``ci`` (the default: a few examples) and ``deep`` (``AGENTTOOLS_STATEFUL=deep``,
for long runs).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from agenttools_runtime import fs
from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.clients import get_client, mcp_config_location
from agenttools_runtime.deploy import deploy, deployed, records, remove_deployment
from agenttools_runtime.deploy.lock import finish_interrupted
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.mcp.install import read_server_entries
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skills.install import install_skills, uninstall_skills
from tests.helpers.state import iter_entries

from .invariants import inconsistencies, orphans

settings.register_profile(
    "ci",
    max_examples=8,
    stateful_step_count=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "deep",
    max_examples=400,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "debug",
    parent=settings.get_profile("ci"),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: report fast
    max_examples=int(os.environ.get("AGENTTOOLS_STATEFUL_EXAMPLES", "30")),
)
PROFILE = os.environ.get("AGENTTOOLS_STATEFUL", "ci")

CLIENTS = ("claude-code", "codex", "goose", "zed")
USER_CONFIGS = {
    "claude-code": '{\n  // mine\n  "mcpServers": {\n    "theirs": {"command": "their-server"}\n  }\n}\n',
    "codex": '# mine\n[mcp_servers.theirs]\ncommand = "their-server"\n',
    "goose": "# mine\nextensions:\n  theirs:\n    cmd: their-server\n    enabled: true\n",
    "zed": '{\n  "context_servers": {\n    "theirs": {"command": "their-server"}\n  }\n}\n',
}
BUNDLES = {
    "alpha": (("a-one", "a-two", "shared"), ("alpha-srv",)),
    "beta": (("b-one", "shared"), ("beta-srv",)),
    "gamma": (("shared", "g-one"), ()),
}


def bundle(name: str, version: int) -> AgentTools:
    skills, servers = BUNDLES[name]
    specs = [
        {
            "name": skill,
            "description": f"Skill {skill}.",
            # the shared skill is the same in every bundle and version: a shared directory
            "body": "Shared.\n" if skill == "shared" else f"{name} version {version}.\n",
        }
        for skill in skills
    ]
    return AgentTools(
        name=name,
        skills=tuple(specs),  # type: ignore[arg-type]
        mcp_servers=tuple(
            # (a command that is there: a deploy checks that each server can start)
            MCPServer(name=s, command=sys.executable, args=(s, str(version)))
            for s in servers
        ),
    )


def quietly(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


class DeploymentState(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="stateful-"))
        self.home, self.state = self.tmp / "home", self.tmp / "state"
        self.home.mkdir()
        self.saved = {k: os.environ.get(k) for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")}
        os.environ.update(
            HOME=str(self.home), USERPROFILE=str(self.home), AGENTTOOLS_HOME=str(self.state)
        )
        self.user_files: dict[Path, bytes] = {}  # what the user wrote: must stay as it is
        # what a forced deploy replaced of it: kept aside while deployed, back once removed
        self.replaced: dict[Path, bytes] = {}
        self.user_entries: dict[tuple[str, str], Any] = {}
        self.leaked: set[tuple[str, str]] = set()  # entries of records deleted by hand
        self.hand_deleted = False
        for client in CLIENTS:
            config = mcp_config_location(get_client(client))
            config.parent.mkdir(parents=True, exist_ok=True)
            if not config.exists():
                config.write_text(USER_CONFIGS[client])
            self.user_entries[(client, "theirs")] = self._entries(client)["theirs"]
        self.roots = sorted({self._root(c) for c in CLIENTS})

    # -- rules: agenttools ---------------------------------------------------------------

    @rule(name=st.sampled_from(sorted(BUNDLES)), client=st.sampled_from(CLIENTS))
    def deploy_bundle(self, name: str, client: str) -> None:
        self._guarded(lambda: quietly(deploy, client, bundle(name, 1)))
        self.hand_deleted = False  # it swept what the hand deletion left

    @rule(
        name=st.sampled_from(sorted(BUNDLES)),
        client=st.sampled_from(CLIENTS),
        version=st.integers(1, 2),
    )
    def upgrade_bundle(self, name: str, client: str, version: int) -> None:
        self._guarded(lambda: quietly(deploy, client, bundle(name, version), overwrite="upgrade"))
        self.hand_deleted = False

    @rule(name=st.sampled_from(sorted(BUNDLES)), client=st.sampled_from(CLIENTS))
    def force_deploy_bundle(self, name: str, client: str) -> None:
        """``--force``: over the user's entries too (the record keeps them), and over their
        skill folders of the bundle's names (which it replaces)."""
        before = {d.uuid for d in deployed()}
        self._guarded(lambda: quietly(deploy, client, bundle(name, 2), overwrite="all"))
        self._forced(name, client, before)
        self.hand_deleted = False

    @precondition(lambda self: bool(deployed()))
    @rule(pick=st.integers(0, 20))
    def remove(self, pick: int) -> None:
        found = _deployments()
        self._guarded(lambda: quietly(remove_deployment, found[pick % len(found)].uuid))
        self.hand_deleted = False

    @rule(
        operation=st.sampled_from(("deploy", "upgrade", "force", "remove")),
        name=st.sampled_from(sorted(BUNDLES)),
        client=st.sampled_from(CLIENTS),
        kill_at=st.integers(1, 60),
    )
    def killed_then_next_command(
        self, operation: str, name: str, client: str, kill_at: int
    ) -> None:
        """A process dies (SIGKILL) at its *kill_at*-th mutation; the next command finishes or
        rolls back what it started."""
        found = _deployments()
        before = {d.uuid for d in found}
        if operation == "remove" and not found:
            return
        pid = os.fork()
        if pid == 0:  # the child: never returns
            try:
                _run_and_die(operation, name, client, kill_at, found)
            finally:
                os._exit(0)
        _wait(pid)
        quietly(finish_interrupted)
        if operation == "force":
            self._forced(name, client, before)

    # -- rules: the user ---------------------------------------------------------------------

    @precondition(lambda self: any(_skill_dirs(r) for r in self.roots))
    @rule(pick=st.integers(0, 50))
    def user_edits_a_skill(self, pick: int) -> None:
        dirs = [d for r in self.roots for d in _skill_dirs(r)]
        skill = dirs[pick % len(dirs)] / "SKILL.md"
        skill.write_bytes(skill.read_bytes() + b"\nMy note.\n")
        for path in skill.parent.rglob("*"):  # the whole folder is theirs now
            if path.is_file():
                self.user_files[path] = path.read_bytes()

    @rule(client=st.sampled_from(CLIENTS), value=st.sampled_from(("one", "two")))
    def user_edits_their_config_entry(self, client: str, value: str) -> None:
        config = mcp_config_location(get_client(client))
        text = config.read_text()
        for old in ("their-server", "their-server-one", "their-server-two"):
            text = text.replace(f'"{old}"', f'"their-server-{value}"')
            text = text.replace(f"cmd: {old}\n", f"cmd: their-server-{value}\n")
        config.write_text(text)
        self.user_entries[(client, "theirs")] = self._entries(client)["theirs"]

    @rule(
        client=st.sampled_from(CLIENTS),
        key=st.sampled_from(("alpha-srv", "beta-srv")),
        value=st.sampled_from(("one", "two")),
    )
    def user_writes_their_own_entry(self, client: str, key: str, value: str) -> None:
        """The user's own server under a key a bundle writes: over nothing (a later deploy
        must not take it without --force), or over a deployment's entry (an edit: the
        deployment must keep it)."""
        from agenttools_runtime.mcp.entries import container_for
        from agenttools_runtime.mcp.formats import get_format

        target = get_client(client)
        config = mcp_config_location(target)
        fmt = get_format(target.config_format)
        entry = {"command": f"mine-{value}", "args": ["--token", "s3cret"]}
        if client == "goose":
            entry = {"name": key, "cmd": f"mine-{value}", "enabled": True}
        text, _ = fmt.set_entry(config.read_text(), container_for(target, config), key, entry, {})
        config.write_text(text)
        self.user_entries[(client, key)] = self._entries(client)[key]
        self.leaked.discard((client, key))

    @rule(
        root=st.sampled_from((0, 1, 2)), name=st.sampled_from(("a-one", "b-one", "g-one", "mine"))
    )
    def user_creates_a_skill(self, root: int, name: str) -> None:
        directory = self.roots[root % len(self.roots)] / name
        if os.path.lexists(directory):
            return
        directory.mkdir(parents=True)
        path = directory / "SKILL.md"
        path.write_text(f"---\nname: {name}\ndescription: The user's.\n---\n\nTheirs.\n")
        self.user_files[path] = path.read_bytes()

    @rule(root=st.sampled_from((0, 1, 2)), name=st.sampled_from(("u-one", "u-two")))
    def skills_install(self, root: int, name: str) -> None:
        source = self.tmp / "sources" / name
        source.mkdir(parents=True, exist_ok=True)
        (source / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Low level.\n---\n\nU.\n")
        target = self.roots[root % len(self.roots)]
        self._guarded(lambda: quietly(install_skills, target, source))
        installed = target / name / "SKILL.md"
        if installed.exists():
            self.user_files[installed] = installed.read_bytes()

    @rule(root=st.sampled_from((0, 1, 2)), name=st.sampled_from(("u-one", "u-two")))
    def skills_uninstall(self, root: int, name: str) -> None:
        target = self.roots[root % len(self.roots)]
        quietly(uninstall_skills, target, name)
        self.user_files.pop(target / name / "SKILL.md", None)

    @precondition(lambda self: bool(deployed()))
    @rule(pick=st.integers(0, 20))
    def user_deletes_a_record_by_hand(self, pick: int) -> None:
        found = _deployments()
        victim = found[pick % len(found)]
        for server in victim.record.mcp_servers:
            self.leaked.add((victim.client, server.config_key))
            if server.origin is not None:  # the user's entry it held goes with it, by hand
                self.user_entries.pop((victim.client, server.config_key), None)
        shutil.rmtree(records.record_dir(victim.uuid, self.state / "deployments"))
        self.hand_deleted = True

    # -- invariants ----------------------------------------------------------------------

    @invariant()
    def state_is_consistent(self) -> None:
        problems = inconsistencies(self.state)
        if self.hand_deleted:  # until the next command notices and sweeps
            expected = ("without a record", "no references", "state index")
            problems = [p for p in problems if not any(e in p for e in expected)]
        assert problems == []
        assert orphans(self.home, self.state) == []

    @invariant()
    def nothing_of_the_user_changed(self) -> None:
        for path, data in self.user_files.items():
            assert path.read_bytes() == data, path
        for (client, key), value in self.user_entries.items():
            # a user's own entry is never lost: in its file, or replaced with --force and
            # kept by the deployment that did it (its removal puts it back)
            if _same(self._entries(client).get(key), value):
                continue
            kept = [
                s.origin.value
                for d in deployed()
                for s in d.record.mcp_servers
                if d.client == client and s.config_key == key and s.origin is not None
            ]
            assert any(_same(v, value) for v in kept), (client, key)

    def teardown(self) -> None:
        from agenttools_runtime.deploy.doctor import diagnose

        try:
            quietly(finish_interrupted)
            if self.hand_deleted:  # no command ran since: doctor sweeps what it left
                assert quietly(diagnose, fix=True).ok
            for deployment in deployed():
                quietly(remove_deployment, deployment.uuid)
            assert list(iter_entries()) == []
            assert orphans(self.home, self.state) == []
            self.nothing_of_the_user_changed()
            self._given_back()
            for root in self.roots:  # only the user's skill folders are left
                for directory in _skill_dirs(root):
                    assert any(p.parent == directory for p in self.user_files), directory
            for client in CLIENTS:  # only the user's entries (and those whose record went)
                for key in self._entries(client):
                    assert (client, key) in self.user_entries or (client, key) in self.leaked
        finally:
            for key, value in self.saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers -------------------------------------------------------------------------

    def _guarded(self, action: Any) -> None:
        """Run an operation; an expected failure must change nothing."""
        from .invariants import snapshot

        lock = str(self.state / "deployments" / ".lock")
        before = snapshot(self.home, self.state)
        try:
            action()
        except AgentToolsError:
            if self.hand_deleted:
                return  # the sweep that cleans up after the hand may have run first
            after = snapshot(self.home, self.state)
            # the lock file (and the directory holding it) are not changes, nor is anything in
            # the index's directory (derived data: the index a sweep it asked for may rebuild
            # before the failure, the status cache) or the directory itself
            derived = str(self.state / "deployments" / ".index")
            for path in (lock, str(self.state / "deployments"), str(self.state)):
                before.pop(path, None), after.pop(path, None)
            for snap in (before, after):
                for path in [p for p in snap if p == derived or p.startswith(derived + "/")]:
                    del snap[path]
            assert after == before

    def _forced(self, name: str, client: str, before: set[str]) -> None:
        """A forced deploy of *name* that went through (a deployment that was not among the
        ids *before*) has replaced the user's skill folders of the bundle's names wherever it
        put them: in the client's own root, or in another root the client reads where the
        copy it uses is (Goose uses a Claude Code copy in ``~/.claude/skills``): they are no
        longer the user's to keep."""
        made = [
            d
            for d in deployed()
            if d.client == client and d.toolset == name and d.uuid not in before
        ]
        if not made:
            return  # refused, or rolled back: everything of the user's must be as it was
        taken = {Path(s.directory) for d in made for s in d.record.installed}
        for path in [p for p in self.user_files if p.parent in taken]:
            self.replaced[path] = self.user_files.pop(path)

    def _given_back(self) -> None:
        """Everything removed: what forced deploys replaced of the user's is back where it
        was — or, where something of theirs is there instead (a deployed folder they changed
        since, the first of two replaced), kept beside the skills root, byte for byte."""
        for path, data in self.replaced.items():
            if path.is_file():  # (the user's: put back, or a deployed one they changed)
                self.user_files.setdefault(path, path.read_bytes())
            if path.is_file() and path.read_bytes() == data:
                continue
            kept = [
                b / path.name
                for root in self.roots
                for b in root.parent.glob(".agenttools-backup-replaced-*")
                if (b / path.name).is_file()
            ]
            assert any(k.read_bytes() == data for k in kept), path

    def _entries(self, client: str) -> dict[str, Any]:
        return read_server_entries(mcp_config_location(get_client(client)), get_client(client))

    def _root(self, client: str) -> Path:
        from agenttools_runtime.clients import skills_location

        return skills_location(get_client(client))


def _deployments() -> list[Any]:
    """The deployments in an order that replays: ``deployed()`` sorts by timestamp (whole
    seconds), then by the random uuid, so two deployments made in one second swap places
    between a run and its replay, and a rule picking the n-th would pick another one."""
    return sorted(deployed(), key=lambda d: (d.client, d.toolset, d.uuid))


def _same(a: Any, b: Any) -> bool:
    from agenttools_runtime.mcp.formats import plain, same_data

    return a is not None and same_data(plain(a), plain(b))


def _skill_dirs(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def _run_and_die(operation: str, name: str, client: str, kill_at: int, found: list[Any]) -> None:
    count = {"n": 0}

    def die(op: str, path: Path) -> None:
        if op.startswith("checkpoint:"):
            return
        count["n"] += 1
        if count["n"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    with fs.observe(die), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if operation == "remove":
                remove_deployment(found[kill_at % len(found)].uuid)
            else:
                level = {"upgrade": "upgrade", "force": "all"}.get(operation, "none")
                deploy(client, bundle(name, 1 if operation == "deploy" else 2), overwrite=level)  # type: ignore[arg-type]
        except AgentToolsError:
            pass


def _wait(pid: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child did not finish")


TestDeploymentState = DeploymentState.TestCase
TestDeploymentState.settings = settings.get_profile(PROFILE)
pytestmark = pytest.mark.slow


def test_forced_deploy_over_a_modified_copy_another_root_holds() -> None:
    """A replay of a failure seen once: Goose reads ``~/.claude/skills`` too, so a forced
    deploy of alpha to Goose (nothing of that name in ``~/.agents/skills``) uses, and
    replaces, Claude Code's copy the user edited. ``--force`` allows that (the same
    deploy with ``--upgrade`` refuses with ``AgentSkillModified`` naming that folder); the
    model must count the folder as taken, not report the user's edit as lost."""
    machine = DeploymentState()
    try:
        machine.deploy_bundle(name="alpha", client="claude-code")
        edited = machine.home / ".claude" / "skills" / "a-one" / "SKILL.md"
        machine.user_edits_a_skill(pick=0)  # the roots' first folder: claude's a-one
        assert edited in machine.user_files
        machine.upgrade_bundle(name="alpha", client="goose", version=2)  # refused: modified
        assert machine.user_files[edited] == edited.read_bytes()
        machine.force_deploy_bundle(name="alpha", client="goose")
        assert b"alpha version 2." in edited.read_bytes()  # replaced, as --force allows
        machine.state_is_consistent()
        machine.nothing_of_the_user_changed()
    finally:
        machine.teardown()
