"""Frozen dataclasses to and from JSON data, field by field: the form of a state file's
objects, written once as the dataclass.

:meth:`Form.to_json` gives one key per field (its name, or the ``name`` of :func:`key`), each
value as JSON has it: a tuple is an array, a mapping an object, a nested dataclass its
object, an enum or a ``Literal`` its value. A field whose value is its ``omit`` value is left
out; the unknown keys a read kept (the field marked :data:`EXTRA`) come along. A ``name``
``outer.inner`` puts the field in the object ``outer``, written where its first field is (a
part of the file's shape that the class keeps flat); :func:`extra` ``("outer")`` keeps that
object's unknown keys.

:meth:`Form.from_json` is the way back, and checks before it trusts: every value must have
exactly the JSON type its field's annotation says (``true`` is not a number, ``1`` is not a
string), and pass its ``check``, else :class:`Malformed` names the field's path (``the
journal.config[0].after is not a string``). An absent field takes its default; one
without a default is required; null is read only for an optional field (as None). An absent
``outer`` object reads as an empty one. Each class's fields are read once, on first use.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar, Union


class Malformed(ValueError):
    """A JSON value is not of the form its schema says (the message names where)."""


_F = TypeVar("_F", bound="Form")
_NEVER: Any = object()  # (no omit value: the field is always written)
NOT_JSON = {"json": False}  # metadata of a field that is not in the JSON (given on load)


def extra(within: str | None = None) -> dict[str, Any]:
    """Metadata of the field that keeps the keys a class does not know (of the object
    *within*, for fields named ``within.…``)."""
    return {"extra": True, "within": within}


EXTRA = extra()  # (of the class's own object)


def key(
    name: str | None = None,
    *,
    omit: Any = _NEVER,
    check: Callable[[Any], bool] | None = None,
    means: str = "",
) -> dict[str, Any]:
    """Field metadata: the JSON ``name`` (default: the field's; ``outer.inner``: the key
    ``inner`` of the object ``outer``), the value that is left out when written
    (``omit=None``), and a ``check`` a value read must pass (else "… is not *means*")."""
    return {"name": name, "omit": omit, "check": check, "means": means}


OMIT_NONE = key(omit=None)  # (an optional field, left out while None)


class Form:
    """A dataclass mixin: :meth:`to_json` and :meth:`from_json` from the fields (see the
    module docstring). ``WHAT`` names the object in messages (``"a claim"``)."""

    __slots__ = ()
    WHAT: ClassVar[str] = "the object"

    def to_json(self) -> dict[str, Any]:
        return _write(self, _plan(type(self))[-1])

    @classmethod
    def from_json(cls: type[_F], data: object, what: str | None = None) -> _F:
        """The object of *data*; :class:`Malformed` when it is not of this form."""
        return load(cls, data, cls.WHAT if what is None else what)


def load(
    cls: type[_F], data: object, what: str, known: frozenset[str] = frozenset(), **given: Any
) -> _F:
    """The *cls* object of *data* (see the module docstring); *given* are fields the caller
    supplies (not read: a field marked :data:`NOT_JSON`, or one it read itself), *known*
    other keys it read (not kept as unknown)."""
    if type(data) is not dict:
        raise Malformed(f"{what} is not an object")
    values: dict[str, Any] = dict(given)
    for group in _plan(cls):
        obj, where = data, what
        if group.within is not None:
            obj, where = data.get(group.within, _EMPTY), f"{what}.{group.within}"
            if type(obj) is not dict:
                raise Malformed(f"{where} is not an object")
        for field in group.fields:
            if field.attr in given:
                continue
            value = obj.get(field.name)
            if value is None:
                if field.name not in obj:
                    if field.required:
                        raise Malformed(f"{where} has no {field.name}")
                    if field.has_default:
                        continue
                if field.nullable:
                    values[field.attr] = None
                    continue
                # (a null where none is written is refused below, by its type: read as the
                # default, a record's null list of entries would leave them untracked)
            if type(value) is not field.exact:  # (a plain string, number or flag: no call)
                value = field.load(value, f"{where}.{field.name}")
            if field.check is not None and not field.check(value):
                raise Malformed(f"{where}.{field.name} is not {field.means}")
            values[field.attr] = value
        if group.extra is not None:
            names = group.names if group.within else group.names | known
            values[group.extra] = {k: v for k, v in obj.items() if k not in names}
    return cls(**values)


_EMPTY: dict[str, Any] = {}  # (an absent inner object)


def _write(form: Form, group: _Group) -> dict[str, Any]:
    data: dict[str, Any] = {} if group.extra is None else dict(getattr(form, group.extra))
    for item in group.written:
        if isinstance(item, _Group):
            data[str(item.within)] = _write(form, item)
        elif item.omit is _NEVER or getattr(form, item.attr) != item.omit:
            data[item.name] = item.dump(getattr(form, item.attr))
    return data


# -- the plan of a class ---------------------------------------------------------------------

_Load = Callable[[Any, str], Any]
_Dump = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    attr: str
    name: str
    load: _Load
    dump: _Dump
    nullable: bool  # null reads as None
    has_default: bool
    required: bool  # absent is refused
    omit: Any
    exact: type | None  # str, int or bool: a value of exactly that type is taken as it is
    check: Callable[[Any], bool] | None
    means: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Group:
    """The fields of one JSON object: the class's own (``within`` None) or one inside it."""

    within: str | None
    fields: tuple[_Field, ...]
    names: frozenset[str]  # the keys read (the rest are unknown)
    extra: str | None  # the attribute that keeps the unknown keys
    written: tuple[_Field | _Group, ...]  # in order: an inner object where its first field is


