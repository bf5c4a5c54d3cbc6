"""A child process of the crash and signal tests: run one ``agenttools`` command in this
process and send this process a signal at a chosen moment.

    python crashing_child.py SIGNAL MOMENT ARGV...

SIGNAL is ``KILL``, ``INT`` or ``TERM``. MOMENT is ``never``; ``point:NAME`` or
``point:NAME@N`` (the first, or N-th, time the operation reaches the named point, see
``agenttools_runtime.fs.checkpoint``); ``write:K`` (just before its K-th file system
mutation); or ``after:NAME@K`` (the K-th mutation after the first ``NAME``). ARGV is an
``agenttools`` command line, run by ``agenttools_runtime.cli.main``. The exit status is the
command's (or the signal's). The number of mutations the command made is printed to stderr
as ``mutations: N`` when it ends, so a parent can choose K.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agenttools_runtime import fs
from agenttools_runtime.cli import main

SIGNALS = {"KILL": signal.SIGKILL, "INT": signal.SIGINT, "TERM": signal.SIGTERM}


class Trigger:
    """An fs observer that signals this process once, at the chosen moment."""

    def __init__(self, signum: int, moment: str) -> None:
        self.signum = signum
        self.kind, _, rest = moment.partition(":")
        name, _, count = rest.partition("@")
        if self.kind == "write":
            name, count = "", rest
        self.name, self.count = name, int(count or 1)
        self.armed = self.kind == "write"
        self.seen = 0
        self.mutations = 0
        self.fired = False

    def __call__(self, operation: str, path: Path) -> None:
        if operation.startswith("checkpoint:"):
            if operation[len("checkpoint:") :] != self.name:
                return
            if self.kind == "point":
                self.seen += 1
                if self.seen == self.count:
                    self.fire()
            elif self.kind == "after":
                self.armed = True
            return
        self.mutations += 1
        if self.armed and not self.fired:
            self.seen += 1
            if self.seen == self.count:
                self.fire()

    def fire(self) -> None:
        if self.fired:
            return
        self.fired = True
        os.kill(os.getpid(), self.signum)


def run(argv: list[str]) -> int:
    signum = SIGNALS[argv[0]]
    trigger = Trigger(signum, argv[1])
    status = 0
    try:
        with fs.observe(trigger):
            status = main(argv[2:])
    finally:
        print(f"mutations: {trigger.mutations}", file=sys.stderr, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
