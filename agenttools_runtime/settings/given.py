"""Setting values as a user gives them: ``--env NAME.VAR=VALUE`` (``NAME`` a server of the
bundle; plain ``VAR=VALUE`` for a bundle of one server) and ``--env-file FILE`` (one
``VAR=VALUE`` or ``NAME.VAR=VALUE`` a line, as a ``.env`` file holds them)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime import errors, regular_files
from agenttools_runtime.mcp.settings import Ask, Setting


@dataclass(frozen=True, slots=True)
class Assignment:
    """One value given: ``name`` is ``VAR`` or ``NAME.VAR`` as written (split against the
    bundle's servers by :func:`by_server`: a header name may hold a dot)."""

    name: str
    value: str
    where: str  # "--env #2", "value #1" or "FILE:LINE": for messages, never its text


class GivenError(ValueError):
    """An assignment that is not ``NAME=VALUE``, or a file that cannot be read."""


def parse_pairs(pairs: Sequence[str], source: str = "--env") -> list[Assignment]:
    """``NAME=VALUE`` strings as assignments; :class:`GivenError` for one without ``=`` or a
    name, by its position (never its text: a value typed without its name may be a secret)."""
    found = []
    for number, pair in enumerate(pairs, 1):
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise GivenError(malformed_assignment(source, number))
        found.append(Assignment(name.strip(), value, f"{source} #{number}"))
    return found


def malformed_assignment(source: str, number: int) -> str:
    """The message for the *number*-th ``NAME=VALUE`` of *source* that is not one."""
    return f"{source} #{number} is not NAME=VALUE (its text is not shown: it may hold a secret)"


def read_env_file(path: Path) -> list[Assignment]:
    """The assignments of a ``.env`` file: ``NAME=VALUE`` lines, ``export`` allowed before
    the name, blank lines and ``#`` comments skipped, a value in matching single or double
    quotes taken without them (nothing expanded)."""
    try:
        text = regular_files.read_bytes(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GivenError(f"--env-file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    found = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise GivenError(f"{path}:{number}: not NAME=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found.append(Assignment(name.strip(), value, f"{path}:{number}"))
    return found


def by_server(
    given: Iterable[Assignment], declared: Mapping[str, Collection[str]]
) -> dict[str, dict[str, str]]:
    """The values per server name: ``NAME.VAR`` where ``NAME`` is a server of the bundle
    (the keys of *declared*, each server's names of its settings), else a plain ``VAR`` for
    the one server of a bundle of one. :class:`GivenError` for a plain name in a bundle of
    several servers, or a ``NAME.`` of no server of the bundle; ``SettingNotDeclared`` for a
    ``VAR`` its server does not declare. Each names the assignment by its position, never
    its text (a secret typed without its name reads as a name). Later values win (a file
    first, ``--env`` after it)."""
    servers = list(declared)
    values: dict[str, dict[str, str]] = {}
    for item in given:
        server = next(
            (s for s in sorted(servers, key=len, reverse=True) if item.name.startswith(s + ".")),
            None,
        )
        if server is not None:
            name = item.name[len(server) + 1 :]
        elif len(servers) == 1 and "." not in item.name:
            server, name = servers[0], item.name
        else:
            known = ", ".join(servers) or "none"
            raise GivenError(
                f"{item.where} names no server of the bundle (its text is not shown: it may "
                f"hold a secret); give SERVER.VAR=VALUE with SERVER one of: {known}"
            )
        _refuse_undeclared(item, name, server, declared[server])
        values.setdefault(server, {})[name] = item.value
    return values


def of_server(
    given: Iterable[Assignment], server: str, declared: Collection[str]
) -> dict[str, str]:
    """The values of one server by name (``mcp install``: no ``SERVER.`` prefix, a header
    name may hold a dot), each the name of one of its *declared* settings (else
    ``SettingNotDeclared``, by position); a later one wins."""
    values: dict[str, str] = {}
    for item in given:
        _refuse_undeclared(item, item.name, server, declared)
        values[item.name] = item.value
    return values


def asked_once(ask: Ask | None) -> Ask | None:
    """*ask* answering each setting (by kind and name) once per command: a deploy to several
    clients asks for a value once."""
    if ask is None:
        return None
    answers: dict[tuple[str, str, str | None], str] = {}

    def remembered(setting: Setting) -> str:
        key = (setting.kind, setting.name, setting.description)
        if key not in answers:
            answers[key] = ask(setting)
        return answers[key]

    return remembered


def _refuse_undeclared(item: Assignment, name: str, server: str, declared: Collection[str]) -> None:
    """``SettingNotDeclared`` when *name* (what *item* gives, without its ``SERVER.``) is
    none of the *declared* settings of *server*, naming *item* by its position only."""
    if name not in declared:
        settings = ", ".join(sorted(declared)) or "none"
        raise errors.SettingNotDeclared(given=item.where, server=server, settings=settings)
