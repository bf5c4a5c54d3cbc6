"""Hostile ``pyproject.toml`` files (``tests/hostile/pyproject/<case>.toml``, run as a
project's ``pyproject.toml``): ``agenttools validate`` names every problem with its file and
line and exits 1 — never a traceback — and changes nothing. Among them the six causes of the
110 tracebacks of issue 11's 3,400 mutations, values of every TOML type where a table or a
string belongs, names too long for the file system, a NUL in a path, and nesting beyond the
limit (100 levels: one past it is refused unread, at it is read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostile.corpus import Case, cases, run

CASES = cases("pyproject", ".toml")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_validate_refuses_with_a_located_problem(case: Case, tmp_path: Path, home: Path) -> None:
    project = tmp_path / case.name
    project.mkdir()
    shutil.copy2(case.path, project / "pyproject.toml")
    state = tmp_path / "agenttools-state"
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    run(case, {"case": project}, env, project, home, state, cwd=project)
