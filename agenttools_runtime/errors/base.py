"""The bases of every error and warning, and the two failures that belong to no family.

A class's ``template`` is the sentence a user reads; the keyword fields it is raised with fill
its ``{placeholders}``, are its attributes and are its ``--json`` data, so no value is passed
twice. A list field reads as its items joined by ", ".
"""

from __future__ import annotations

__all__ = [
    "FORCE",
    "UPGRADE",
    "AgentToolsError",
    "AgentToolsErrors",
    "AgentToolsWarning",
    "FileOperationFailed",
    "MCPSDKMissing",
]

# the CLI and API spellings of the overwrite levels, in the templates that suggest one
FORCE = '--force (overwrite="all")'
UPGRADE = '--upgrade (overwrite="upgrade")'


class _Message(Exception):
    """What errors and warnings share: a ``template`` and the keyword ``data`` that fills it.

    ``tag`` names the class whose template an instance reads (its own class's name, but for a
    class that reuses another's text), the stable identifier of ``--json``."""

    template = ""
    tag = "_Message"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # a subclass without a text of its own (outside this package) keeps its parent's tag
        if "tag" not in cls.__dict__ and ("template" in cls.__dict__ or not cls.template):
            cls.tag = cls.__name__

    def __init__(self, _restored: dict[str, object] | None = None, /, **data: object) -> None:
        # one positional mapping only rebuilds a copy (pickling, pytest-xdist's cls(*args))
        fields = {**(_restored or {}), **data}
        super().__init__(fields)
        self.data: dict[str, object] = fields
        for name, value in fields.items():  # (an attribute a subclass set first is kept)
            vars(self).setdefault(name, value)

    def __str__(self) -> str:
        if not self.template:  # a family raised as itself
            return " ".join(str(v) for v in self.data.values()) or self.tag
        return fill(self.template, self.data)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.data,))

    @property
    def message(self) -> str:
        return str(self)

    def to_json(self) -> dict[str, object]:
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

    @classmethod
    def of(cls, errors: list[AgentToolsError]) -> AgentToolsError:
        """The one error itself, or ``AgentToolsErrors`` holding several."""
        return errors[0] if len(errors) == 1 else cls(errors)

    def __str__(self) -> str:
        return "\n".join(e.message for e in self.errors)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.errors,))

    def to_json(self) -> dict[str, object]:
        return {
            "tag": self.tag,
            "message": self.message,
            "errors": [e.to_json() for e in self.errors],
        }


class AgentToolsWarning(_Message, UserWarning):
    """Base of every warning category; instances carry the formatted message."""


class FileOperationFailed(AgentToolsError):
    """A file operation the system refused (permissions, a read-only or full file system, a
    file-size limit, a name too long, a file where a directory should be …): the operation,
    the path and the system's reason; the CLI turns every ``OSError`` that reaches it into one."""

    template = "Cannot {operation} {path}: {reason}."


class MCPSDKMissing(AgentToolsError):
    """An optional dependency (the MCP Python SDK) that a command needs is not installed."""

    template = (
        "{feature} needs the MCP Python SDK (mcp>=2.3), which is not installed. "
        "Install it with: pip install 'agenttools[serve]'"
    )


def fill(template: str, data: dict[str, object]) -> str:
    """*template* filled from *data*; a missing field stays as ``{field}``, never raises."""
    return template.format_map(_Fields({k: _readable(v) for k, v in data.items()}))


class _Fields(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return f"{{{key}}}"


def _readable(value: object) -> object:
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in value)
    return value


def _jsonable(value: object) -> object:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)
