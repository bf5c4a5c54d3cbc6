"""The status cache of ``agenttools deployed`` (fake dist-info trees, in-process CLI, real
files): a row is shown from the cache only while nothing it was computed from changed —
every kind of change below must show at once. The cache's "racily clean" margin is set to
0 here (``RACY_NS``) so rows are cached right after the files they depend on were written;
each edit below changes a file's size too, so it shows even within one clock tick."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime import status_cache
from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed

from .test_cli import weather
from .test_lifecycle import table, upgrade

TOOLS = "weather-tools/weather-tools"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def shown(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """client -> status, as the table shows it."""
    return {client: row[4] for client, row in table(run(capsys, "deployed")[1]).items()}


def cache_file(state: Path) -> Path:
    return state / "deployments" / ".index" / "status.marshal"


def read_cache(state: Path) -> dict[str, Any]:
    data: dict[str, Any] = marshal.loads(cache_file(state).read_bytes())
    return data


def write_cache(state: Path, data: dict[str, Any]) -> None:
    cache_file(state).write_bytes(marshal.dumps(data))


def cached_rows(state: Path) -> dict[str, list[object]]:
    rows: dict[str, list[object]] = marshal.loads(read_cache(state)["rows"])
    return rows


@pytest.fixture
def no_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_cache, "RACY_NS", 0)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    weather(path, "1.2.0")
    return path


def test_rows_come_from_the_cache_while_nothing_changed(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path, no_margin: None
) -> None:
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    assert not cache_file(state).exists()
    assert shown(capsys) == {"cursor": "ok"}
    (dep,) = deployed()
    assert cached_rows(state)[dep.uuid][6] == "ok"

    # the cache is what is shown: a row changed by hand shows as it is
    data = read_cache(state)
    rows = marshal.loads(data["rows"])
    rows[dep.uuid][6] = "from-the-cache"
    data["rows"] = marshal.dumps(rows)
    stored_table, data["table"] = data["table"], ""
    write_cache(state, data)
    assert shown(capsys) == {"cursor": "from-the-cache"}
    # and the table of all rows as last printed, while every row holds
    assert "ok" in stored_table and "from-the-cache" not in stored_table
    data["table"] = "the stored table"
    write_cache(state, data)
    assert run(capsys, "deployed")[1] == "the stored table\n"

    # a file it depends on changes: computed again
    skill_md = home / ".cursor" / "skills" / "weather-report" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMine.\n")
    assert shown(capsys) == {"cursor": "drifted"}
    assert cached_rows(state)[dep.uuid][6] == "drifted"

    # a cache of another agenttools version (or interpreter) is not used
    data = read_cache(state)
    data["table"] = "from-the-cache"
    data["key"][1] = "0.0.0"
    write_cache(state, data)
    assert shown(capsys) == {"cursor": "drifted"}
    # nor one that does not parse
    cache_file(state).write_bytes(b"\x00not marshal")
    assert shown(capsys) == {"cursor": "drifted"}
    assert read_cache(state)["rows"]


def test_every_kind_of_change_shows_at_once(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    state: Path,
    tmp_path: Path,
    no_margin: None,
) -> None:
    for client in ("claude-code", "cursor", "codex"):
        assert run(capsys, "deploy", client, TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys) == dict.fromkeys(["claude-code", "cursor", "codex"], "ok")
    assert len(cached_rows(state)) == 3

    # a file added to a skill directory
    extra = home / ".claude" / "skills" / "weather-report" / "notes.txt"
    extra.write_text("mine\n")
    assert shown(capsys)["claude-code"] == "drifted"
    extra.unlink()
    assert shown(capsys)["claude-code"] == "ok"

    # a config entry edited by the user
    config = home / ".cursor" / "mcp.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["weather"]["env"]["UNITS"] = "imperial"
    config.write_text(json.dumps(data))
    assert shown(capsys)["cursor"] == "drifted"
    data["mcpServers"]["weather"]["env"]["UNITS"] = "metric"
    config.write_text(json.dumps(data, indent=2))
    assert shown(capsys)["cursor"] == "ok"

    # pip install -U, then pip uninstall
    upgrade(site, "1.3.0", body="Do more things.")
    assert set(shown(capsys).values()) == {"outdated"}
    assert run(capsys, "sync")[0] == 0
    assert set(shown(capsys).values()) == {"ok"}
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))
    assert set(shown(capsys).values()) == {"orphaned"}
    weather(site, "1.3.0", body="Do more things.")
    assert set(shown(capsys).values()) == {"ok"}

    # a record removed, one added, one that no longer parses
    (codex,) = [d for d in deployed() if d.client == "codex"]
    assert run(capsys, "remove", codex.uuid)[0] == 0
    assert set(shown(capsys)) == {"claude-code", "cursor"}
    assert run(capsys, "deploy", "gemini-cli", TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys)["gemini-cli"] == "ok"
    (cursor,) = [d for d in deployed() if d.client == "cursor"]
    (state / "deployments" / cursor.uuid / "deployment.json").write_text("{not json")
    out = run(capsys, "deployed")[1]
    assert f"{cursor.uuid[:8]}  ?" in out and "broken" in out


def test_the_interpreter_gone_shows_at_once(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, no_margin: None
) -> None:
    venv = tmp_path / "venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    weather(site, "1.2.0")
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "bin").mkdir()
    os.symlink(sys.executable, venv / "bin" / "python")
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys) == {"cursor": "ok"}
    shutil.rmtree(venv)
    assert shown(capsys) == {"cursor": "orphaned"}


def test_rows_computed_right_after_a_change_are_not_kept(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path
) -> None:
    # (the real margin: the files were written just now, within it)
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys) == {"cursor": "ok"}
    assert cached_rows(state) == {}


def test_an_editable_install_is_never_cached(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, state: Path, no_margin: None
) -> None:
    from tests.helpers.venvs import fake_distribution, skill_files

    source = tmp_path / "project"
    skill = skill_files("live-skill", "A live skill.")
    for rel, text in skill["files"].items():
        (source / "skills" / "live-skill").mkdir(parents=True, exist_ok=True)
        (source / "skills" / "live-skill" / rel).write_text(text)
    site = tmp_path / "site"
    fake_distribution(site, "live", "0.1.0", skills={"live-skill": skill}, source_root=source)
    assert run(capsys, "deploy", "cursor", "live", "--path", str(site))[0] == 0
    assert shown(capsys) == {"cursor": "ok"}
    assert cached_rows(state) == {}
    live = source / "skills" / "live-skill" / "SKILL.md"
    live.write_text(live.read_text() + "\nEdited by the author.\n")
    assert shown(capsys) == {"cursor": "outdated"}


def test_json_serves_the_cached_statuses_as_the_table_does(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path, no_margin: None
) -> None:
    from agenttools_runtime.deploy import Deployment, status

    for client in ("codex", "cursor", "gemini-cli"):
        assert run(capsys, "deploy", client, TOOLS, "--path", str(site))[0] == 0
    skill_md = home / ".cursor" / "skills" / "weather-report" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMine.\n")  # drifted, with its findings
    (gemini,) = [d for d in deployed() if d.client == "gemini-cli"]
    (state / "deployments" / gemini.uuid / "deployment.json").write_text("{not json")

    def computed() -> list[dict[str, object]]:
        # what --json showed before the cache served it: every status computed
        found = []
        for item in status.statuses(status.load_all()):
            data = Deployment(item.record).to_json() if item.record else {"uuid": item.uuid}
            found.append({**data, **item.to_json()})
        return json.loads(json.dumps(found, default=str))

    def as_json() -> dict[str, object]:
        code, out, _ = run(capsys, "deployed", "--json")
        assert code == 0
        return json.loads(out)  # type: ignore[no-any-return]

    expected = computed()
    # codex and cursor, deployed within one timestamp tick, are ordered by uuid: either way
    assert sorted(d["status"] for d in expected[:2]) == ["drifted", "ok"]
    assert expected[2]["status"] == "broken"
    # cold: computed and stored; warm: from the cache (but the broken row, never cached)
    for warm in (False, True):
        assert cache_file(state).exists() == warm
        shown_json = as_json()
        assert shown_json["deployments"] == expected
        assert shown_json["summary"] == {
            "ok": 1, "outdated": 0, "drifted": 1, "orphaned": 0, "broken": 1
        }  # fmt: skip
        statuses = {d["uuid"][:8]: d["status"] for d in shown_json["deployments"]}  # type: ignore[index]
        rows = table(run(capsys, "deployed")[1])
        assert {row[0]: row[4] for row in rows.values()} == statuses
    assert set(cached_rows(state)) == {d["uuid"] for d in expected[:2]}

    # the cache is what --json shows too, and a change shows at once
    data = read_cache(state)
    statuses = marshal.loads(data["full"])
    for full in statuses.values():
        full["status"] = "from-the-cache"
    data["full"] = marshal.dumps(statuses)
    write_cache(state, data)
    found = [d["status"] for d in as_json()["deployments"]]  # type: ignore[index]
    assert found == ["from-the-cache", "from-the-cache", "broken"]
    skill_md.write_text(skill_md.read_text().replace("\nMine.\n", ""))
    cursor = next(d for d in as_json()["deployments"] if d["client"] == "cursor")  # type: ignore[index]
    assert cursor["status"] == "ok" and cursor["findings"] == []


def test_a_signature_tells_each_change_of_a_path(tmp_path: Path) -> None:
    path, target, link = tmp_path / "file", tmp_path / "target", tmp_path / "link"
    path.write_text("one")
    first = status_cache.signature(str(path))
    assert first is not None and status_cache.signature(str(path)) == first
    stat = path.stat()
    path.write_text("two")  # same size, modification time put back: the change time tells
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert status_cache.signature(str(path)) != first
    assert status_cache.changed_ns(first) == max(stat.st_mtime_ns, stat.st_ctime_ns)
    target.write_text("t")
    link.symlink_to(target)
    pointing = status_cache.signature(str(link))
    assert pointing is not None and len(pointing) == 64
    target.unlink()  # the link unchanged, its target gone
    assert status_cache.signature(str(link)) not in (pointing, None)
    link.unlink()
    assert status_cache.signature(str(link)) is None


def test_registry_entries_are_checked_through_their_directory_once_it_settles(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path, no_margin: None
) -> None:
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    registry = state / "deployments" / ".skill-registry"
    future = 4_000_000_000 * 10**9  # changed "later than now": not settled
    os.utime(registry, ns=(future, future))
    assert shown(capsys) == {"cursor": "ok"}
    assert read_cache(state)["grouped"] is False  # each entry on its own
    os.utime(registry, ns=(10**18, 10**18))  # settled now
    assert shown(capsys) == {"cursor": "ok"}  # stored again, the entries grouped
    data = read_cache(state)
    assert data["grouped"] is True
    grouped = [entry for entry in data["paths"] if len(entry) == 3]
    assert grouped and all(Path(entry[0]).parent == registry for entry in grouped)
    # an entry replaced (as agenttools writes them: a new file renamed over it) is seen
    entry = Path(grouped[0][0])
    replacement = entry.with_suffix(".tmp")
    replacement.write_text(entry.read_text().replace('"references"', '"references" '))
    os.replace(replacement, entry)
    assert shown(capsys) == {"cursor": "ok"}
    assert Path(read_cache(state)["paths"][grouped[0][2]][0]) == registry


def test_a_links_change_time_is_where_it_leads_too(tmp_path: Path) -> None:
    """A row (or lean cache entry, or ticket) is kept only when what it read settled before
    the computation: for a link, the file it leads to too (rewritten while it was read, it
    changed though the link did not)."""
    target = tmp_path / "claude.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    os.utime(link, ns=(1, 1), follow_symlinks=False)
    later = os.stat(target).st_ctime_ns + 10**12
    os.utime(target, ns=(later, later))
    sig = status_cache.signature(str(link))
    assert sig is not None and status_cache.changed_ns(sig) == later


def test_the_plain_passes_answer_as_signature_does(tmp_path: Path) -> None:
    """``all_unchanged`` and ``unchanged`` (the lean paths' loops, ``signature`` inline for
    what is not a link) say "unchanged" exactly while ``signature`` of every path is the
    stored one: a file, a link and where it leads, a missing path, a grouped entry."""
    folder = tmp_path / "registry"
    folder.mkdir()
    entry, target, link = folder / "entry.json", tmp_path / "target", tmp_path / "link"
    entry.write_text("{}")
    target.write_text("t")
    link.symlink_to(target)
    paths = [str(folder), str(entry), str(link), str(tmp_path / "missing")]

    def stored() -> list[tuple[str, bytes | None]]:
        return [(path, status_cache.signature(path)) for path in paths]

    def cache(checks: list[tuple[str, bytes | None]]) -> status_cache.Cache:
        found: list[Any] = [list(check) for check in checks]
        found[1].append(0)  # the entry grouped with its folder
        return status_cache.Cache(found, {"u": list(range(len(found)))})

    checks = stored()
    assert status_cache.all_unchanged(checks) and status_cache.unchanged(cache(checks))
    target.write_text("longer")  # where the link leads
    assert not status_cache.all_unchanged(checks) and not status_cache.unchanged(cache(checks))
    checks = stored()
    (tmp_path / "missing").write_text("")  # a missing path appears
    assert not status_cache.all_unchanged(checks) and not status_cache.unchanged(cache(checks))
    checks = stored()
    entry.write_text('{"edited": "in place"}')  # grouped: its folder did not change
    assert not status_cache.all_unchanged(checks)
    assert status_cache.unchanged(cache(checks))  # (as holding answers: its folder decides)
    (folder / "other.json").write_text("")  # the folder changed: the entry's own signature
    assert not status_cache.unchanged(cache(checks))
    assert not status_cache.unchanged(status_cache.Cache([["only a path"]], {}))  # damaged
