"""State files are checked before they are trusted: every state file written in each wrong
shape, each journaled copy tampered with, records and registry entries forged — and then
every command, in real processes.

For each scenario: no command ends in a traceback (exit 0 or 1, one clean line on error);
``doctor`` names the file; the user's own bytes (a config entry with a comment, a skill
folder, a dotfile) never change; after ``doctor --fix`` and ``remove --all`` nothing of the
deployment that can be proven agenttools' is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

from .invariants import snapshot

CHILD = Path(__file__).with_name("crashing_child.py")
USER_CONFIG = '{\n  // mine\n  "mcpServers": {\n    "mine": {"command": "my-server"}\n  }\n}\n'
USER_SKILL = "---\nname: mine\ndescription: Mine.\n---\n\nMy own skill.\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = fake_site(tmp_path_factory.mktemp("corrupted") / "venv")
    fake_distribution(
        site,
        "weather",
        servers={"weather": {"command": "weather-mcp", "args": ["serve"]}},
        skills={
            "forecast": skill_files("forecast", "Forecasts.", {"notes.md": "n\n"}),
            "radar": skill_files("radar", "Radar.", {}),
        },
    )
    return site


@pytest.fixture(autouse=True)
def _activated(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers' commands are console scripts of the site's environment: on the PATH."""
    activate(monkeypatch, site)


