"""Hostile ``skill://`` URIs (``tests/hostile/uri/<case>.uri``, the URI on its first line):
traversal (plain, percent-encoded, with backslashes), NUL, provider names that are too long,
empty, with a port or a right-to-left override, 5,000 path segments, a query or a fragment.
``agenttools skill URI`` refuses each with its message and exits 1; ``{uri}`` in an
``.expected`` file is the case's URI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.corpus import Case, cases, run, weather_site

CASES = cases("uri", ".uri")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return weather_site(tmp_path_factory.mktemp("hostile-uri"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_uri_refused(case: Case, site: Path, tmp_path: Path, home: Path) -> None:
    uri = case.path.read_text(encoding="utf-8").splitlines()[0]
    state = tmp_path / "agenttools-state"
    (state / "deployments").mkdir(parents=True)
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    run(case, {"uri": uri, "site": site}, env, home, state, site)
