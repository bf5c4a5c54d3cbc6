"""The value classes of the start-up path (``agenttools_runtime/values.py``) behave as frozen
dataclasses do: equality and hashing over their compared fields, ``repr`` in field order,
no assignment, pickling and copying, ``replace`` through ``__init__``."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from pathlib import Path

import pytest

import agenttools_runtime
from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.discovery import InstalledDistribution, SearchPath
from agenttools_runtime.errors import InvalidAgentToolsObject, InvalidManifest
from agenttools_runtime.mcp.server import Environment, MCPServer, Origin
from agenttools_runtime.values import FrozenInstanceError, Value, replace
from agenttools_runtime.wheel.manifest import BundleEntry, SkillEntry, WheelManifest

ENV = Environment(Path("/env/bin/python"), Path("/env/bin"))


def all_value_classes() -> list[type[Value]]:
    for module in pkgutil.walk_packages(agenttools_runtime.__path__, "agenttools_runtime."):
        if module.name.rpartition(".")[2] not in ("__main__", "serve"):
            importlib.import_module(module.name)
    found: list[type[Value]] = []
    pending = list(Value.__subclasses__())
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def test_every_value_class_annotates_exactly_its_slots() -> None:
    classes = all_value_classes()
    assert {c.__name__ for c in classes} >= {"MCPServer", "AgentTools", "WheelManifest"}
    for cls in classes:
        slots = set(cls.__dict__.get("__slots__", ()))
        annotated = {n for n in inspect.get_annotations(cls) if not n.startswith("_")}
        assert slots == annotated, cls
        # no instance __dict__ anywhere in the hierarchy: a mistyped attribute cannot be set
        assert cls.__dictoffset__ == 0, cls


def test_equality_and_hash_leave_out_uncompared_fields() -> None:
    origin = Origin("weather-tools", "1.0", {"weather": "weather.server"})
    a = MCPServer("weather", module="weather.server", environment=ENV, origin=origin)
    b = MCPServer("weather", module="weather.server", environment=ENV)
    assert a == b
    assert a != replace(a, args=("--verbose",))
    assert a != ("weather",) and a.__eq__(object()) is NotImplemented
    entry = BundleEntry("b", mcp_servers=("s",))
    assert {entry, BundleEntry("b", mcp_servers=("s",))} == {entry}
    dist = InstalledDistribution("d", "D", "1", Path("/d"), manifest=WheelManifest("d", "1"))
    assert hash(dist) == hash(replace(dist, manifest=None)) and dist == replace(dist, manifest=None)
    # a mapping field makes a value unhashable, as with a frozen dataclass
    with pytest.raises(TypeError):
        hash(MCPServer("x", command="x"))


def test_repr_is_in_field_order_without_unshown_fields() -> None:
    assert repr(Origin("p", "1")) == "Origin(project='p', version='1', scripts={}, extras=())"
    dist = InstalledDistribution(
        "d", "D", "1", Path("/d.dist-info"), error=InvalidManifest(distribution="d", reason="r")
    )
    assert repr(dist).startswith("InstalledDistribution(name='d', display_name='D', version='1'")
    assert "error" not in repr(dist) and "problem=None" in repr(dist)
    assert "search" not in repr(AgentTools("adhoc", search=SearchPath((), ENV)))


def test_fields_cannot_be_assigned_or_deleted() -> None:
    server = MCPServer("x", command="x")
    with pytest.raises(FrozenInstanceError):
        server.name = "y"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del server.name  # type: ignore[misc]
    with pytest.raises(AttributeError):
        server.anything = 1  # type: ignore[attr-defined]
    assert issubclass(FrozenInstanceError, AttributeError)


def test_pickle_and_copy_round_trip() -> None:
    manifest = WheelManifest(
        "d",
        "1",
        bundles=(BundleEntry("b", skills=("s",)),),
        skills={"s": SkillEntry("s", "A skill.", {"SKILL.md": "0" * 64})},
    )
    for value in (manifest, MCPServer("x", url="https://x", origin=Origin("p", "1")), ENV):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value and copy.copy(value) == value
    assert pickle.loads(pickle.dumps(manifest)).skills["s"].files == {"SKILL.md": "0" * 64}


def test_replace_validates_again() -> None:
    server = MCPServer("x", url="https://example.org/mcp")
    assert server.transport == "http"  # as __post_init__ set it
    assert replace(server, transport="sse").transport == "sse"
    with pytest.raises(InvalidAgentToolsObject):
        replace(server, command="x")  # two launch keys
    assert replace(manifest := WheelManifest("d", "1"), version="2") == WheelManifest("d", "2")
    assert manifest.version == "1"


def test_defaults_are_not_shared() -> None:
    a, b = MCPServer("a", command="a"), MCPServer("b", command="b")
    assert a.env == {} and a.env is not b.env
    assert not dataclasses.is_dataclass(a)