_Plan = tuple[_Group, ...]  # the inner objects (read first), then the class's own
_PLANS: dict[type, _Plan] = {}  # each class's, made on first use (a fact of the class)


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _make_plan(cls)
    return plan


def _make_plan(cls: type) -> _Plan:
    hints = typing.get_type_hints(cls)
    groups: dict[str | None, list[_Field]] = {None: []}
    order: list[_Field | str] = []  # the class's own keys: a field, or an inner object's name
    extras: dict[str | None, str] = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("extra"):
            extras[f.metadata["within"]] = f.name
            continue
        if not f.init or f.metadata.get("json") is False:
            continue
        outer, _, name = (f.metadata.get("name") or f.name).rpartition(".")
        inner, optional = _strip_none(hints[f.name])
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        item = _Field(
            attr=f.name,
            name=name,
            load=_loader(inner),
            dump=_dumper(inner),
            nullable=optional or inner is Any,
            has_default=has_default,
            required=not has_default and not optional,
            omit=f.metadata.get("omit", _NEVER),
            exact=inner if inner in _JSON_TYPES else None,
            check=f.metadata.get("check"),
            means=f.metadata.get("means", ""),
        )
        if not outer:
            order.append(item)
        elif outer not in groups:
            order.append(outer)
        groups.setdefault(outer or None, []).append(item)
    names = {w: frozenset(f.name for f in fields) for w, fields in groups.items()}
    names[None] |= {w for w in groups if w is not None}
    objects = {
        w: _Group(w, tuple(fs), names[w], extras.get(w), tuple(fs))
        for w, fs in groups.items()
        if w is not None
    }
    written = tuple(objects[i] if isinstance(i, str) else i for i in order)
    own = _Group(None, tuple(groups[None]), names[None], extras.get(None), written)
    return (*objects.values(), own)


def _strip_none(hint: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(hint, False)``."""
    if typing.get_origin(hint) in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) < len(typing.get_args(hint))
    return hint, False


_JSON_TYPES: dict[type, str] = {str: "a string", int: "an integer", bool: "true or false"}


def _loader(hint: Any) -> _Load:
    """The function that takes a JSON value to the *hint* type (``Malformed`` if it is not)."""
    if hint is Any:
        return lambda value, where: value
    if hint in _JSON_TYPES:
        exact, noun = hint, _JSON_TYPES[hint]

        def scalar(value: Any, where: str) -> Any:
            if type(value) is not exact:
                raise Malformed(f"{where} is not {noun}")
            return value

        return scalar
    if typing.get_origin(hint) is Literal:  # (of strings)
        return _choice({v: v for v in typing.get_args(hint)})
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _choice({m.value: m for m in hint})
    if isinstance(hint, type) and issubclass(hint, Form):
        return lambda value, where: load(hint, value, where)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        return _tuple_loader(args)
    if origin in (dict, Mapping):
        return _mapping_loader(args[1])
    raise TypeError(f"no JSON form for {hint!r}")


def _choice(members: dict[str, Any]) -> _Load:
    """The loader of a string that is one of *members* (its key), as its value."""
    choices = ", ".join(map(str, members))

    def member(value: Any, where: str) -> Any:
        if type(value) is not str or value not in members:
            raise Malformed(f"{where} is not one of {choices}")
        return members[value]

    return member


def _tuple_loader(args: tuple[Any, ...]) -> _Load:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _loader(args[0])

        def array(value: Any, where: str) -> Any:
            if type(value) is not list:
                raise Malformed(f"{where} is not an array")
            return tuple([item(v, f"{where}[{i}]") for i, v in enumerate(value)])

        return array
    items = [_loader(a) for a in args]

    def fixed(value: Any, where: str) -> Any:
        if type(value) is not list or len(value) != len(items):
            raise Malformed(f"{where} is not an array of {len(items)}")
        return tuple(
            [load(v, f"{where}[{i}]") for i, (load, v) in enumerate(zip(items, value, strict=True))]
        )

    return fixed


def _mapping_loader(value_hint: Any) -> _Load:
    item = None if value_hint is Any else _loader(value_hint)

    def mapping(value: Any, where: str) -> Any:
        if type(value) is not dict:
            raise Malformed(f"{where} is not an object")
        if item is None:
            return value
        return {k: item(v, f"{where}.{k}") for k, v in value.items()}

    return mapping


def _dumper(hint: Any) -> _Dump:
    """The function that takes a *hint* value to its JSON value."""
    if hint is Any or hint in _JSON_TYPES or typing.get_origin(hint) is Literal:
        return _same
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return lambda value: value.value
    if isinstance(hint, type) and issubclass(hint, Form):
        return lambda value: value.to_json()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        dumpers = [_dumper(a) for a in args if a is not Ellipsis]
        if all(d is _same for d in dumpers):
            return list
        if len(args) == 2 and args[1] is Ellipsis:
            return lambda value: [dumpers[0](v) for v in value]
        return lambda value: [d(v) for d, v in zip(dumpers, value, strict=True)]
    if origin in (dict, Mapping):
        item = _dumper(args[1])
        if item is _same:
            return dict
        return lambda value: {k: item(v) for k, v in value.items()}
    raise TypeError(f"no JSON form for {hint!r}")


def _same(value: Any) -> Any:
    return value
