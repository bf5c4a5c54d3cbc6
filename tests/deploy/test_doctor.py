"""``agenttools doctor``: each kind of finding made for real, then repaired by ``--fix`` only
where the journal, the registry and the records prove it safe."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import warnings
from pathlib import Path

import pytest

from agenttools_runtime import fs
from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deploy, deployed, records
from agenttools_runtime.deploy.doctor import diagnose
from agenttools_runtime.errors import DeploymentNotFinished
from tests.helpers.state import delete_entry, iter_entries

from .conftest import bundle, inline, server
from .invariants import inconsistencies, orphans


def kinds(report: object) -> list[str]:
    return sorted(f.kind for f in report.findings)  # type: ignore[attr-defined]


def test_a_clean_state_has_nothing_to_report(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert diagnose().findings == []
    deploy("cursor", bundle("b", [inline("fine")], [server("srv")]))
    assert diagnose().findings == []
    assert main(["doctor"]) == 0
    assert "No problems found." in capsys.readouterr().out


def test_an_unfinished_journal_is_shown_then_rolled_back_by_fix(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}\n')
    before = (home / ".cursor" / "mcp.json").read_bytes()
    pid = os.fork()
    if pid == 0:  # a deploy killed just after its skills were written

        def die(operation: str, path: Path) -> None:
            if operation == "checkpoint:deploy:skills-written":
                os.kill(os.getpid(), signal.SIGKILL)

        try:
            with fs.observe(die), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                deploy("cursor", bundle("b", [inline("half")], [server("srv")]))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert (home / ".cursor" / "skills" / "half").is_dir()
    report = diagnose()
    assert kinds(report) == ["journal"]
    assert "would be rolled back" in report.findings[0].detail
    assert main(["doctor", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["findings"][0]["kind"] == "journal"
    fixed = diagnose(fix=True)
    assert [f.fixed for f in fixed.findings] == [True] and fixed.ok
    assert "rolled back" in fixed.findings[0].detail
    assert not (home / ".cursor" / "skills" / "half").exists()
    assert (home / ".cursor" / "mcp.json").read_bytes() == before
    assert inconsistencies(state) == [] and orphans(home, state) == []


def test_staging_and_temp_files_are_ours_by_name_and_deleted(home: Path, state: Path) -> None:
    deploy("cursor", bundle("b", [inline("kept")], [server("srv")]))
    root = home / ".cursor" / "skills"
    staging = root.parent / ".agenttools-staging-0123456789abcdef"
    staging.mkdir()
    (staging / "SKILL.md").write_text("half built")
    temp = home / ".cursor" / ".mcp.json.agenttools-x1y2z3.tmp"
    temp.write_text("{")
    theirs = home / ".cursor" / ".mcp.json.tmp"  # someone else's naming: never touched
    theirs.write_text("{")
    assert kinds(diagnose()) == ["staging", "temp-file"]
    assert diagnose(fix=True).ok
    assert not staging.exists() and not temp.exists() and theirs.exists()
    assert (root / "kept" / "SKILL.md").exists()


def test_a_cli_cache_write_killed_half_way_is_a_temp_file_doctor_deletes(
    home: Path, state: Path
) -> None:
    deploy("cursor", bundle("b", [inline("kept")], [server("srv")]))
    cache = state / "cache"
    cache.mkdir(exist_ok=True)
    (cache / "list.marshal").write_bytes(b"kept")  # the cache itself: not a leftover
    temp = cache / ".list.marshal.agenttools-1234.tmp"  # (as earlier versions' caches named it)
    assert temp.parent == cache and fs.is_temp_name(temp.name)
    temp.write_bytes(b"torn")  # what a write killed before its os.replace leaves
    assert kinds(diagnose()) == ["temp-file"]
    assert diagnose(fix=True).ok
    assert not temp.exists() and (cache / "list.marshal").read_bytes() == b"kept"
    assert diagnose().findings == []


def test_the_verified_files_cache_of_an_uninstalled_distribution_is_tidied_by_fix(
    home: Path, state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime import verified

    monkeypatch.setattr(verified, "RACY_NS", 0)  # (the files are written just before)
    deploy("cursor", bundle("b", [inline("kept")], [server("srv")]))  # the state exists
    installed, uninstalled = tmp_path / "kept-1.0.dist-info", tmp_path / "gone-1.0.dist-info"
    for dist_info in (installed, uninstalled):
        (dist_info / "f").mkdir(parents=True)
        (dist_info / "f" / "SKILL.md").write_text("x")
        cache = verified.VerifiedFiles(dist_info, "s")
        cache.add("SKILL.md", os.stat(dist_info / "f" / "SKILL.md"), "0" * 64)
        cache.save()
    kept_file = Path(verified.VerifiedFiles(installed, "s").path)
    gone_file = Path(verified.VerifiedFiles(uninstalled, "s").path)
    legacy = kept_file.parent / ("0" * 32 + ".json")  # written before caches said whose
    legacy.write_text('{"files":{}}')
    shutil.rmtree(uninstalled)  # pip uninstall: agenttools is not asked
    assert diagnose().findings == []  # a cache is not a problem
    report = diagnose(fix=True)
    assert report.ok and kinds(report) == ["stale-cache", "stale-cache"]
    assert kept_file.exists() and not gone_file.exists() and not legacy.exists()
    assert verified.VerifiedFiles(installed, "s").files  # still serves the installed one
    assert diagnose(fix=True).findings == []


def test_a_backup_is_deleted_only_when_provably_redundant(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("ours")]))
    root = home / ".cursor" / "skills"
    # an exact copy of a directory agenttools wrote and that still holds it: redundant
    redundant = root.parent / ".agenttools-backup-aaaa"
    shutil.copytree(root / "ours", redundant)
    # something nobody accounts for: maybe the user's only copy of a skill
    unknown = root.parent / ".agenttools-backup-bbbb"
    unknown.mkdir()
    (unknown / "SKILL.md").write_text("---\nname: mine\ndescription: Mine.\n---\n")
    report = diagnose(fix=True)
    assert {(f.path, f.fixed) for f in report.findings} == {
        (str(redundant), True),
        (str(unknown), False),
    }
    assert not report.ok
    assert not redundant.exists() and (unknown / "SKILL.md").exists()
    dep.remove()


def test_registry_entries_and_records_out_of_step_with_the_disk(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("gone"), inline("untracked"), inline("neither")]))
    root = home / ".cursor" / "skills"
    by_name = {s.name: s for s in dep.record.installed}
    shutil.rmtree(root / "gone")  # the user deleted a deployed skill
    delete_entry(by_name["untracked"].registry_key)  # an entry lost
    delete_entry(by_name["neither"].registry_key)
    shutil.rmtree(root / "neither")
    report = diagnose()
    assert kinds(report) == ["index", "missing-directory", "record-skill", "untracked-directory"]
    assert diagnose(fix=True).ok
    assert diagnose().findings == []
    record = records.read_record(records.record_path(dep.uuid, state / "deployments"))
    assert sorted(s.name for s in record.installed) == ["untracked"]
    (entry,) = iter_entries()
    assert entry.name == "untracked" and entry.external  # kept, never deleted
    dep.remove()
    assert (root / "untracked" / "SKILL.md").exists()
    assert list(iter_entries()) == [] and deployed() == []


def test_stale_references_are_swept_and_a_missing_config_entry_reported(
    home: Path, state: Path
) -> None:
    one = deploy("cursor", bundle("one", [inline("s1")], [server("a")]))
    two = deploy("cursor", bundle("two", [inline("s2")], [server("b")]))
    shutil.rmtree(records.record_dir(one.uuid, state / "deployments"))  # a record deleted by hand
    config = home / ".cursor" / "mcp.json"
    config.write_text(config.read_text().replace('"b"', '"renamed"'))
    report = diagnose()
    assert "stale-reference" in kinds(report) and "missing-entry" in kinds(report)
    fixed = diagnose(fix=True)
    assert [f.kind for f in fixed.problems] == ["missing-entry"]  # reported, never "fixed"
    assert not (home / ".cursor" / "skills" / "s1").exists()
    assert (home / ".cursor" / "skills" / "s2").exists()
    two.remove()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("special", ["named-pipe", "directory"])
def test_a_record_that_is_no_regular_file_is_unreadable_never_gone(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], special: str
) -> None:
    """A ``deployment.json`` that is a named pipe (or a directory) is a record that cannot be
    read, not a crashed write: listed as broken, reported by doctor, and its skills are
    never released under it."""
    dep = deploy("cursor", bundle("b", [inline("kept")]))
    path = records.record_path(dep.uuid, state / "deployments")
    path.unlink()
    if special == "named-pipe":
        os.mkfifo(path)
    else:
        path.mkdir()
    assert not records.is_stale(dep.uuid, state / "deployments")
    assert main(["deployed"]) == 0
    out = capsys.readouterr().out
    assert f"{dep.uuid[:8]}  ?" in out and "broken" in out, out
    # the message names the file once, then what is wrong with it
    why = "it is a named pipe, not a regular file" if special == "named-pipe" else "Is a directory"
    said = f"The deployment record {path} cannot be read: {why}. Repair the file"
    assert said in out and out.count(str(path)) == 1, out
    report = diagnose()
    assert "stale-reference" not in kinds(report)
    (finding,) = [f for f in report.findings if f.kind == "unreadable"]
    assert finding.path == str(path)
    assert finding.detail.startswith(said), finding.detail
    fixed = diagnose(fix=True)
    assert [f.kind for f in fixed.problems] == ["unreadable"]
    assert (home / ".cursor" / "skills" / "kept" / "SKILL.md").is_file()
    (entry,) = iter_entries()
    assert entry.references == (dep.uuid,)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_ledger_that_is_a_named_pipe_is_named_once(home: Path, state: Path) -> None:
    deploy("cursor", bundle("b", [inline("kept")]))
    ledger = state / "deployments" / ".created" / "paths.json"
    ledger.unlink()
    os.mkfifo(ledger)
    (finding,) = [f for f in diagnose().findings if f.path == str(ledger)]
    assert finding.kind == "unreadable"
    assert finding.detail.startswith(
        "the ledger of what agenttools created cannot be read (it is a named pipe, not a "
        "regular file): nothing it lists is taken away again"
    ), finding.detail


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("replacing", [False, True])
def test_a_journaled_deploy_whose_record_is_no_regular_file_is_never_rolled_back(
    home: Path, state: Path, replacing: bool
) -> None:
    """A deploy that died after its commit (the record's rename) leaves its journal; when its
    ``deployment.json`` is then a named pipe, the deployment still stands: the next command
    never rolls it back (deleting its skills and config entries), nor removes the deployment
    it replaces without its record to tell what it took over."""
    if replacing:
        deploy("cursor", bundle("b", [inline("kept", "old\n")], [server("srv")]))
    tools = bundle("b", [inline("kept", "new\n")], [server("srv")])

    def fail(operation: str, path: Path) -> None:
        if operation == "checkpoint:deploy:record-written":
            raise OSError("injected")

    with fs.observe(fail), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dep = deploy("cursor", tools, overwrite="upgrade")
    assert DeploymentNotFinished in [w.category for w in caught]
    path = records.record_path(dep.uuid, state / "deployments")
    path.unlink()
    os.mkfifo(path)
    (finding,) = [f for f in diagnose().findings if f.kind == "journal"]
    assert finding.detail.endswith(": would be finished"), finding.detail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnose(fix=True)
    skill = home / ".cursor" / "skills" / "kept" / "SKILL.md"
    assert skill.read_text().endswith("new\n")
    assert "srv" in json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert os.path.lexists(path)
    # (the replaced deployment waits, with the journal, until the record can be read)
    assert len(list((state / "deployments" / ".journal").glob("*-deploy-*.json"))) == replacing


def test_an_unreadable_journal_stops_writers_and_doctor_shows_it(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agenttools_runtime.errors import StateRecoveryFailed

    deploy("cursor", bundle("b", [inline("one")]))
    journals = state / "deployments" / ".journal"
    (journals / "00000000000000000001-deploy-x.json").write_text("{not json")
    with pytest.raises(StateRecoveryFailed, match="doctor"):
        deploy("cursor", bundle("c", [inline("two")]))
    assert kinds(diagnose()) == ["unreadable"]
    assert main(["deploy", "cursor", "--no-skills"]) == 1
    assert "could not be finished" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["index.json", "index.log"])
def test_something_else_where_the_index_goes_is_reported_and_left(
    home: Path, state: Path, name: str
) -> None:
    """A directory where the index or its log goes is not agenttools' to delete: doctor
    names it, --fix does not claim to have fixed it, and deploys go on (rebuilding)."""
    one = deploy("cursor", bundle("one", [inline("a")]))
    index_dir = state / "deployments" / ".index"
    (index_dir / name).unlink(missing_ok=True)
    (index_dir / name).mkdir()
    (index_dir / name / "keep.txt").write_text("somebody's\n")
    report = diagnose(fix=True)
    (finding,) = [f for f in report.findings if f.kind == "index"]
    assert finding.path == str(index_dir / name)
    assert not finding.fixable and not finding.fixed
    assert (index_dir / name / "keep.txt").read_text() == "somebody's\n"
    two = deploy("codex", bundle("two", [inline("b")]))
    assert {d.uuid for d in deployed()} == {one.uuid, two.uuid}
    assert inconsistencies(state) == []


@pytest.mark.parametrize("deployed_before", [False, True], ids=["never-deployed", "deployed"])
def test_an_environment_journal_directory_that_is_no_directory_is_an_environment_finding(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], deployed_before: bool
) -> None:
    """Bug: on a machine that never deployed, doctor said No problems found (it looked at
    nothing without a deployments directory); with one, the finding was in the deployments'
    part of the report, not the managed environments'."""
    if deployed_before:
        deploy("cursor", bundle("b", [inline("one")]))
    journals = state / "envs" / ".journal"
    journals.parent.mkdir(parents=True, exist_ok=True)
    journals.write_text("the user's\n")
    assert main(["doctor", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == []
    (finding,) = data["environments"]["findings"]
    assert finding["kind"] == "unusable journal directory" and finding["fixable"]
    assert finding["path"] == str(journals)
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out
    assert "is a regular file, not the directory of agenttools' journals" in printed, printed
    assert "--fix sets it aside" in printed
    assert main(["doctor", "--fix"]) == 0
    assert "set aside as" in capsys.readouterr().out
    assert (state / "envs" / ".journal-set-aside" / ".journal").read_text() == "the user's\n"
    assert not os.path.lexists(journals)
    assert (state / "deployments").exists() is deployed_before
    assert main(["doctor"]) == 0


def _make_something_else(path: Path, what: str) -> None:
    if what == "regular file":
        path.write_text("the user's\n")
    elif what == "named pipe":
        os.mkfifo(path)
    else:
        path.symlink_to(path.with_name("nowhere"))


def _same_thing(path: Path, what: str) -> bool:
    if what == "regular file":
        return path.read_text() == "the user's\n"
    if what == "named pipe":
        return path.is_fifo()
    return path.is_symlink() and os.readlink(path) == str(path.parent.with_name("nowhere"))


@pytest.mark.parametrize("what", ["regular file", "named pipe", "symbolic link to nothing"])
def test_an_environments_directory_that_is_no_directory_is_an_environment_finding(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    """Bug: with something else than a directory at <state>/envs, where every command that
    makes a managed environment stops, doctor said No problems found."""
    envs = state / "envs"
    state.mkdir(parents=True)
    _make_something_else(envs, what)
    assert main(["doctor", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert not data["ok"] and data["findings"] == []
    (finding,) = data["environments"]["findings"]
    assert finding["kind"] == "unusable environments directory" and finding["fixable"]
    assert finding["path"] == str(envs)
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out
    assert f"{envs} is a {what}, not the directory of agenttools' managed environments" in printed
    assert "--fix sets it aside" in printed and "No problems found." not in printed
    assert main(["doctor", "--fix"]) == 0
    aside = state / "envs-set-aside" / "envs"
    assert f"set aside as {aside}" in capsys.readouterr().out
    assert _same_thing(aside, what) and not os.path.lexists(envs)
    assert main(["doctor"]) == 0


def test_an_environments_directory_is_never_set_aside_over_one_set_aside_before(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier = state / "envs-set-aside" / "envs"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("set aside before\n")
    (state / "envs").write_text("the user's\n")
    assert main(["doctor", "--fix"]) == 1
    assert "move it away (not fixable)" in capsys.readouterr().out
    assert earlier.read_text() == "set aside before\n"
    assert (state / "envs").read_text() == "the user's\n"


STATE_DIRECTORIES = [
    ".",
    "deployments",
    "deployments/.skill-registry",
    "deployments/.index",
    "deployments/.verified",
    "deployments/.created",
]


@pytest.mark.parametrize("what", ["regular file", "named pipe", "symbolic link to nothing"])
@pytest.mark.parametrize("where", STATE_DIRECTORIES)
def test_a_state_directory_that_is_no_directory_is_a_finding(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], where: str, what: str
) -> None:
    """Bug: with something else than a directory at <state> or <state>/deployments, doctor
    stopped with 'Cannot access ...: File exists (EEXIST)' (or Not a directory), or said No
    problems found (a link to nothing); at the registry the same; at .index it said the index
    is rebuilt, also after --fix; at .created --fix stopped (Cannot delete ...); at .verified
    it said No problems found."""
    directory = state if where == "." else state / where
    directory.parent.mkdir(parents=True, exist_ok=True)
    _make_something_else(directory, what)
    assert main(["doctor", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (finding,) = data["findings"]
    assert finding["kind"] == "unreadable" and finding["fixable"] and not finding["fixed"]
    assert finding["path"] == str(directory)
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out
    assert f"  unreadable           {directory}\n" in printed
    assert f"is a {what}, not the directory of agenttools' " in printed
    assert "--fix sets it aside" in printed and "No problems found." not in printed
    assert main(["doctor", "--fix"]) == 0
    aside = directory.with_name(f"{directory.name}-set-aside") / directory.name
    assert f"set aside as {aside}" in capsys.readouterr().out
    assert _same_thing(aside, what)
    # (gone, or the directory agenttools made there: --fix writes the index anew)
    assert not os.path.lexists(directory) or (directory.is_dir() and not directory.is_symlink())
    assert main(["doctor"]) == 0
    assert "No problems found." in capsys.readouterr().out


@pytest.mark.parametrize("where", ["deployments", "deployments/.skill-registry"])
def test_a_state_directory_is_never_set_aside_over_one_set_aside_before(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    directory = state / where
    earlier = directory.with_name(f"{directory.name}-set-aside") / directory.name
    earlier.parent.mkdir(parents=True)
    earlier.write_text("set aside before\n")
    directory.write_text("the user's\n")
    assert main(["doctor", "--fix"]) == 1
    assert "stops on it; move it away\n0 fixed, 1 left" in capsys.readouterr().out
    assert earlier.read_text() == "set aside before\n"
    assert directory.read_text() == "the user's\n"


KINDS = ["regular file", "named pipe", "symbolic link to nothing"]


def _as_it_is(path: Path) -> tuple[int, str | bytes]:
    """What *path* is (never following a link): its type, and its bytes or where it points."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return mode, os.readlink(path)
    return mode, path.read_bytes() if stat.S_ISREG(mode) else b""


@pytest.mark.parametrize("what", KINDS)
@pytest.mark.parametrize("where", [*STATE_DIRECTORIES, "deployments/.journal"])
def test_a_set_aside_place_that_is_no_directory_is_said_in_the_finding(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], where: str, what: str
) -> None:
    """Something else than a directory at ``<name>-set-aside``, where --fix would move what
    is at a state directory (or the journal directory): nothing can go there. Bug: doctor
    said '--fix sets it aside', --fix 'it could not be set aside (File exists)' (at the
    journal directory that, then the finding again: '--fix sets it aside')."""
    directory = state if where == "." else state / where
    directory.parent.mkdir(parents=True, exist_ok=True)
    directory.write_text("the user's\n")
    place = directory.with_name(f"{directory.name}-set-aside")
    _make_something_else(place, what)
    before = _as_it_is(place)
    said = f"it could not be set aside ({place} is a {what}, not a directory): move it away"
    for argv in (["doctor", "--json"], ["doctor", "--fix", "--json"]):
        assert main(argv) == 1
        data = json.loads(capsys.readouterr().out)
        (finding,) = [f for f in data["findings"] if f["path"] == str(directory)]
        assert finding["kind"] == "unreadable" and not finding["fixable"], finding
        assert finding["detail"].endswith(said), finding["detail"]
    assert directory.read_text() == "the user's\n" and _as_it_is(place) == before


@pytest.mark.parametrize("what", KINDS)
def test_a_journal_set_aside_place_that_is_no_directory_is_a_finding_and_the_report_goes_on(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    """Bug: with something else than a directory at deployments/.journal-set-aside and a
    journal that cannot be read, doctor --fix stopped with 'Cannot create the directory
    …/.journal-set-aside: File exists' and no report (doctor said --fix sets it aside)."""
    deploy("cursor", bundle("b", [inline("one")]))
    journal = state / "deployments" / ".journal" / "00000000000000000001-deploy-x.json"
    journal.write_text("{not json")
    temp = state / "deployments" / ".index" / ".index.json.agenttools-1234.tmp"
    temp.write_text("torn")
    env_journal = state / "envs" / ".journal" / "00000000000000000001-install-weather.json"
    env_journal.parent.mkdir(parents=True)
    env_journal.write_text("[")
    place = state / "deployments" / ".journal-set-aside"
    _make_something_else(place, what)
    before = _as_it_is(place)
    said = f"{journal.name} could not be set aside ({place} is a {what}, not a directory)"
    for argv in (["doctor", "--json"], ["doctor", "--fix", "--json"]):
        assert main(argv) == 1
        data = json.loads(capsys.readouterr().out)
        assert "error" not in data, data
        (finding,) = [f for f in data["findings"] if f["path"] == str(journal)]
        assert finding["kind"] == "unreadable" and not finding["fixable"], finding
        assert finding["detail"].endswith(f"{said}: move it away"), finding["detail"]
        # the rest of the report: the deployments' and the environments' (nothing repaired
        # on top of the journal)
        assert [f["kind"] for f in data["findings"] if f["path"] == str(temp)] == ["temp-file"]
        assert str(env_journal) in [f["path"] for f in data["environments"]["findings"]]
        assert data["environments"]["fixed"] == []
    assert journal.read_text() == "{not json" and _as_it_is(place) == before
    assert temp.read_text() == "torn" and env_journal.read_text() == "["
    assert main(["doctor", "--fix"]) == 1
    printed = capsys.readouterr().out
    assert said in printed and f"the journal {env_journal} cannot be read" in printed
    assert "-> not repaired until the deployments' journal above is handled" in printed


@pytest.mark.parametrize("what", KINDS)
@pytest.mark.parametrize(
    "kind", ["unreadable journal", "unusable journal directory", "unusable environments directory"]
)
def test_an_environments_set_aside_place_that_is_no_directory_is_said_in_the_finding(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str], kind: str, what: str
) -> None:
    """Something else than a directory at envs/.journal-set-aside (where a journal that
    cannot be read goes, or the journal directory that is none) or at envs-set-aside. Bug:
    doctor said '--fix sets it aside', and --fix 'not fixed: [Errno 17] File exists: …'."""
    envs = state / "envs"
    if kind == "unreadable journal":
        path = envs / ".journal" / "00000000000000000001-install-weather.json"
        place = envs / ".journal-set-aside"
    elif kind == "unusable journal directory":
        path, place = envs / ".journal", envs / ".journal-set-aside"
    else:
        path, place = envs, state / "envs-set-aside"
    path.parent.mkdir(parents=True)
    path.write_text("[")
    _make_something_else(place, what)
    before = _as_it_is(place)
    said = f"it could not be set aside ({place} is a {what}, not a directory): move it away"
    for argv in (["doctor", "--json"], ["doctor", "--fix", "--json"]):
        assert main(argv) == 1
        data = json.loads(capsys.readouterr().out)["environments"]
        (finding,) = [f for f in data["findings"] if f["path"] == str(path)]
        assert finding["kind"] == kind and not finding["fixable"], finding
        assert finding["message"].endswith(said), finding["message"]
        assert data["fixed"] == []
    assert main(["doctor", "--fix"]) == 1
    assert f"{said} (not fixable)" in capsys.readouterr().out
    assert path.read_text() == "[" and _as_it_is(place) == before


@pytest.mark.parametrize("taken", ["journal", "side file"])
def test_a_journal_set_aside_never_replaces_one_set_aside_before(
    home: Path, state: Path, taken: str
) -> None:
    """Bug: --fix renamed an unreadable journal (and its side files) over a file of the same
    name already set aside: the evidence kept there was lost."""
    deploy("cursor", bundle("b", [inline("one")]))
    journals = state / "deployments" / ".journal"
    (journals / "00000000000000000001-deploy-x.json").write_text("{not json")
    (journals / "00000000000000000001-deploy-x.config-0").write_text("new copy\n")
    aside = state / "deployments" / ".journal-set-aside"
    aside.mkdir()
    earlier = {"journal": "00000000000000000001-deploy-x.json", "side file": ""}[taken]
    earlier = aside / (earlier or "00000000000000000001-deploy-x.config-0")
    earlier.write_text("set aside before\n")
    report = diagnose(fix=True)
    assert earlier.read_text() == "set aside before\n"
    moved = aside / "00000000000000000001-deploy-x.1.json"
    assert moved.read_text() == "{not json"
    assert (aside / "00000000000000000001-deploy-x.1.config-0").read_text() == "new copy\n"
    assert sorted(os.listdir(journals)) == []
    assert any(f.kind == "journal" and str(moved) in f.detail for f in report.findings)
    assert str(moved) in [f.path for f in report.findings if f.kind == "set-aside"]


def test_an_environment_journal_set_aside_never_replaces_one_set_aside_before(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = state / "envs" / ".journal" / "00000000000000000001-install-weather.json"
    journal.parent.mkdir(parents=True)
    journal.write_text("[")
    earlier = state / "envs" / ".journal-set-aside" / journal.name
    earlier.parent.mkdir()
    earlier.write_text("set aside before\n")
    assert main(["doctor", "--fix"]) == 1  # (both set aside: reported until deleted)
    moved = earlier.with_name("00000000000000000001-install-weather.1.json")
    assert f"set aside as {moved}" in capsys.readouterr().out
    assert earlier.read_text() == "set aside before\n" and moved.read_text() == "["
    assert not journal.exists()


def test_doctor_says_all_is_well_only_when_the_environments_are_well_too(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bug: with nothing wrong in the deployments but a problem of the managed environments,
    doctor printed 'No problems found.' above it, and its JSON said "ok": true (exit
    status 1)."""
    deploy("cursor", bundle("b", [inline("one")]))
    journal = state / "envs" / ".journal" / "00000000000000000001-install-weather.json"
    journal.parent.mkdir(parents=True)
    journal.write_text("[")
    assert main(["doctor", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == [] and data["ok"] is False
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out
    assert "No problems found" not in printed and f"the journal {journal}" in printed, printed
    journal.unlink()
    assert main(["doctor", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["doctor"]) == 0
    assert "No problems found." in capsys.readouterr().out
