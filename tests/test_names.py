"""The naming rules (agenttools_runtime/names.py): one rule per kind of name, the same for the
build hook and the runtime; distribution names exactly as packaging treats them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.utils import InvalidName, canonicalize_name

from agenttools_runtime import errors, names

DIST_CHARS = st.text(alphabet="aAzZ09._-", max_size=12)


def test_canonical_dist_name_is_pep_503() -> None:
    assert names.canonical_dist_name("My_Pkg") == "my-pkg"
    assert names.canonical_dist_name("a.b__c--d") == "a-b-c-d"
    assert names.canonical_dist_name("Weather-Tools") == "weather-tools"


@given(st.one_of(DIST_CHARS, st.text(max_size=12)))
def test_canonical_dist_name_equals_packaging(name: str) -> None:
    assert names.canonical_dist_name(name) == canonicalize_name(name)


@given(st.one_of(DIST_CHARS, st.text(max_size=12)))
def test_dist_name_rule_equals_packaging_validation(name: str) -> None:
    try:
        canonicalize_name(name, validate=True)
        valid = True
    except InvalidName:
        valid = False
    # packaging's pattern ends with $, which also matches before a final newline
    assert names.is_dist_name(name) == (valid and not name.endswith("\n"))


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("weather-report", True),
        ("a", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("Weather-Report", False),
        ("a--b", False),
        ("-a", False),
        ("a-", False),
        ("a_b", False),
        ("", False),
        ("..", False),
        ("a/b", False),
        ("ｆｏｏ", False),
        (5, False),
    ],
)
def test_skill_names(name: object, valid: bool) -> None:
    assert names.is_skill_name(name) is valid
    assert (not names.skill_name_problems(name)) is valid if isinstance(name, str) else True
    if valid:
        assert names.check_skill_name(name) == name
    else:
        with pytest.raises(errors.InvalidAgentSkillName):
            names.check_skill_name(name)


def test_skill_name_problems_use_skills_ref_wording() -> None:
    assert names.skill_name_problems("a--b") == ["Skill name cannot contain consecutive hyphens"]
    assert names.skill_name_problems("ok", directory="other") == [
        "Directory name 'other' must match skill name 'ok'"
    ]


@pytest.mark.parametrize(
    ("name", "valid"), [("weather", True), ("My Server", True), ("a/b", False), (" ", False)]
)
def test_item_names(name: str, valid: bool) -> None:
    assert names.is_item_name(name) is valid
    assert (names.item_name_problem(name, "server") is None) is valid


@pytest.mark.parametrize(
    ("reference", "item", "skill"),
    [
        ("weather", True, True),
        ("My Server", True, False),
        ("other-dist/weather", True, True),
        ("other_dist.x/Some Server", True, False),
        ("-bad/weather", False, False),
        ("a/b/c", False, False),
        ("dist/", False, False),
        ("dist/Weather", True, False),
    ],
)
def test_references(reference: str, item: bool, skill: bool) -> None:
    assert names.is_item_reference(reference) is item
    assert names.is_skill_reference(reference) is skill


def test_provider_names() -> None:
    assert names.is_provider_name("weather-tools")
    assert not names.is_provider_name("-x")
    assert not names.is_provider_name("a" * 64)
