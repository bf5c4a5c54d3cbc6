"""The field-driven JSON form of state objects: exact types on the way in, the failing
field's path in the message, unknown keys kept, byte-stable output."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from agenttools_runtime import jsonform
from agenttools_runtime.deploy import journal, shapes
from agenttools_runtime.jsonform import Malformed


class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Leaf(jsonform.Form):
    WHAT = "a leaf"
    size: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Tree(jsonform.Form):
    WHAT = "the tree"
    name: str = field(metadata=jsonform.key(check=shapes.is_name, means="a plain name"))
    colour: Colour
    leaves: tuple[Leaf, ...] = ()
    by_name: Mapping[str, Leaf] = field(default_factory=dict)
    pair: tuple[str, int] | None = field(default=None, metadata=jsonform.key(omit=None))
    tags: tuple[str, ...] = ()
    data: Any = None
    ripe: bool = False
    hidden: str = field(default="", metadata=jsonform.key("hidden-name", omit=""))
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)


def test_a_tree_goes_to_json_and_back() -> None:
    tree = Tree(
        "oak",
        Colour.RED,
        leaves=(Leaf(1), Leaf(2, "b")),
        by_name={"x": Leaf(3)},
        pair=("a", 1),
        tags=("t",),
        data={"any": [1, None]},
        hidden="h",
        extra={"later": {"kept": True}},
    )
    data = tree.to_json()
    assert data == {
        "later": {"kept": True},
        "name": "oak",
        "colour": "red",
        "leaves": [{"size": 1, "label": None}, {"size": 2, "label": "b"}],
        "by_name": {"x": {"size": 3, "label": None}},
        "pair": ["a", 1],
        "tags": ["t"],
        "data": {"any": [1, None]},
        "ripe": False,
        "hidden-name": "h",
    }
    assert Tree.from_json(json.loads(json.dumps(data))) == tree


def test_omitted_values_are_left_out_and_absent_fields_take_their_defaults() -> None:
    assert "pair" not in Tree("oak", Colour.BLUE).to_json()
    assert "hidden-name" not in Tree("oak", Colour.BLUE).to_json()
    assert Tree.from_json({"name": "oak", "colour": "blue"}) == Tree("oak", Colour.BLUE)
    read = Tree.from_json({"name": "oak", "colour": "blue", "pair": None})
    assert read == Tree("oak", Colour.BLUE)  # null is None for an optional field


@pytest.mark.parametrize(("key", "message"), [("tags", "an array"), ("ripe", "true or false")])
def test_null_is_not_the_default_of_a_field_that_is_never_null(key: str, message: str) -> None:
    """A null where agenttools writes a value is refused, not read as the default (a
    record's null list of entries read as none would leave them untracked)."""
    with pytest.raises(jsonform.Malformed, match=f"the tree.{key} is not {message}"):
        Tree.from_json({"name": "oak", "colour": "blue", key: None})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "the tree is not an object"),
        ({"colour": "red"}, "the tree has no name"),
        ({"name": None, "colour": "red"}, "the tree.name is not a string"),
        ({"name": "../x", "colour": "red"}, "the tree.name is not a plain name"),
        ({"name": "oak", "colour": "green"}, "the tree.colour is not one of red, blue"),
        ({"name": "oak", "colour": "red", "ripe": 1}, "the tree.ripe is not true or false"),
        ({"name": "oak", "colour": "red", "tags": "t"}, "the tree.tags is not an array"),
        ({"name": "oak", "colour": "red", "tags": ["t", 1]}, "the tree.tags[1] is not a string"),
        (
            {"name": "oak", "colour": "red", "leaves": [{"size": 1}, {"size": True}]},
            "the tree.leaves[1].size is not an integer",
        ),
        ({"name": "oak", "colour": "red", "leaves": [{}]}, "the tree.leaves[0] has no size"),
        (
            {"name": "oak", "colour": "red", "by_name": {"x": {"size": 1, "label": 2}}},
            "the tree.by_name.x.label is not a string",
        ),
        ({"name": "oak", "colour": "red", "pair": ["a"]}, "the tree.pair is not an array of 2"),
        (
            {"name": "oak", "colour": "red", "pair": ["a", "b"]},
            "the tree.pair[1] is not an integer",
        ),
    ],
)
def test_a_value_of_another_type_is_refused_naming_its_path(data: object, message: str) -> None:
    with pytest.raises(Malformed) as caught:
        Tree.from_json(data)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)  # (the family every state reader catches)


@dataclass(frozen=True, slots=True)
class Flat(jsonform.Form):
    """Fields kept flat that the JSON nests in an object (``where``), with its unknown keys."""

    WHAT = "the flat"
    kind: Literal["a", "b"]
    path: str = field(metadata=jsonform.key("where.path"))
    line: int = field(default=0, metadata=jsonform.key("where.line"))
    note: str = ""
    where_extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.extra("where"))
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)


def test_a_dotted_name_is_a_field_of_an_inner_object() -> None:
    flat = Flat("a", "/p", 3, "n", where_extra={"column": 1}, extra={"later": 2})
    data = flat.to_json()
    assert data == {
        "later": 2,
        "kind": "a",
        "where": {"column": 1, "path": "/p", "line": 3},
        "note": "n",
    }
    assert list(data) == ["later", "kind", "where", "note"]  # (where its first field is)
    assert Flat.from_json(json.loads(json.dumps(data))) == flat
    assert Flat.from_json({"kind": "b", "where": {"path": "/q"}}) == Flat("b", "/q")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "c", "where": {"path": "/p"}}, "the flat.kind is not one of a, b"),
        ({"kind": "a"}, "the flat.where has no path"),
        ({"kind": "a", "where": None}, "the flat.where is not an object"),
        (
            {"kind": "a", "where": {"path": "/p", "line": "3"}},
            "the flat.where.line is not an integer",
        ),
    ],
)
def test_an_inner_object_is_checked_naming_its_path(data: object, message: str) -> None:
    with pytest.raises(Malformed) as caught:
        Flat.from_json(data)
    assert str(caught.value) == message


def test_a_journal_is_written_as_before_and_read_back(tmp_path: Path) -> None:
    entry = journal.Journal(
        tmp_path / "1-deploy-u.json",
        journal.Kind.DEPLOY,
        "u",
        name="tools",
        skills=(journal.SkillChange("s", "/r", {"SKILL.md": "0" * 64}, ".agenttools-x", None),),
        entries=(journal.EntryChange("k", None),),
        extra={"from-a-later-version": 1},
    )
    data = entry.to_json()
    assert data["schema"] == journal.JOURNAL_SCHEMA and data["kind"] == "deploy"
    assert "link" not in data["skills"][0] and data["owned_by"] is None
    assert journal.parse(entry.path, json.loads(json.dumps(data))) == entry
    with pytest.raises(Malformed, match=r"skills\[0\].staging is not a staging or backup name"):
        journal.parse(entry.path, {**data, "skills": [{**data["skills"][0], "staging": "../x"}]})
    with pytest.raises(Malformed, match="unknown journal schema 2"):
        journal.parse(entry.path, {**data, "schema": 2})
