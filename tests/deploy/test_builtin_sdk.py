"""The built-in ``agenttools`` server needs the MCP SDK (the ``[serve]`` extra) in the
interpreter its entry runs: deploying it where that is missing fails before anything is
written, naming ``pip install 'agenttools[serve]'``; uvx (which installs the extra itself)
and an interpreter that has the SDK are fine."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime.bundles import BUILTIN_SERVERS, AgentTools
from agenttools_runtime.deploy import deploy
from agenttools_runtime.deploy.server_checks import has_mcp_sdk
from agenttools_runtime.errors import MCPSDKMissing
from agenttools_runtime.mcp.server import Environment
from tests.helpers.venvs import create_venv

from .conftest import snapshot


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter without the MCP SDK (a fresh venv, nothing installed)."""
    return create_venv(tmp_path_factory.mktemp("bare") / "venv").python


def _builtin_in(python: Path) -> AgentTools:
    server = replace(BUILTIN_SERVERS["agenttools"], environment=Environment(python, python.parent))
    return AgentTools(name="builtin-elsewhere", mcp_servers=(server,))


@pytest.mark.slow
def test_builtin_server_without_the_sdk_fails_clearly(
    bare_python: Path, home: Path, state: Path
) -> None:
    import sys

    assert has_mcp_sdk(Path(sys.executable))  # the test environment has the [serve] extra
    assert not has_mcp_sdk(bare_python)
    tools = _builtin_in(bare_python)
    with pytest.raises(MCPSDKMissing) as info:
        deploy("claude-code", tools)
    message = str(info.value)
    assert f"run by {bare_python}" in message
    assert "pip install 'agenttools[serve]'" in message
    assert snapshot(home, state) == {}  # nothing written
    plan = deploy("claude-code", tools, dry_run=True)
    assert not plan.ok and plan.errors[0].tag == "MCPSDKMissing"
    # uvx installs agenttools[serve] itself
    dep = deploy("claude-code", tools, runner="uvx")
    assert dep.launches["agenttools"].command_line[:3] == [
        "uvx",
        "--from",
        f"agenttools[serve]=={dep.record.agenttools_version}",
    ]
