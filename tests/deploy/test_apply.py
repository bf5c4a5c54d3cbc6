"""Rollback: any failure during the apply step restores config files (unless someone else
changed them since our write), skill directories and the registry, byte for byte. The last
test fails every single filesystem mutation of a representative deploy in turn."""

from __future__ import annotations

import errno
import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

from agenttools_runtime import fs
from agenttools_runtime.deploy import deploy, deployed
from agenttools_runtime.errors import (
    AgentSkillBackupNotRemoved,
    AgentToolsError,
    MCPServerNotRemoved,
)
from tests.helpers.faults import inject
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, server, snapshot, write_skill


class FailOn:
    """An fs observer that raises at the *nth* occurrence of (operation, path)."""

    def __init__(self, operation: str, path: Path, nth: int = 1, action=None) -> None:  # type: ignore[no-untyped-def]
        self.operation, self.path, self.nth, self.action = operation, path, nth, action
        self.seen = 0

    def __call__(self, operation: str, path: Path) -> None:
        if operation == self.operation and (self.path is None or path == self.path):
            self.seen += 1
            if self.seen == self.nth:
                if self.action is not None:
                    self.action()
                raise OSError(errno.EIO, "injected", str(path))


def prepare(home: Path, sources: Path) -> tuple[Path, object]:
    """An existing config with someone else's entry, an earlier deployment sharing a skill,
    and a foreign skill directory the new deploy replaces with --force."""
    config = home / ".claude.json"
    config.write_text('{\n  // comment kept\n  "mcpServers": {"theirs": {"command": "x"}}\n}\n')
    shared = write_skill(sources / "shared")
    deploy("claude-code", bundle("earlier", [shared]))
    write_skill(home / ".claude" / "skills" / "replaced", body="foreign\n")
    tools = bundle(
        "big",
        [shared, inline("replaced", "ours\n"), inline("fresh")],
        [server("first"), server("second")],
    )
    return config, tools


def test_a_failure_writing_the_config_file_restores_everything(
    home: Path, state: Path, sources: Path
) -> None:
    config, tools = prepare(home, sources)
    before = snapshot(home, state)
    # both servers' entries go into the file in one write
    with fs.observe(FailOn("write", config, nth=1)), pytest.raises(OSError, match="injected"):
        deploy("claude-code", tools, overwrite="all")
    assert snapshot(home, state) == before
    assert "// comment kept" in config.read_text()


def test_a_failure_after_the_config_file_restores_its_exact_bytes(
    home: Path, state: Path, sources: Path
) -> None:
    _config, tools = prepare(home, sources)
    before = snapshot(home, state)
    with (
        inject(fail_at_checkpoint="deploy:mcp-written"),
        pytest.raises(OSError, match="injected"),
    ):
        deploy("claude-code", tools, overwrite="all")
    assert snapshot(home, state) == before


def test_a_failure_after_the_skills_restores_the_replaced_directory(
    home: Path, state: Path, sources: Path
) -> None:
    _config, tools = prepare(home, sources)
    before = snapshot(home, state)
    with (
        inject(fail_at_checkpoint="deploy:registry-written"),
        pytest.raises(OSError, match="injected"),
    ):
        deploy("claude-code", tools, overwrite="all")
    assert snapshot(home, state) == before
    assert "foreign" in (home / ".claude" / "skills" / "replaced" / "SKILL.md").read_text()


def test_a_crash_like_interrupt_rolls_back_too(home: Path, state: Path, sources: Path) -> None:
    _config, tools = prepare(home, sources)
    before = snapshot(home, state)

    def interrupt(operation: str, path: Path) -> BaseException:
        return KeyboardInterrupt()

    with (
        inject(fail_at_checkpoint="deploy:skills-written", exception=interrupt),
        pytest.raises(KeyboardInterrupt),
    ):
        deploy("claude-code", tools, overwrite="all")
    assert snapshot(home, state) == before


