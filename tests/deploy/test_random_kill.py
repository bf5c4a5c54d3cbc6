"""Random kills and signals during deploy, ``deploy --upgrade`` and ``remove`` of a bundle
of 100 skills, in real processes (see :mod:`tests.deploy.reliability`): CI-sized runs;
``benchmarks/reliability.py --runs N`` runs hundreds."""

from __future__ import annotations

from pathlib import Path

import pytest

from .reliability import Lab, summarize


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    made = Lab(tmp_path_factory.mktemp("reliability"))
    made.calibrate()
    return made


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_random_moments_leaves_nothing_the_next_command_cannot_finish(
    lab: Lab, seed: int
) -> None:
    results = [lab.run(trial) for trial in lab.trials(4, seed, ("KILL",))]
    print(summarize(results))
    assert [r.describe() for r in results if not r.ok] == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3])
def test_sigint_and_sigterm_roll_back_or_commit_and_say_which(lab: Lab, seed: int) -> None:
    results = [lab.run(trial) for trial in lab.trials(5, seed, ("INT", "TERM"))]
    print(summarize(results))
    assert [r.describe() for r in results if not r.ok] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "moment",
    [
        "point:remove:journal-written",
        "after:remove:journal-written@1",
        "after:remove:journal-written@25",
    ],
)
def test_sigint_in_the_replacement_step_of_upgrade_commits_and_says_so(
    lab: Lab, moment: str
) -> None:
    from .reliability import Trial

    result = lab.run(Trial("upgrade", "INT", moment, 0))
    assert result.ok, result.describe()
    assert result.status == 130 and "was committed" in result.message, result.describe()


def test_the_lab_builds_a_bundle_of_more_than_a_hundred_skills(tmp_path: Path) -> None:
    lab = Lab(tmp_path, skills=101)
    assert len(list((lab.sites[1]).glob("*.dist-info/extra_metadata/agenttools/skills/*"))) == 101
