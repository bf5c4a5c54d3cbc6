"""The probe of ``--check`` against real server processes: the last line a server that exits
wrote on stderr is in the problem, even when it reaches the pipe after the process is gone."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agenttools_runtime.mcp.probe import ProbeFailed, probe

# The server exits at once; a child it leaves behind (holding stderr, not stdout) says why
# once its parent is gone, as a loaded machine can delay a reader thread past the exit.
EXITS_THEN_SAYS_WHY = """\
import os, sys, time
parent = os.getpid()
if os.fork() == 0:
    os.close(1)
    deadline = time.monotonic() + 30
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.001)
    os.write(2, b"starting\\nbad key: *****\\n")
    os._exit(0)
os._exit(1)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="os.fork")
def test_the_last_line_of_a_server_that_exits_is_in_the_problem(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(EXITS_THEN_SAYS_WHY)
    with pytest.raises(ProbeFailed) as failed:
        probe([sys.executable, str(server)], {}, timeout=60)
    assert str(failed.value) == "it exited with status 1: bad key: *****"
