"""Hatchling plugin registration (entry point group ``hatch``). Kept import-light: the hook
class is imported only when hatchling asks for it."""

from __future__ import annotations

from typing import Any

from hatchling.plugin import hookimpl


@hookimpl
def hatch_register_build_hook() -> Any:
    from agenttools_hook.plugin import AgentToolsBuildHook

    return AgentToolsBuildHook
