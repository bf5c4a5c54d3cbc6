"""The runners a ``module``/``script`` server's entry can be written with, by name (what each
means: :mod:`agenttools_runtime.mcp.runners`): the choices of ``deploy --runner`` and ``mcp
install --runner``, the names :func:`~agenttools_runtime.mcp.runners.choose_runner` accepts.
Apart from ``runners.py``, whose imports the command line's parser, built on every start,
does not need."""

from __future__ import annotations

RUNNERS: tuple[str, ...] = ("python", "script", "uvx")
