"""The one exception a build through agenttools fails with (hatchling hook and wrapping
backend alike): what pip and ``python -m build`` users read is the last line of the
traceback, so its name says what failed and its message lists every problem."""

from __future__ import annotations


class AgentToolsBuildError(Exception):
    """The wheel or sdist cannot be built as declared; the message lists every problem."""
