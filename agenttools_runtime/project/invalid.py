"""``ProjectInvalid``, the error that lists a project's problems (``path:line: code:
message``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agenttools_runtime.errors import InvalidProject
from agenttools_runtime.project.problems import Problem, errors_of


class ProjectInvalid(InvalidProject):
    """The project has errors; ``str()`` lists every one, one per line."""

    def __init__(self, problems: Sequence[Problem], base: Path | None = None) -> None:
        self.problems = list(problems)
        lines = [f"[tool.agenttools] has {len(errors_of(problems))} error(s):"]
        lines += [f"  {p.format(base)}" for p in problems]
        super().__init__(report="\n".join(lines), problems=[p.to_json() for p in problems])
