"""The real CLI in a subprocess with some of its standard streams on a pseudo-terminal and the
others piped (POSIX only), answering the first ``[y/N]`` question it asks, wherever it asks
it (the terminal or a pipe) — so a test sees both where a question went and what the command
did with the answer::

    done = run_on_terminal(["sync", "--prune"], terminal=("stdin", "stderr"), answer=b"y\\n")
    assert done.asked_on == "terminal" and done.status == 0

A piped stdin is closed at once (end of input); ``answer=None`` sends SIGINT (Ctrl-C) at the
question instead of answering it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

QUESTION = b"[y/N] "
STREAMS = ("stdin", "stdout", "stderr")


@dataclass(frozen=True)
class TerminalRun:
    """What one run showed: its exit status, the pseudo-terminal's output (with its echo of
    the answer), the piped stdout and stderr ("" when on the terminal), and where the
    question was seen ("terminal", "stdout", "stderr", or "" when none was asked)."""

    status: int
    terminal: str
    stdout: str
    stderr: str
    asked_on: str


def run_on_terminal(
    argv: Sequence[str],
    *,
    terminal: Sequence[str],
    answer: bytes | None = b"\n",
    deadline: float = 120,
) -> TerminalRun:
    """``python -m agenttools ARGV`` with the streams named in *terminal* on one
    pseudo-terminal, run until it ends (within *deadline* seconds, else it is killed and
    the test fails)."""
    import pty

    leader, follower = pty.openpty()
    where = {s: (follower if s in terminal else subprocess.PIPE) for s in STREAMS}
    process = subprocess.Popen(
        [sys.executable, "-m", "agenttools", *argv],
        stdin=where["stdin"],
        stdout=where["stdout"],
        stderr=where["stderr"],
    )
    os.close(follower)
    if process.stdin is not None:
        process.stdin.close()  # a piped stdin: end of input at once
    seen = {"terminal": b"", "stdout": b"", "stderr": b""}
    sources = {leader: "terminal"}
    for name, pipe in (("stdout", process.stdout), ("stderr", process.stderr)):
        if pipe is not None:
            sources[pipe.fileno()] = name
    asked_on = ""
    end = time.monotonic() + deadline
    try:
        while sources:
            if time.monotonic() > end:
                raise AssertionError(f"still running after {deadline} s; it showed {seen}")
            ready, _, _ = select.select(list(sources), [], [], 1)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the terminal, once every process holding it has closed it
                    chunk = b""
                if not chunk:
                    del sources[fd]
                    continue
                seen[sources[fd]] += chunk
                if not asked_on and QUESTION in seen[sources[fd]]:
                    asked_on = sources[fd]
                    if answer is None:
                        process.send_signal(signal.SIGINT)
                    else:
                        os.write(leader, answer)
        status = process.wait(timeout=max(1.0, end - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        os.close(leader)
    text = {name: data.decode(errors="replace") for name, data in seen.items()}
    return TerminalRun(status, text["terminal"], text["stdout"], text["stderr"], asked_on)
