"""SIGINT and SIGTERM during an operation on the shared state: unwound, or deferred.

While a writer holds the state lock, :func:`interruptible` makes SIGTERM raise
:class:`Interrupted` the way SIGINT raises ``KeyboardInterrupt``, so a killed ``deploy`` rolls
back instead of dying half-way. Inside :func:`deferred` (a commit section, a rollback) both are
only noted, and replayed through the handlers they would have reached once the section has
ended at a consistent point. The operation then says where it stopped: :class:`Interrupted`
carries the signal and the outcome ("every change was rolled back", "deployment … was
committed"), which the CLI prints before exiting with 128 + the signal number.

Signal handlers can only be set in the main thread; elsewhere both functions do nothing.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Handler = Callable[[int, FrameType | None], Any] | int | None


class Interrupted(KeyboardInterrupt):
    """An operation stopped by a signal; ``outcome`` says what state it left behind,
    ``committed`` the ids of the deployments it committed (deployed or removed) before it
    stopped, and ``partial`` what an operation on several targets finished before (for its
    caller to print)."""

    def __init__(
        self, signum: int = int(signal.SIGINT), outcome: str = "", committed: tuple[str, ...] = ()
    ) -> None:
        super().__init__(signum, outcome)
        self.signum: int = int(signum)
        self.outcome = outcome
        self.committed = committed
        self.partial: Any = None

    @property
    def exit_status(self) -> int:
        return 128 + int(self.signum)

    @classmethod
    def from_interrupt(
        cls, exc: BaseException, outcome: str, committed: tuple[str, ...] = ()
    ) -> Interrupted:
        """The same interruption as *exc* (a ``KeyboardInterrupt``), with *outcome*."""
        signum = exc.signum if isinstance(exc, Interrupted) else int(signal.SIGINT)
        return cls(signum, outcome, committed)


def with_outcome(
    exc: KeyboardInterrupt, outcome: str, committed: tuple[str, ...] = ()
) -> Interrupted:
    """*exc* itself when it already says its outcome (an inner step said where it stopped),
    else the same interruption with *outcome*."""
    if isinstance(exc, Interrupted) and exc.outcome:
        return exc
    return Interrupted.from_interrupt(exc, outcome, committed)


_DEFERRED = (signal.SIGINT, signal.SIGTERM)
_MARK = "_agenttools_deferred"


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Make SIGTERM raise :class:`Interrupted` in the block (only where nobody set a handler
    of their own: the default action, which kills the process without any clean-up)."""
    if not _main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def deferred() -> Iterator[list[int]]:
    """Note SIGINT/SIGTERM in the block instead of acting on them (yields the list of those
    received, in arrival order); when it ends, replay the first one through the handler it
    would have reached (``KeyboardInterrupt`` for SIGINT, :class:`Interrupted` for SIGTERM
    under :func:`interruptible`). Nested sections defer to the outermost one."""
    received: list[int] = []
    if not _main_thread() or getattr(signal.getsignal(signal.SIGINT), _MARK, False):
        yield received
        return

    def note(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    setattr(note, _MARK, True)  # an inner section sees it and defers to this one
    previous: dict[int, Handler] = {}
    for deferred_signal in _DEFERRED:
        previous[deferred_signal] = signal.signal(deferred_signal, note)
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    # (when the block raised, its error propagates instead: the command fails and says why)
    if received:
        _replay(received[0], previous[received[0]])


def _replay(signum: int, handler: Handler) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # the default action, now that the section is over


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def _main_thread() -> bool:
    # threads are started through `threading`: not imported, none was (and importing it
    # would cost a deploy's start-up ~2 ms)
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()
