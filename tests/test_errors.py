"""The message table: every class has its text; str() is the user's sentence."""

from __future__ import annotations

import inspect
import string

import pytest

from agenttools_runtime import errors

CLASSES = [
    obj
    for _, obj in inspect.getmembers(errors, inspect.isclass)
    if issubclass(obj, (errors.AgentToolsError, errors.AgentToolsWarning))
    and obj not in (errors.AgentToolsError, errors.AgentToolsWarning, errors.AgentToolsErrors)
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_class_has_a_message(cls: type) -> None:
    assert cls.tag in errors.MESSAGES  # type: ignore[attr-defined]


@pytest.mark.parametrize("tag", sorted(errors.MESSAGES))
def test_templates_use_positional_fields_only(tag: str) -> None:
    fields = [f for _, f, _, _ in string.Formatter().parse(errors.MESSAGES[tag]) if f is not None]
    assert all(f.isdigit() for f in fields), fields


def test_str_is_the_formatted_message() -> None:
    err = errors.AgentSkillExists("weather", "/h/.claude/skills/weather", "--force")
    assert str(err) == (
        'A different skill named "weather" already exists at /h/.claude/skills/weather. '
        "Use --force to replace it."
    )
    assert err.to_json()["tag"] == "AgentSkillExists"


def test_error_group_lists_every_message() -> None:
    group = errors.AgentToolsErrors(
        [errors.AgentSkillModified("a", "/x/a"), errors.AgentSkillUpdate("b", "/x/b")]
    )
    assert str(group).splitlines() == [
        errors.AgentSkillModified("a", "/x/a").message,
        errors.AgentSkillUpdate("b", "/x/b").message,
    ]
    assert [e["tag"] for e in group.to_json()["errors"]] == [
        "AgentSkillModified",
        "AgentSkillUpdate",
    ]


def test_warning_and_error_can_share_a_text() -> None:
    warning = errors.AgentSkillRemoveFailedWarning("a", "/x/a", "busy")
    assert warning.tag == "AgentSkillRemoveFailed"
    assert str(warning) == str(errors.AgentSkillRemoveFailed("a", "/x/a", "busy"))


def test_errors_and_warnings_survive_pickling() -> None:
    import pickle

    err = errors.AgentSkillExists("w", "/x/w", "--force", path="/x/w")
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.data == {"path": "/x/w"}
    warning = errors.AgentSkillInUse("w", "/x/w")
    assert str(type(warning)(*warning.args)) == str(warning)  # how pytest-xdist rebuilds it
    group = pickle.loads(pickle.dumps(errors.AgentToolsErrors([err])))
    assert str(group) == str(err)


def test_missing_parameters_do_not_raise() -> None:
    assert "{1}" in str(errors.AgentSkillInUse("w"))
