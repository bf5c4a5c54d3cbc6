"""How a message becomes an exception: a tag naming its template in ``MESSAGES``, keyword
fields that fill it and are the ``--json`` detail; the bases of every error and warning."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar


class _Message(Exception):
    """What errors and warnings share: a tag naming the template in ``MESSAGES`` and the keyword
    ``data`` that fills it (and is the machine-readable detail of ``--json``)."""

    tag: ClassVar[str] = "AgentToolsError"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a class may share another's message text (an error and a warning of one event)
        cls.tag = cls.__dict__.get("message_tag", cls.__name__)

    def __init__(self, _restored: Mapping[str, object] | None = None, /, **data: object) -> None:
        # one positional mapping only rebuilds a copy (pickling, pytest-xdist's cls(*args))
        fields = {**(_restored or {}), **data}
        super().__init__(fields)
        self.data: dict[str, Any] = fields

    def __str__(self) -> str:
        return format_message(self.tag, **self.data)

    def __reduce__(self) -> Any:
        return (type(self), (self.data,))

    @property
    def message(self) -> str:
        return str(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "message": self.message,
            **{k: _jsonable(v) for k, v in self.data.items()},
        }


class AgentToolsError(_Message):
    """Base of every expected failure. ``str(err)`` is the message a user reads."""


class AgentToolsErrors(AgentToolsError):
    """Several failures found together (e.g. every skill conflict of one deployment).

    ``str()`` lists every message, one per line; ``errors`` holds them.
    """

    def __init__(self, errors: list[AgentToolsError]) -> None:
        Exception.__init__(self, list(errors))
        self.errors = list(errors)
        self.data = {}

    def __str__(self) -> str:
        return "\n".join(e.message for e in self.errors)

    def __reduce__(self) -> Any:
        return (type(self), (self.errors,))

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "message": self.message,
            "errors": [e.to_json() for e in self.errors],
        }


class AgentToolsWarning(_Message, UserWarning):
    """Base of every warning category; instances carry the formatted message."""


def format_message(tag: str, **data: object) -> str:
    """The text of *tag* filled from *data*; a missing field stays as ``{field}``."""
    from agenttools_runtime.errors.messages import MESSAGES  # (read when a message is)

    template = MESSAGES.get(tag)
    if template is None:
        return " ".join(str(v) for v in data.values()) or tag
    return template.format_map(_Fields({k: _readable(v) for k, v in data.items()}))


class _Fields(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return f"{{{key}}}"  # too few fields: show the placeholder unfilled, never raise


def _readable(value: object) -> object:
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in value)
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)
