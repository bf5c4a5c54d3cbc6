"""Hostile ``skill://`` URIs (``tests/hostile/uri/<case>.uri``, the URI on its first line):
traversal (plain, percent-encoded, with backslashes), NUL, provider names that are too long,
empty, with a port or a right-to-left override, 5,000 path segments, a query or a fragment.
``agenttools skill URI`` refuses each with its message, exits 1 and reads nothing outside the
skill. The runner: ``tests/helpers/hostile.py``; ``{uri}`` in an ``.expected`` file is the
case's URI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.hostile import Case, cases, check_case, make_site

CASES = cases("uri")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("hostile-uri"))


@pytest.mark.parametrize("case", CASES, ids=[c.id.removesuffix(".uri") for c in CASES])
def test_uri_refused(case: Case, site: Path, tmp_path: Path, home: Path) -> None:
    uri = case.path.read_text(encoding="utf-8").splitlines()[0]
    state = tmp_path / "agenttools-state"
    (state / "deployments").mkdir(parents=True)  # as any earlier command leaves it (the lock's)
    places = {"home": home, "state": state, "site": site, "uri": uri}
    check_case(case, places, tmp_path, home, state, site)
