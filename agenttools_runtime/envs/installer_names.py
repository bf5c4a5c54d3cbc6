"""The installers a managed environment can be made with, by name: the choices of
``deploy --installer``, the names :func:`agenttools_runtime.envs.installer.find_installer`
accepts. Apart from ``installer.py``, which runs them (and so imports subprocess), because
the command line's parser offers them on every start (``tests/cli/test_start_up_imports.py``)."""

from __future__ import annotations

# in the order find_installer prefers them when none is named
INSTALLERS = ("uv", "pip")
