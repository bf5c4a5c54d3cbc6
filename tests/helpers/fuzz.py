"""Hypothesis settings of the fuzz tests: a fast profile for CI, a deep one for long runs.

``AGENTTOOLS_FUZZ=ci`` (the default) runs each fuzz test over a fixed, derandomized sequence of
examples, so CI is reproducible and quick. ``AGENTTOOLS_FUZZ=deep`` runs many more examples
from a random seed (hypothesis prints the seed of a failure); ``AGENTTOOLS_FUZZ_EXAMPLES=N``
sets the number of examples of either profile. ``NOSHRINK=1`` reports the first failing
example as generated (faster when hunting)::

    AGENTTOOLS_FUZZ=deep python -m pytest -q tests/test_validate_fuzz.py tests/mcp/test_properties.py
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, settings

F = TypeVar("F", bound=Callable[..., Any])

PROFILE = os.environ.get("AGENTTOOLS_FUZZ", "ci")
if PROFILE not in ("ci", "deep"):
    raise ValueError(f"AGENTTOOLS_FUZZ={PROFILE!r}: use 'ci' or 'deep'")


def fuzz(ci_examples: int, deep_examples: int | None = None) -> Callable[[F], F]:
    """The settings of one fuzz test: *ci_examples* in the CI profile, *deep_examples*
    (default 50 times as many) in the deep one."""
    deep = PROFILE == "deep"
    count = (deep_examples or ci_examples * 50) if deep else ci_examples
    count = int(os.environ.get("AGENTTOOLS_FUZZ_EXAMPLES", count))
    decorator: Callable[[F], F] = settings(
        max_examples=count,
        derandomize=not deep,
        deadline=None,
        phases=[Phase.explicit, Phase.generate] if os.environ.get("NOSHRINK") else list(Phase),
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        database=None if not deep else settings.default.database,
    )
    return decorator
