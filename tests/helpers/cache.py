"""The test cache: what one test run keeps for later runs on this machine (the npm clients,
pre-commit's store, pip's downloads), and the run-wide directory the xdist workers of one run
share.

``$AGENTTOOLS_TEST_CACHE`` names the cache directory; by default it is ``.test-cache`` in the
checkout (gitignored). Point several checkouts at one directory (or symlink ``.test-cache``)
to share it; set it to an empty directory to measure a run from a cold cache. Everything in it
is written under a file lock, so parallel workers and concurrent runs share it safely.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CACHE_VARIABLE = "AGENTTOOLS_TEST_CACHE"


def cache_path(*parts: str) -> Path:
    """``$AGENTTOOLS_TEST_CACHE/<parts>`` (default ``<checkout>/.test-cache/<parts>``)."""
    configured = os.environ.get(CACHE_VARIABLE)
    root = Path(configured) if configured else REPO / ".test-cache"
    return root.joinpath(*parts)


def run_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """``<base temp>/<name>``, shared by every xdist worker of this run (each worker's base
    temp directory is a child of the run's), fresh for every run; created."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/, shared by popen-gw0, popen-gw1, ...
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    return path