def test_a_config_file_changed_by_someone_else_is_not_restored(
    home: Path, state: Path, sources: Path
) -> None:
    config, tools = prepare(home, sources)
    skills_before = snapshot(home / ".claude" / "skills", state)

    def someone_edits() -> None:
        data = config.read_text().replace('"theirs"', '"edited-meanwhile": {}, "theirs"')
        config.write_text(data)

    observer = FailOn("checkpoint:deploy:skills-written", None, action=someone_edits)  # type: ignore[arg-type]
    with (
        warnings.catch_warnings(record=True) as caught,
        fs.observe(observer),
        pytest.raises(OSError, match="injected"),
    ):
        warnings.simplefilter("always")
        deploy("claude-code", tools, overwrite="all")
    text = config.read_text()
    assert "edited-meanwhile" in text and "// comment kept" in text  # their change survives
    assert '"first"' not in text and '"second"' not in text  # our entries are taken out
    assert not [w for w in caught if w.category is MCPServerNotRemoved]
    assert snapshot(home / ".claude" / "skills", state) == skills_before


def test_an_entry_edited_by_someone_else_is_left_and_reported_on_rollback(
    home: Path, state: Path, sources: Path
) -> None:
    config, tools = prepare(home, sources)

    def someone_edits_ours() -> None:
        data = config.read_text().replace('"first-mcp"', '"their-own-command"')
        config.write_text(data)

    observer = FailOn("checkpoint:deploy:skills-written", None, action=someone_edits_ours)  # type: ignore[arg-type]
    with (
        fs.observe(observer),
        pytest.warns(MCPServerNotRemoved) as caught,
        pytest.raises(OSError, match="injected"),
    ):
        deploy("claude-code", tools, overwrite="all")
    text = config.read_text()
    assert "their-own-command" in text  # the entry they edited stays, and we say so
    assert '"second"' not in text  # the one still as we wrote it goes
    assert [str(w.message).split('"')[1] for w in caught] == ["first"]


def count_mutations(run) -> int:  # type: ignore[no-untyped-def]
    with inject() as injector:
        run()
    return injector.count


@pytest.mark.parametrize("scenario", ["fresh", "replace"])
def test_every_single_mutation_failure_rolls_back_to_the_exact_prior_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scenario: str
) -> None:
    """Enumerate k: the k-th filesystem mutation of a representative deploy fails. Either the
    deploy raises and every byte under HOME and the state directory is as before, or the
    failure hit the clean-up after the record was published and the deploy succeeded."""
    template = tmp_path / "template"

    def setup(root: Path) -> tuple[Path, Path, object]:
        home, state = root / "home", root / "state"
        home.mkdir(parents=True)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("AGENTTOOLS_HOME", str(state))
        _config, tools = prepare(home, root / "sources")
        if scenario == "replace":  # the new deploy also replaces an existing deployment
            deploy("claude-code", bundle("big", [inline("fresh", "old\n")], [server("first")]))
        return home, state, tools

    home, state, tools = setup(template)
    clean = snapshot(home, state)
    total = count_mutations(lambda: deploy("claude-code", tools, overwrite="all"))
    assert total > 10
    succeeded_at = []
    for k in range(1, total + 1):
        root = tmp_path / f"k{k}"
        shutil.copytree(template, root, symlinks=True)
        shutil.rmtree(root / "home")
        shutil.rmtree(root / "state")
        home, state, tools = setup(root)
        before = snapshot(home, state)
        assert len(before) == len(clean)
        try:
            with warnings.catch_warnings(record=True), inject(fail_at=k):
                # failures in the clean-up after publishing are warnings (backup not removed,
                # replaced deployment not removed completely)
                warnings.simplefilter("always")
                dep = deploy("claude-code", tools, overwrite="all")
        except (OSError, AgentToolsError):  # the injected error, or a writer's wrapping of it
            after = snapshot(home, state)
            assert after == before, f"mutation {k} left changes: {set(after) ^ set(before)}"
        else:
            succeeded_at.append(k)
            # the new deployment stands (a replaced one that could not be removed completely
            # is left with a DeploymentNotRemoved warning, as the spec says)
            assert dep.uuid in [d.uuid for d in deployed()]
            record = json.loads((state / "deployments" / dep.uuid / "deployment.json").read_text())
            assert record["uuid"] == dep.uuid
        shutil.rmtree(root)
    # only failures in the clean-up after publishing the record leave a successful deploy
    assert all(k > total - 12 for k in succeeded_at), succeeded_at
    print(f"{scenario}: {total} mutations, deploy still succeeded for k in {succeeded_at}")
    assert os.path.exists(template)


