"""The ``ArgumentParser`` of the CLI: argparse's, minus one start-up cost.

argparse builds a help formatter for every argument it adds (to check the metavar), and its
formatter imports ``shutil`` to learn the terminal width — with ``shutil`` come ``zlib``,
``bz2``, ``lzma`` and ``fnmatch``, about a sixth of what ``agenttools list`` costs beyond the
interpreter itself (``benchmarks/startup.py``). This parser hands its formatters the width,
computed as ``shutil.get_terminal_size`` does. Subparsers are of the parser's class, so every
parser of the CLI gets it; a parser given its own ``formatter_class`` keeps that.
"""

from __future__ import annotations

import argparse
import functools

from agenttools_runtime.cli.top_help import help_width

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault(
            "formatter_class", functools.partial(argparse.HelpFormatter, width=help_width())
        )
        super().__init__(*args, **kwargs)

    # said after "unrecognized arguments" for this command (how deploy takes several clients)
    unrecognized_hint = ""

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            hint = self._hint(parsed)
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return parsed

    def _hint(self, parsed: argparse.Namespace) -> str:
        """The ``unrecognized_hint`` of the (sub)command that was parsed."""
        parser: Parser = self
        while True:
            sub = next(
                (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None
            )
            chosen = None if sub is None else getattr(parsed, str(sub.dest), None)
            if sub is None or chosen not in sub.choices:
                break
            parser = sub.choices[chosen]
        hint = getattr(parser, "unrecognized_hint", "")
        return f" ({hint})" if hint else ""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # an unknown command or choice: say which one was meant ("deplyo" -> "deploy")
        choices = action.choices
        if choices is not None and isinstance(value, str) and value not in choices:
            from agenttools_runtime.suggest import did_you_mean

            known = [str(c) for c in choices]
            raise argparse.ArgumentError(
                action,
                f"invalid choice: {value!r}.{did_you_mean(value, known)} "
                f"(choose from {', '.join(map(repr, known))})",
            )
        super()._check_value(action, value)
