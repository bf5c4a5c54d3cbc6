"""``deploy --link``: the skills of an editable install deployed as symbolic links to their
live source (fake dist-info trees with a source root, in-process CLI, real links on disk) —
recorded as links, checked by ``verify`` for where they lead, deployed again as links by
``sync``, removed as links and never followed, refused for a client known not to follow them."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_distribution, fake_site, skill_files
from tests.helpers.weather import weather

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="symbolic links need privileges on Windows"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def editable(tmp_path: Path, version: str = "0.1.0") -> tuple[Path, Path]:
    """An editable install of "live": its source tree and its site directory."""
    source = tmp_path / "project"
    skill = skill_files("live-skill", "A live skill.")
    if not (source / "skills" / "live-skill").exists():
        for rel, text in skill["files"].items():
            path = source / "skills" / "live-skill" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    site = fake_site(tmp_path / "site")
    for old in site.glob("live-*.dist-info"):
        shutil.rmtree(old)
    fake_distribution(site, "live", version, skills={"live-skill": skill}, source_root=source)
    return source, site


def statuses(capsys: pytest.CaptureFixture[str]) -> list[str]:
    data = json.loads(run(capsys, "deployed", "--json")[1])
    return [d["status"] for d in data["deployments"]]


def test_linked_skills_follow_their_source_and_are_removed_as_links(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    source, site = editable(tmp_path)
    live = source / "skills" / "live-skill"
    code, out, err = run(capsys, "deploy", "cursor", "live", "--path", str(site), "--link")
    assert code == 0, err
    link = home / ".cursor" / "skills" / "live-skill"
    assert link.is_symlink() and os.readlink(link) == str(live)
    (dep,) = deployed()
    (skill,) = dep.record.installed
    assert skill.extra["link"] == str(live)  # recorded as a link

    # the author edits the skill: the deployment shows it at once, and it is still ok
    (live / "SKILL.md").write_text((live / "SKILL.md").read_text() + "\nEdited.\n")
    assert "Edited." in (link / "SKILL.md").read_text()
    assert statuses(capsys) == ["ok"]
    assert run(capsys, "verify")[0] == 0

    # a new version of the editable install: outdated; sync deploys it again, as a link
    editable(tmp_path, "0.2.0")
    assert statuses(capsys) == ["outdated"]
    code, out, err = run(capsys, "sync")
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(live)
    (dep,) = deployed()
    assert dep.record.agent_tools["distribution_version"] == "0.2.0"
    assert dep.record.installed[0].extra["link"] == str(live)
    assert statuses(capsys) == ["ok"]

    # the link pointed elsewhere: verify says where it leads and where it should
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(live, elsewhere)
    link.unlink()
    link.symlink_to(elsewhere, target_is_directory=True)
    code, out, _ = run(capsys, "verify")
    assert code == 1 and f"the link {link} leads to {elsewhere}, not to {live}" in out
    link.unlink()
    link.symlink_to(live, target_is_directory=True)
    assert run(capsys, "verify")[0] == 0

    # removal takes the link away and never follows it: the source is untouched
    before = {p: p.read_bytes() for p in live.rglob("*") if p.is_file()}
    code, _, err = run(capsys, "remove", "--all")
    assert code == 0, err
    assert not os.path.lexists(link)
    assert {p: p.read_bytes() for p in live.rglob("*") if p.is_file()} == before
    assert not (home / ".cursor").exists()  # created for it: gone with it


def test_a_deleted_source_orphans_the_link_and_a_replaced_link_is_kept(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    source, site = editable(tmp_path)
    assert run(capsys, "deploy", "claude-code", "live", "--path", str(site), "--link")[0] == 0
    link = home / ".claude" / "skills" / "live-skill"
    shutil.rmtree(source)
    code, out, _ = run(capsys, "verify")
    assert code == 1 and "orphaned" in out
    assert f"the source {source / 'skills' / 'live-skill'} that {link} links to is gone" in out

    # the user put a real folder where the link was: removal leaves it
    link.unlink()
    link.mkdir()
    (link / "SKILL.md").write_text("mine\n")
    _, _, err = run(capsys, "remove", "--all")
    assert f'The skill "live-skill" at {link} was replaced' in err and "not removed" in err
    assert (link / "SKILL.md").read_text() == "mine\n" and deployed() == []


def test_link_is_refused_where_it_cannot_work(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    _, site = editable(tmp_path)
    code, _, err = run(capsys, "deploy", "zed", "live", "--path", str(site), "--link")
    assert code == 1
    assert "Zed is known not to follow symbolic links to skill directories" in err
    assert "zed-industries/zed/issues/58088" in err and "deploy without --link" in err
    code, out, _ = run(capsys, "deploy", "zed", "live", "--path", str(site), "--link", "--json")
    assert json.loads(out)["error"]["tag"] == "AgentSkillLinksUnsupported"

    # an installed copy (not an editable install) has no live source to link to
    wheel_site = fake_site(tmp_path / "wheel-site")
    weather(wheel_site, "1.2.0")
    code, _, err = run(
        capsys, "deploy", "cursor", "weather-tools/weather-tools", "--path",
        str(wheel_site),
        "--link",
    )  # fmt: skip
    assert code == 1 and "editable install" in err
    assert deployed() == [] and not (home / ".cursor").exists() and not (home / ".agents").exists()
