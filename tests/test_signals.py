"""SIGINT and SIGTERM around a commit section: deferred until it ends, then acted on as they
would have been; SIGTERM unwinds like Ctrl-C while the state lock is held."""

from __future__ import annotations

import os
import signal

import pytest

from agenttools_runtime import lock, signals


def test_a_signal_in_a_deferred_section_is_acted_on_when_it_ends() -> None:
    done = []
    with pytest.raises(KeyboardInterrupt), signals.deferred() as received:
        os.kill(os.getpid(), signal.SIGINT)
        done.append("the section ran to its end")
        assert received == [signal.SIGINT]
    assert done == ["the section ran to its end"]


def test_nested_sections_defer_to_the_outermost() -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt), signals.deferred():
        with signals.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("inner")
        steps.append("outer")  # the inner section's end did not act on it
    assert steps == ["inner", "outer"]


def test_sigterm_under_the_state_lock_unwinds_as_interrupted(tmp_path: object) -> None:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with pytest.raises(signals.Interrupted) as caught, lock.state_lock():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes
            pass
    assert caught.value.signum == signal.SIGTERM
    assert caught.value.exit_status == 143
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored


def test_sigterm_deferred_under_the_lock_is_replayed_as_interrupted() -> None:
    with pytest.raises(signals.Interrupted) as caught, lock.state_lock(), signals.deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        finished = True
    assert finished and caught.value.signum == signal.SIGTERM


def test_interrupted_carries_what_the_operation_left() -> None:
    exc = signals.Interrupted.from_interrupt(KeyboardInterrupt(), "every change was rolled back")
    assert exc.signum == signal.SIGINT and exc.exit_status == 130
    assert isinstance(exc, KeyboardInterrupt)
    assert exc.outcome == "every change was rolled back"
