"""Every public name of ``agenttools`` resolves (the exports are lazy, so a typo would only
show when a user touches the name)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agenttools


@pytest.mark.parametrize("name", agenttools.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(agenttools, name) is not None


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        agenttools.no_such_thing  # noqa: B018


def test_import_is_cheap() -> None:
    code = (
        "import sys, agenttools; "
        "print(sorted(m for m in ('yaml', 'tomlkit', 'ruamel', 'mcp', 'packaging') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
