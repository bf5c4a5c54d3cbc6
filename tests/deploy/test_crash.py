"""Crash safety: the process dies (``os._exit``, no rollback, no ``finally``) at each named
point of a deploy that replaces an earlier deployment and shares a skill with another one.
Whatever point it died at: no skill that a surviving deployment uses is referenced only by
deployments without a record, nothing a surviving deployment uses is gone, and the next
deploy first finishes or rolls back the dead one (its intent journal says which), then does
its own work; removing everything leaves the user's config entry and nothing of ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deploy, deployed, records, registry
from agenttools_runtime.errors import InterruptedOperationRecovered
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, server, write_skill

REPO = Path(__file__).resolve().parents[2]

CHECKPOINTS = [
    "deploy:locked",
    "deploy:swept",
    "deploy:planned",
    "deploy:journal-written",
    "deploy:mcp-written",
    "deploy:skills-written",
    "deploy:entry-written",
    "deploy:registry-written",
    "deploy:record-written",
    "remove:journal-written",
    "deploy:replaced-removed",
]

CHILD = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, {repo!r})
    from agenttools_runtime import fs
    from agenttools_runtime.deploy import deploy
    from tests.deploy.conftest import bundle, inline, server

    point, after = {point!r}, {after!r}
    seen = {{"armed": False, "count": 0}}

    def die(operation, path):
        if operation == "checkpoint:" + point:
            if not after:
                os._exit(17)
            seen["armed"] = True
        elif seen["armed"] and not operation.startswith("checkpoint:"):
            seen["count"] += 1
            if seen["count"] == after:
                os._exit(17)

    tools = bundle(
        "big",
        [{shared!r}, inline("fresh", "new\\n")],
        [server("first"), server("second")],
    )
    with fs.observe(die):
        deploy("claude-code", tools, overwrite="upgrade")
    os._exit(0)
    """
)


def new_tools(shared: Path) -> object:
    return bundle("big", [shared, inline("fresh", "new\n")], [server("first"), server("second")])


# (checkpoint, n): die there, or at the n-th mutation after it (inside the removal of the
# replaced deployment, which has no undo: every step of it must be safe to cut short)
POINTS = [(point, 0) for point in CHECKPOINTS] + [
    ("deploy:record-written", n) for n in (1, 2, 3, 4)
]


@pytest.mark.parametrize(("point", "after"), POINTS)
def test_a_deploy_killed_at_any_point_leaves_a_consistent_state(
    home: Path, state: Path, sources: Path, point: str, after: int
) -> None:
    config = home / ".claude.json"
    config.write_text('{"mcpServers": {"theirs": {"command": "x"}}}\n')
    shared = write_skill(sources / "shared")
    other = deploy("claude-code", bundle("other", [shared]))
    old = deploy("claude-code", bundle("big", [shared, inline("old-only")], [server("first")]))
    root = home / ".claude" / "skills"
    before = {e.key: e for e in iter_entries()}

    script = CHILD.format(repo=str(REPO), point=point, after=after, shared=str(shared))
    proc = subprocess.run([sys.executable, "-c", script], env=dict(os.environ), timeout=120)
    assert proc.returncode == 17, f"the child did not die at {point}"

    # every entry that a surviving deployment used is still referenced by one with a record
    for key, entry in before.items():
        if all(
            r == old.uuid or records.is_stale(r, state / "deployments") for r in entry.references
        ):
            continue  # only the replaced deployment used it: it was being released
        now = registry.load_entry(key)
        assert now is not None, f"{entry.name} lost its entry at {point}"
        assert any(not records.is_stale(r, state / "deployments") for r in now.references), (
            entry.name,
            point,
        )
        assert (Path(now.directory) / "SKILL.md").exists()
    # every record's config entries are in the (parseable) config file
    servers = json.loads(config.read_text())["mcpServers"]
    assert "theirs" in servers
    for record in records.load_records():
        for entry in record.mcp_servers:
            assert entry.config_key in servers, (entry.config_key, point)
    assert other.uuid in {d.uuid for d in deployed()}

    # the next deploy finishes the job: one "big" deployment, the new one
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new = deploy("claude-code", new_tools(shared), overwrite="upgrade")
    # the journal let the next command finish or roll back what the dead process started:
    # no entry is left that nobody recorded (it would be someone else's: the deploy would
    # fail with MCPServerEntryExists), and it says what it did in one line
    recovered = [w for w in caught if w.category is InterruptedOperationRecovered]
    if point not in ("deploy:locked", "deploy:swept", "deploy:planned", "deploy:replaced-removed"):
        assert recovered, point
    assert sorted(d.toolset for d in deployed()) == ["big", "other"]
    assert old.uuid not in {d.uuid for d in deployed()}
    assert (root / "fresh" / "SKILL.md").read_text().endswith("new\n")
    assert not (root / "old-only").exists()
    # and removing everything leaves the user's entry and nothing of ours
    with warnings.catch_warnings(record=True):  # AgentSkillInUse for the shared skill
        warnings.simplefilter("always")
        new.remove()
        other.remove()
    assert json.loads(config.read_text())["mcpServers"] == {"theirs": {"command": "x"}}
    assert list(iter_entries()) == []
    assert deployed() == []
    left = sorted(p.name for p in root.iterdir()) if root.exists() else []
    assert left == [], (point, left)
    # what agenttools created for them (~/.claude, ~/.claude/skills) went with the last one
    assert not root.parent.exists(), (point, sorted(p.name for p in root.parent.iterdir()))
    assert not state.exists()  # no journal, and no state folder once the last one went
