"""The build hook class. (Filled in by the build-hook work.)"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class AgentToolsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "agenttools"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        return None