def test_a_removal_interrupted_at_any_mutation_completes_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removal has no undo: each of its steps is safe to repeat. Fail the k-th mutation of a
    removal, run it again: the end state is the same as an uninterrupted removal."""
    from agenttools_runtime.deploy import remove_deployment
    from agenttools_runtime.errors import DeploymentNotFound

    def setup(root: Path) -> tuple[Path, Path, str]:
        home, state = root / "home", root / "state"
        home.mkdir(parents=True)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("AGENTTOOLS_HOME", str(state))
        config = home / ".claude.json"
        config.write_text('{"mcpServers": {"theirs": {"command": "x"}}}\n')
        shared = write_skill(root / "sources" / "shared")
        deploy("claude-code", bundle("other", [shared]))
        dep = deploy(
            "claude-code",
            bundle("gone", [shared, inline("own")], [server("first"), server("second")]),
        )
        return home, state, dep.uuid

    def outcome(
        root: Path, home: Path, backup_warned: bool = False
    ) -> tuple[dict[str, object], list[str], list[tuple[str, int]]]:
        files = {
            p.replace(str(root), ""): v
            for p, v in snapshot(home).items()
            # a backup that could not be deleted is left, with AgentSkillBackupNotRemoved
            if not (backup_warned and ".agenttools-backup-" in p)
        }
        toolsets = [d.toolset for d in deployed()]
        entries = sorted((e.name, len(e.references)) for e in iter_entries())
        return files, toolsets, entries

    home, _state, uid = setup(tmp_path / "clean")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with inject() as injector:
            remove_deployment(uid)
    expected = outcome(tmp_path / "clean", home)
    assert expected[1] == ["other"] and expected[2] == [("shared", 1)]
    total = injector.count
    assert total >= 5
    for k in range(1, total + 1):
        root = tmp_path / f"k{k}"
        home, _state, uid = setup(root)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with inject(fail_at=k):
                    remove_deployment(uid)
            except (OSError, AgentToolsError):
                pass
            try:
                remove_deployment(uid)
            except DeploymentNotFound:
                pass  # the first run got as far as deleting the record
        warned = any(issubclass(w.category, AgentSkillBackupNotRemoved) for w in caught)
        assert outcome(root, home, warned) == expected, k
        shutil.rmtree(root)


def test_an_undo_that_fails_is_reported_and_the_rest_is_still_undone(
    home: Path, state: Path, sources: Path
) -> None:
    from agenttools_runtime.errors import DeploymentRollbackIncomplete

    config, tools = prepare(home, sources)
    config_before = config.read_bytes()
    failing = {"armed": False}

    def observer(operation: str, path: Path) -> None:
        if operation == "checkpoint:deploy:registry-written":
            failing["armed"] = True
            raise OSError(errno.EIO, "injected", str(path))
        if failing["armed"] and operation == "rmtree" and path.name == "fresh":
            raise OSError(errno.EBUSY, "undo refused", str(path))

    with (
        fs.observe(observer),
        pytest.warns(DeploymentRollbackIncomplete, match='"big" could not be rolled back'),
        pytest.raises(OSError, match="injected"),
    ):
        deploy("claude-code", tools, overwrite="all")
    assert config.read_bytes() == config_before  # the other undo actions still ran
    assert "foreign" in (home / ".claude" / "skills" / "replaced" / "SKILL.md").read_text()
    assert (home / ".claude" / "skills" / "fresh").exists()  # the one undo that failed
