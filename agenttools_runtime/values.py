"""Immutable value classes without ``dataclasses``, for the types on the CLI's start-up path.

A subclass annotates its fields (their order is the fields' order), names them in ``__slots__``
too (any order), and writes its ``__init__``, which validates and then hands every field to
``Value.__init__``; equality, hashing, ``repr``, pickling and :func:`replace` come from here, as
``@dataclass(frozen=True)`` would give them. Fields named in ``_uncompared`` are left out of
``==`` and ``hash`` (a cache, a back reference), those in ``_unshown`` out of ``repr``.

Why not ``@dataclass``: ``import dataclasses`` brings ``inspect`` (``ast``, ``dis``,
``tokenize``), and every decorated class compiles generated methods when its module is
imported — on ``agenttools list`` that was about 10 ms of ~50 (``benchmarks/startup.py``). The
types that ``list``, ``show``, ``clients`` and ``deployed`` build are these, and those a deploy
builds (a fresh deploy's start-up: ``benchmarks/state_store.py``). :class:`Fields` is the same
for a mutable class (a plan being filled in, a result being collected): equality and ``repr``,
no hash, assignable fields.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    V = TypeVar("V", bound="Fields")


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a :class:`Value` (as ``dataclasses.FrozenInstanceError``)."""


class Fields:
    """Equality and ``repr`` over the annotated slots (a mutable class: ``@dataclass``)."""

    __slots__ = ()
    _uncompared: ClassVar[frozenset[str]] = frozenset()
    _unshown: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Every field, in the order of the annotations (base classes' first)."""
        names = _FIELDS.get(cls)
        if names is None:
            names = _FIELDS[cls] = tuple(
                name
                for klass in reversed(cls.__mro__)
                # not inspect.get_annotations: importing inspect is what this module avoids
                for name in klass.__dict__.get("__annotations__", {})  # noqa: RUF063
                if name in klass.__dict__.get("__slots__", ())
            )
        return names

    def _compared(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in self.field_names() if n not in self._uncompared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()

    def __repr__(self) -> str:
        shown = (f"{n}={getattr(self, n)!r}" for n in self.field_names() if n not in self._unshown)
        return f"{type(self).__qualname__}({', '.join(shown)})"


class Value(Fields):
    """An immutable :class:`Fields`: hashable, no assignment, pickled through its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), {n: getattr(self, n) for n in self.field_names()}))


_FIELDS: dict[type, tuple[str, ...]] = {}


def replace(value: V, **changes: object) -> V:
    """A copy of *value* with *changes*, built through its ``__init__`` (so validated again),
    as ``dataclasses.replace`` does."""
    fields = {n: getattr(value, n) for n in value.field_names()}
    fields.update(changes)
    return type(value)(**fields)


def _rebuild(cls: type[V], fields: dict[str, object]) -> V:
    value = cls.__new__(cls)
    Fields.__init__(value, **fields)
    return value
