"""Every managed-environment test gets the index fixtures (tests/helpers/index_fixtures.py)
and installer configuration isolated: the machine's pip/uv settings never leak in."""

from __future__ import annotations

import pytest

from tests.helpers.index_fixtures import (  # noqa: F401 (fixtures)
    PASSWORD,
    USER,
    Publishing,
    Releases,
    auth_index,
    index,
    isolated_installers,
    old_index,
    old_only,
    plain_http,
    publishing,
    releases,
    wheelhouse,
)


@pytest.fixture(autouse=True)
def _isolated(isolated_installers: None) -> None:  # noqa: F811 (the fixture)
    """(installer configuration isolated in every test here)"""
