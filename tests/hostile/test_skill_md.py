"""Hostile SKILL.md files (tests/hostile/skill_md/): each case is the SKILL.md of a skill
directory ``{skill}``, also the live source of an editable distribution ``live-tools`` in
``{site}``. ``skills install``, ``validate`` and ``deploy`` refuse it with a clear message and
change nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.venvs import fake_distribution
from tests.hostile.corpus import Case, cases, run

CASES = cases("skill_md", ".md")


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_skill_md(case: Case, tmp_path: Path) -> None:
    home, state, site, project = (tmp_path / n for n in ("home", "state", "site", "project"))
    home.mkdir(exist_ok=True)
    skill = project / "skills" / "hostile"
    skill.mkdir(parents=True)
    shutil.copyfile(case.path, skill / "SKILL.md")
    fake_distribution(
        site,
        "live-tools",
        skills={
            "hostile": {
                "description": "A hostile skill.",
                "files": {"SKILL.md": case.path.read_bytes()},
                "path": "skills/hostile",
            }
        },
        source_root=project,
    )
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    places = {"site": site, "home": home, "skill": skill}
    run(case, places, env, home, state, site, project)


def test_every_case_has_commands() -> None:
    assert CASES and all(c.commands for c in CASES)
