"""Failures injected into the filesystem layer (:mod:`agenttools_runtime.fs`): the k-th
mutation of a block, or a named checkpoint, raises, through the layer's observer hook
(``fs.observe``).

    with inject(fail_at=3):          # the third mutation raises OSError
        deploy(...)
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable, Iterator
from pathlib import Path

from agenttools_runtime import fs


class FaultInjector:
    """Counts mutations; raises ``OSError`` at the ``fail_at``-th one (1-based) and/or at
    the checkpoint named ``fail_at_checkpoint``. ``log`` lists every (operation, path) seen."""

    def __init__(
        self,
        fail_at: int | None = None,
        fail_at_checkpoint: str | None = None,
        exception: Callable[[str, Path], BaseException] | None = None,
    ) -> None:
        self.fail_at = fail_at
        self.fail_at_checkpoint = fail_at_checkpoint
        self.exception = exception
        self.log: list[tuple[str, Path]] = []
        self.count = 0

    def __call__(self, operation: str, path: Path) -> None:
        self.log.append((operation, path))
        if operation.startswith("checkpoint:"):
            if operation == f"checkpoint:{self.fail_at_checkpoint}":
                raise self._error(operation, path)
            return
        self.count += 1
        if self.fail_at is not None and self.count == self.fail_at:
            raise self._error(operation, path)

    def _error(self, operation: str, path: Path) -> BaseException:
        if self.exception is not None:
            return self.exception(operation, path)
        return OSError(errno.EIO, f"injected failure at {operation}", str(path))


@contextlib.contextmanager
def inject(
    fail_at: int | None = None,
    fail_at_checkpoint: str | None = None,
    exception: Callable[[str, Path], BaseException] | None = None,
) -> Iterator[FaultInjector]:
    """Make the ``fail_at``-th mutation (or the named checkpoint) of the block fail."""
    injector = FaultInjector(fail_at, fail_at_checkpoint, exception)
    with fs.observe(injector):
        yield injector
