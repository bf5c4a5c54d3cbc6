"""The command lines read without argparse (``cli.quick_arguments``, the ``QUICK`` tables)
against argparse itself, on random lines: every line the quick reader accepts, argparse
accepts too and reads into the same namespace. Lines are made of each command's own options
(their ``=`` forms, abbreviations, empty and ``-`` values, repeats), its choices, ``--``,
``-h`` and arbitrary words; ``tests/test_startup_imports.py`` checks the chosen lines."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenttools_runtime.cli import COMMAND_MODULES, Quick, build_parser, quick_arguments


def quick_tables() -> dict[str, Quick]:
    import importlib

    tables: dict[str, Quick] = {}
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        tables.update(
            getattr(importlib.import_module(f"agenttools_runtime.cli.{module}"), "QUICK", {})
        )
    return tables


QUICK = quick_tables()
PARSER = build_parser()
HOSTILE = ["", " ", "-", "--", "-h", "--help", "-x", "-1", "-1.5", "--version", "é", "a b", "=x"]


def items(quick: Quick) -> st.SearchStrategy[list[str]]:
    """One item of a line of this command: an option (alone, with its value as the next word
    or after ``=``, abbreviated, given twice), the options of an exclusive group, a positional
    word, or a word no option takes."""
    options = [*quick.flags, *quick.consts, *quick.values, *quick.appending]
    named = [*options, *(option[:-2] for option in options), "--help", "--version"]
    allowed = [choice for choices in quick.choices.values() for choice in choices]
    values = st.one_of(
        st.sampled_from([*HOSTILE, *allowed, *options, "value"]), st.text(max_size=3)
    )
    groups = [list(group) for group in quick.exclusive] or [["--json"]]
    repeated = [[o, "one", o, "two"] for o in (*quick.values, *quick.appending)] or [["--json"]]
    return st.one_of(
        st.sampled_from(groups),  # two options of which argparse allows one
        st.sampled_from(repeated),  # the last one, or each one
        st.builds(lambda option, value: [option, value], st.sampled_from(named), values),
        st.builds(lambda option, value: [f"{option}={value}"], st.sampled_from(named), values),
        st.sampled_from(named).map(lambda option: [option]),
        values.map(lambda word: [word]),
        st.sampled_from(["value", "cursor", "claude-code,cursor"]).map(lambda word: [word]),
    )


def parsed(line: list[str]) -> dict[str, object] | int:
    """argparse's namespace of *line*, or its exit status."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(PARSER.parse_args(line))
        except SystemExit as exc:
            return int(exc.code or 0)


@pytest.mark.parametrize("command", sorted(QUICK))
def test_a_line_read_without_argparse_is_read_as_argparse_reads_it(command: str) -> None:
    accepted = []

    @settings(max_examples=300)
    @given(st.lists(items(QUICK[command]), max_size=5))
    def check(chosen: list[list[str]]) -> None:
        line = [command, *(word for item in chosen for word in item)]
        quick = quick_arguments(line)
        if quick is None:
            return  # argparse reads it (and says what is wrong with it)
        accepted.append(line)
        assert parsed(line) == vars(quick), line

    check()
    assert accepted  # (the lines made do reach the quick reader's answers)
