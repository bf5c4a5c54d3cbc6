"""Hostile ``pyproject.toml`` files (``tests/hostile/pyproject/<case>/``): ``agenttools validate``
names every problem with its file and line and exits 1 — never a traceback — and changes
nothing. Among them the six causes of the 110 tracebacks of issue 11's 3,400 mutations, values
of every TOML type where a table or string belongs, and nesting beyond the limit. The runner and
the format of ``expected.txt``: ``tests/helpers/hostile.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.hostile import Case, cases, check_case

CASES = cases("pyproject")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_validate_refuses_with_a_located_problem(case: Case, tmp_path: Path, home: Path) -> None:
    project = tmp_path / case.name
    shutil.copytree(case.path, project)
    state = tmp_path / "agenttools-state"
    check_case(case, {"home": home, "state": state, "case": project}, project, project, home, state)