def agenttools(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agenttools", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@dataclass
class Lab:
    home: Path
    deployments: Path
    uid: str
    site: Path

    @property
    def record(self) -> Path:
        return self.deployments / self.uid / "deployment.json"

    @property
    def config(self) -> Path:
        return self.home / ".claude.json"

    @property
    def skills(self) -> Path:
        return self.home / ".claude" / "skills"

    def entries(self) -> list[Path]:
        return sorted((self.deployments / ".skill-registry").glob("*.json"))

    def entry_of(self, name: str) -> Path:
        for path in self.entries():
            if json.loads(path.read_text())["name"] == name:
                return path
        raise AssertionError(name)

    def user_bytes(self) -> dict[str, object]:
        """What is the user's: their skill folder, their dotfile, their config entry."""
        found = snapshot(self.skills / "mine", self.home / "dotfiles")
        text = self.config.read_text() if self.config.exists() else ""
        found["config: comment"] = "// mine" in text
        found["config: mine"] = _entries(self.config).get("mine")
        return found


def _entries(config: Path) -> dict[str, object]:
    if not config.exists():
        return {}
    text = "\n".join(line for line in config.read_text().splitlines() if "//" not in line)
    return dict(json.loads(text).get("mcpServers", {}))


@pytest.fixture
def lab(home: Path, state: Path, site: Path) -> Lab:
    (home / ".claude.json").write_text(USER_CONFIG)
    mine = home / ".claude" / "skills" / "mine"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text(USER_SKILL)
    (home / "dotfiles").mkdir()
    (home / "dotfiles" / "notes.txt").write_text("mine\n")
    done = agenttools("deploy", "claude-code", "weather", "--path", site, "--json")
    assert done.returncode == 0, done.stderr
    uid = json.loads(done.stdout)["deployment"]["uuid"]
    return Lab(home, state / "deployments", uid, site)


def _edit_json(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _journal(lab: Lab, data: object, kind: str = "deploy") -> Path:
    path = lab.deployments / ".journal" / f"00000000000000000001-{kind}-{lab.uid}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path


# -- each state file in each wrong shape ------------------------------------------------------
#
# A scenario corrupts the state and returns the path doctor must name.

Scenario = Callable[[Lab], Path]


def _index(text: str) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        path = lab.deployments / ".index" / "index.json"
        path.write_text(text)
        return path

    return corrupt


def _index_field(field: str, value: object) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        path = lab.deployments / ".index" / "index.json"
        _edit_json(path, lambda d: d.__setitem__(field, value))
        return path

    return corrupt


def _index_log(line: str) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        index = json.loads((lab.deployments / ".index" / "index.json").read_text())
        log = lab.deployments / ".index" / "index.log"
        with log.open("a") as handle:
            handle.write(line.replace("GEN", str(index["generation"])) + "\n")
        return lab.deployments / ".index" / "index.json"  # (doctor: the index it makes)

    return corrupt


def _journal_of(data: object, kind: str = "deploy") -> Scenario:
    return lambda lab: _journal(lab, data, kind)


def _record(text: str) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        lab.record.write_text(text)
        return lab.record

    return corrupt


def _record_field(change: Callable[[dict[str, object]], None]) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        _edit_json(lab.record, change)
        return lab.record

    return corrupt


def _entries_text(text: str) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        for path in lab.entries():
            path.write_text(text)
        return lab.entries()[0]

    return corrupt


def _entry_field(field: str, value: object) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        path = lab.entry_of("forecast")
        _edit_json(path, lambda d: d.__setitem__(field, value))
        return path

    return corrupt


def _ledger(text: str) -> Scenario:
    def corrupt(lab: Lab) -> Path:
        path = lab.deployments / ".created" / "paths.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        return path

    return corrupt


def _skills_of(data: dict[str, object]) -> dict[str, object]:
    skills = data["skills"]
    assert isinstance(skills, dict)
    return skills


SHAPES: dict[str, Scenario] = {
    "index: an array": _index("[1,2,3]"),
    "index: a string": _index('"index"'),
    "index: null": _index("null"),
    "index: torn": _index('{"schema": 2, "skil'),
    "index: schema true": _index_field("schema", True),
    "index: skills an array": _index_field("skills", [1]),
    "index: records of numbers": _index_field("records", {"x": 5}),
    "index: a record's summary short": _index_field("records", {"x": ["a"]}),
    "index: stamp a string": _index_field("stamp", "now"),
    "index: pending a number": _index_field("pending", 5),
    "index.log: an array": _index_log("[1]"),
    "index.log: ops a number": _index_log('{"generation": "GEN", "ops": 5}'),
    "index.log: an op of numbers": _index_log(
        '{"generation": "GEN", "ops": [[1, 2]], "needs_sweep": false, "pending": []}'
    ),
    "index.log: a record summary of numbers": _index_log(
        '{"generation": "GEN", "ops": [["+r", "x", [1, 2, 3, 4, 5]]], "needs_sweep": false,'
        ' "pending": []}'
    ),
    "journal: an array": _journal_of([1]),
    "journal: a string": _journal_of("journal"),
    "journal: config of numbers": _journal_of({"schema": 1, "kind": "deploy", "config": [5]}),
    "journal: skills an object": _journal_of({"schema": 1, "kind": "deploy", "skills": {}}),
    "journal: an unknown kind": _journal_of({"schema": 1, "kind": ["deploy"]}),
    "journal: pid a string": _journal_of({"schema": 1, "kind": "sweep", "pid": "1"}),
    "journal: a removal of a path": _journal_of(
        {"schema": 1, "kind": "remove", "uuid": "../../home"}, "remove"
    ),
    "journal: a removal of no deployment": _journal_of({"schema": 1, "kind": "remove"}, "remove"),
    "journal: a removal of the empty id": _journal_of(
        {"schema": 1, "kind": "remove", "uuid": ""}, "remove"
    ),
    "journal: a removal of a null id": _journal_of(
        {"schema": 1, "kind": "remove", "uuid": None}, "remove"
    ),
    "journal: a staging name that is a path": _journal_of(
        {
            "schema": 1,
            "kind": "deploy",
            "uuid": "0b7a3c2e-0000-4000-8000-000000000000",
            "skills": [{"name": "x", "root": "/", "manifest": {}, "staging": "../../home"}],
        }
    ),
    "journal: a registry key that is a path": _journal_of(
        {
            "schema": 1,
            "kind": "deploy",
            "uuid": "0b7a3c2e-0000-4000-8000-000000000000",
            "entries": [{"key": "../../../.bashrc", "before": "x"}],
        }
    ),
    "record: an array": _record("[1]"),
    "record: torn": _record('{"version": 1, "uu'),
    "record: servers of numbers": _record_field(lambda d: d.__setitem__("mcp_servers", [5])),
    "record: installed a string": _record_field(
        lambda d: _skills_of(d).__setitem__("installed", "forecast")
    ),
    "record: a skill of numbers": _record_field(
        lambda d: _skills_of(d).__setitem__("installed", [{"name": 1}])
    ),
    "record: client a number": _record_field(lambda d: d.__setitem__("client", 5)),
    "record: target a list": _record_field(lambda d: d.__setitem__("target", [])),
    "record: version true": _record_field(lambda d: d.__setitem__("version", True)),
    "record: servers null": _record_field(lambda d: d.__setitem__("mcp_servers", None)),
    "record: skills null": _record_field(lambda d: d.__setitem__("skills", None)),
    "record: replaced of the wrong shape": _record_field(
        lambda d: d["mcp_servers"][0].__setitem__("replaced", {"text": 5})  # type: ignore[index]
    ),
    "registry: arrays": _entries_text("[1]"),
    "registry: torn": _entries_text('{"registry_key": "'),
    "registry: hashes an array": _entry_field("hashes", [1]),
    "registry: references a string": _entry_field("references", "x"),
    "registry: external a string": _entry_field("external", "no"),
    "registry: another key": _entry_field("registry_key", "0" * 64),
    "registry: a newer schema": _entry_field("schema", 99),
    "registry: schema true": _entry_field("schema", True),
    "ledger: an array": _ledger("[1]"),
    "ledger: paths an array": _ledger('{"schema": 1, "paths": []}'),
    "ledger: a claim of a number": _ledger('{"schema": 1, "paths": {"/x": 5}}'),
}

COMMANDS: list[tuple[str, ...]] = [
    ("deployed",),
    ("deployed", "--json"),
    ("verify",),
    ("doctor", "--json"),
    ("doctor", "--fix", "--json"),
    ("deployed",),
    ("remove", "--all"),
]


def _problem_paths(report: str) -> list[str]:
    return [f["path"] for f in json.loads(report)["findings"]]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_state_file_of_the_wrong_shape_is_named_and_never_a_traceback(
    lab: Lab, name: str
) -> None:
    user = lab.user_bytes()
    named = SHAPES[name](lab)

    for argv in COMMANDS:
        done = agenttools(*argv)
        said = f"{name}: {' '.join(argv)}: exit {done.returncode}\n{done.stderr}"
        assert "Traceback" not in done.stderr, said
        assert done.returncode in (0, 1), said
        if argv == ("doctor", "--json"):
            assert done.returncode == 1, said
            assert str(named) in _problem_paths(done.stdout), said
        assert lab.user_bytes() == user, said


# -- the journaled copy of a config file ------------------------------------------------------


def _killed_deploy(lab: Lab) -> tuple[Path, bytes]:
    """A second deploy (another server key) killed once it wrote the config file: its journal
    and the copy of the file before it are left. Returns the copy and the file as written."""
    fake_distribution(
        lab.site.parent / "site-2",
        "storms",
        servers={"storms": {"command": "storms-mcp"}},
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(CHILD),
            "KILL",
            "point:deploy:mcp-written",
            "deploy",
            "claude-code",
            "storms",
            "--path",
            str(lab.site.parent / "site-2"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (copy,) = (lab.deployments / ".journal").glob("*.config-*")
    return copy, lab.config.read_bytes()


@pytest.mark.parametrize("tamper", ["{}", "corrupted", "missing", "named-pipe"])
def test_a_journaled_copy_that_does_not_match_its_digest_is_never_restored(
    lab: Lab, tamper: str
) -> None:
    copy, written = _killed_deploy(lab)
    assert b"storms" in written and copy.read_bytes() != written
    if tamper == "missing":
        copy.unlink()
    elif tamper == "named-pipe":  # (reading it would wait for a writer forever)
        if not hasattr(os, "mkfifo"):
            pytest.skip("named pipes are POSIX")
        copy.unlink()
        os.mkfifo(copy)
    elif tamper == "corrupted":
        copy.write_bytes(copy.read_bytes()[:-3] + b"!!!")
    else:
        copy.write_text(tamper)

    for argv in (("deployed",), ("remove", "--all"), ("doctor", "--fix")):
        done = agenttools(*argv)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 1, (argv, done.stdout, done.stderr)
        assert lab.config.read_bytes() == written  # the user's file: untouched

    found = agenttools("doctor", "--json")
    assert found.returncode == 1
    (finding,) = [f for f in json.loads(found.stdout)["findings"] if f["kind"] == "journal"]
    assert "never restored" in finding["detail"] and not finding["fixable"]
    assert list((lab.deployments / ".journal").glob("*-deploy-*.json"))  # the journal stays


def test_an_untampered_copy_is_restored_by_the_next_command(lab: Lab) -> None:
    before = lab.config.read_bytes()
    _copy, _written = _killed_deploy(lab)

    done = agenttools("deployed")

    assert done.returncode == 0, done.stderr
    assert "rolled back" in done.stderr
    assert lab.config.read_bytes() == before


# -- forged records and entries -------------------------------------------------------------


def test_a_record_claiming_the_users_config_entry_never_gets_it_deleted(lab: Lab) -> None:
    user = lab.user_bytes()

    def claim(data: dict[str, object]) -> None:
        servers = data["mcp_servers"]
        assert isinstance(servers, list)
        servers.append({"name": "mine", "config_key": "mine", "config_file": str(lab.config)})

    _edit_json(lab.record, claim)
    found = agenttools("doctor", "--json")
    assert "record-entry" in [f["kind"] for f in json.loads(found.stdout)["findings"]]

    done = agenttools("remove", "--all")

    assert done.returncode == 0, done.stderr
    assert 'configuration "mine"' in done.stderr and "nothing proves" in done.stderr
    assert lab.user_bytes() == user
    assert "weather" not in _entries(lab.config)


def test_a_registry_entry_redirected_to_the_users_skill_never_gets_it_deleted(
    lab: Lab,
) -> None:
    user = lab.user_bytes()
    mine = lab.skills / "mine"
    theirs = json.loads(lab.entry_of("forecast").read_text())
    hashes = {"SKILL.md": __import__("hashlib").sha256(USER_SKILL.encode()).hexdigest()}
    theirs.update(directory=str(mine), name="mine", hashes=hashes, stats={})
    lab.entry_of("forecast").write_text(json.dumps(theirs))

    found = agenttools("doctor", "--json")
    assert "record-mismatch" in [f["kind"] for f in json.loads(found.stdout)["findings"]]
    done = agenttools("remove", "--all")

    assert done.returncode == 0, done.stderr
    assert "nothing proves agenttools wrote it" in done.stderr
    assert lab.user_bytes() == user


def test_a_registry_entry_forged_for_the_users_skill_is_never_swept_into_deleting_it(
    lab: Lab,
) -> None:
    user = lab.user_bytes()
    mine = lab.skills / "mine"
    forged = json.loads(lab.entry_of("forecast").read_text())
    hashes = {"SKILL.md": __import__("hashlib").sha256(USER_SKILL.encode()).hexdigest()}
    forged.update(directory=str(mine), name="mine", hashes=hashes, registry_key="f" * 64)
    forged.pop("stats", None)
    (lab.deployments / ".skill-registry" / f"{'f' * 64}.json").write_text(json.dumps(forged))

    found = agenttools("doctor", "--json")
    assert "entry-reference" in [f["kind"] for f in json.loads(found.stdout)["findings"]]
    for argv in (("remove", "--all"), ("doctor", "--fix"), ("doctor",)):
        done = agenttools(*argv)
        assert "Traceback" not in done.stderr
        assert lab.user_bytes() == user, argv


def test_a_record_whose_uuid_is_not_its_directory_is_listed_and_never_said_removed(
    lab: Lab,
) -> None:
    moved = lab.deployments / "0b7a3c2e-0000-4000-8000-000000000000"
    (lab.deployments / lab.uid).rename(moved)

    listed = agenttools("deployed", "--json")
    assert listed.returncode == 0
    assert "broken" in json.dumps(json.loads(listed.stdout))
    found = agenttools("doctor", "--json")
    assert str(moved / "deployment.json") in _problem_paths(found.stdout)
    done = agenttools("remove", "--all")

    assert done.returncode == 1
    assert "Removed" not in done.stdout
    assert f"Not removed {moved.name}" in done.stdout and "not the name of its" in done.stdout
    # its skills stay: the broken record may still be using them
    fixed = agenttools("doctor", "--fix")
    assert "Traceback" not in fixed.stderr
    assert (lab.skills / "forecast" / "SKILL.md").is_file()


def test_an_index_log_line_that_drops_a_record_hides_nothing(lab: Lab) -> None:
    index = json.loads((lab.deployments / ".index" / "index.json").read_text())
    log = lab.deployments / ".index" / "index.log"
    lines = log.read_text().splitlines() if log.exists() else []
    last = json.loads(lines[-1]) if lines else {"stamp": index["stamp"]}
    drop = {
        "generation": index["generation"],
        "ops": [["-r", lab.uid]],
        "needs_sweep": False,
        "pending": [],
        "stamp": last["stamp"],
    }
    with log.open("a") as handle:
        handle.write(json.dumps(drop) + "\n")

    listed = agenttools("deployed", "--json")
    assert lab.uid in [d["uuid"] for d in json.loads(listed.stdout)["deployments"]]
    found = agenttools("doctor", "--json")
    assert "index" in [f["kind"] for f in json.loads(found.stdout)["findings"]]
    done = agenttools("remove", "--all")

    assert done.returncode == 0, done.stderr
    assert "weather" not in _entries(lab.config)
    assert agenttools("doctor").returncode == 0


def test_doctor_fix_sets_an_unreadable_journal_aside_and_never_acts_on_it(lab: Lab) -> None:
    path = _journal(lab, {"schema": 1, "kind": "remove", "uuid": lab.uid, "pid": "x"}, "remove")
    blocked = agenttools("remove", "--all")
    assert blocked.returncode == 1 and "cannot be read" in blocked.stderr
    assert "doctor --fix" in blocked.stderr

    fixed = agenttools("doctor", "--fix", "--json")

    findings = json.loads(fixed.stdout)["findings"]
    assert [f["fixed"] for f in findings if f["path"] == str(path)] == [True]
    assert not path.exists()
    assert (lab.deployments / ".journal-set-aside" / path.name).is_file()
    listed = agenttools("deployed", "--json")
    assert lab.uid in [d["uuid"] for d in json.loads(listed.stdout)["deployments"]]  # not removed
    assert agenttools("remove", "--all").returncode == 0
    assert os.path.lexists(lab.skills / "mine")
