"""Where distributions come from: the index options as pip spells them (``--index-url``,
``--extra-index-url``, ``--find-links``, ``--no-index``), filled from the command line first,
then from the environment variables of pip and then of uv, read directly. Configuration
files (pip.conf, uv.toml) are left to the installer that runs: agenttools never parses them.

Credentials in URLs (``https://user:token@host/simple``) go to the installer and to agenttools'
own requests, and nowhere else: :func:`redact` removes them from every URL that is recorded
or shown, and :func:`redact_text` from any text that may quote one (an installer's error).
The installer gets them in its environment, never on its command line
(:meth:`IndexOptions.for_installer`): any local user can read another's command lines
(``ps``, ``/proc/PID/cmdline``), only the same user a process's environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agenttools_runtime import jsonform

# PyPI's simple index: what pip and uv use when nothing names another one
DEFAULT_INDEX = "https://pypi.org/simple"

_TRUE = frozenset({"1", "true", "yes", "on"})
# uv's variables whose indexes may be named (``UV_INDEX=corp=https://host/simple``)
_NAMED_INDEXES = frozenset({"UV_DEFAULT_INDEX", "UV_INDEX"})
# what uv takes for an index name: ASCII letters, digits, "-", "_" and "."
_INDEX_NAME = re.compile(r"[A-Za-z0-9._-]+")
# (user information ends at the last "@" before the host: pip and uv take "p@ss" of
# https://user:p@ss@host as the password)
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]+)@")


@dataclass(frozen=True, slots=True)
class IndexOptions(jsonform.Form):
    """The indexes and wheel locations one install or lookup uses. ``index_url`` None: the
    installer's default (its configuration, else PyPI); ``find_links`` are directories or
    URLs of HTML pages of links; ``no_index``: only ``find_links``. Written redacted."""

    WHAT = "the index options"
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False

    @classmethod
    def from_sources(
        cls,
        *,
        index_url: str | None = None,
        extra_index_urls: Sequence[str] = (),
        find_links: Sequence[str] = (),
        no_index: bool = False,
    ) -> IndexOptions:
        """The options given, each one not given taken from the environment variables
        ``PIP_INDEX_URL``, ``PIP_EXTRA_INDEX_URL``, ``PIP_FIND_LINKS``, ``PIP_NO_INDEX``, then
        ``UV_DEFAULT_INDEX`` / ``UV_INDEX_URL``, ``UV_INDEX`` / ``UV_EXTRA_INDEX_URL``,
        ``UV_FIND_LINKS``, ``UV_NO_INDEX`` (uv's ``name=url`` in ``UV_DEFAULT_INDEX`` and
        ``UV_INDEX``: the URL). A local path (an index that is a local simple-API tree, a
        ``find_links`` directory or page) becomes absolute."""
        env = os.environ
        index = index_url or _first(env, "PIP_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL")
        extras = tuple(extra_index_urls) or _words(
            env, "PIP_EXTRA_INDEX_URL", "UV_INDEX", "UV_EXTRA_INDEX_URL"
        )
        links = tuple(find_links) or _words(env, "PIP_FIND_LINKS", "UV_FIND_LINKS")
        off = no_index or any(
            env.get(name, "").strip().lower() in _TRUE for name in ("PIP_NO_INDEX", "UV_NO_INDEX")
        )
        return cls(
            index_url=_absolute_location(index) if index else None,
            extra_index_urls=tuple(dict.fromkeys(_absolute_location(e) for e in extras)),
            find_links=tuple(dict.fromkeys(_absolute_location(f) for f in links)),
            no_index=off,
        )

    @property
    def indexes(self) -> tuple[str, ...]:
        """The index URLs looked in, in order (none with ``no_index``)."""
        if self.no_index:
            return ()
        return (self.index_url or DEFAULT_INDEX, *self.extra_index_urls)

    def redacted(self) -> IndexOptions:
        """The same options with every credential removed: what records and output hold."""
        return self._with_urls(redact)

    def describe(self) -> str:
        """Where, for messages (no credentials): ``https://host/simple`` or the find-links."""
        places = [*self.indexes, *self.find_links]
        return ", ".join(redact(p) for p in places) or "no index (--no-index)"

    def installer_arguments(self, installer: str) -> list[str]:
        """These options on *installer*'s command line (``uv`` or ``pip``), as a ``uvx``
        entry is written with them (recorded options: no credentials). An installer that
        agenttools runs gets them from :meth:`for_installer`."""
        args: list[str] = []
        if installer == "uv":
            if self.index_url is not None:
                args += ["--default-index", self.index_url]
            for url in self.extra_index_urls:
                args += ["--index", url]
        else:
            if self.index_url is not None:
                args += ["--index-url", self.index_url]
            for url in self.extra_index_urls:
                args += ["--extra-index-url", url]
        for location in self.find_links:
            args += ["--find-links", location]
        if self.no_index:
            args.append("--no-index")
        return args

    def for_installer(
        self, installer: str, environ: Mapping[str, str]
    ) -> tuple[list[str], dict[str, str]]:
        """These options for running *installer* (``uv`` or ``pip``) in the environment
        *environ*: ``(arguments, variables)``, the command-line arguments and the variables to
        set in its environment, no credential among the arguments. Each takes effect as the
        arguments of :meth:`installer_arguments` did:

        - uv: the index URLs and find-links locations in ``UV_DEFAULT_INDEX``, ``UV_INDEX``
          (space-separated) and ``UV_FIND_LINKS`` (comma-separated), the variables its
          ``--default-index``, ``--index`` and ``--find-links`` read when they are not given
          and split as they split those options' values; ``--no-index`` (which has none) on
          the command line.
        - pip: the index URL in ``PIP_INDEX_URL`` (its ``--index-url``; a variable beats pip's
          configuration files as the option does). An extra index or find-links location with
          credentials in ``PIP_EXTRA_INDEX_URL`` or ``PIP_FIND_LINKS`` (space-separated), after
          what *environ* has there (pip appends its options' values to the variable's list, so
          the list is the one the options made), the others on the command line as before.
        """
        args: list[str] = []
        variables: dict[str, str] = {}
        if installer == "uv":
            if self.index_url is not None:
                variables["UV_DEFAULT_INDEX"] = self.index_url
            if self.extra_index_urls:
                variables["UV_INDEX"] = " ".join(self.extra_index_urls)
            if self.find_links:
                variables["UV_FIND_LINKS"] = ",".join(self.find_links)
        else:
            if self.index_url is not None:
                variables["PIP_INDEX_URL"] = self.index_url
            for option, variable, values in (
                ("--extra-index-url", "PIP_EXTRA_INDEX_URL", self.extra_index_urls),
                ("--find-links", "PIP_FIND_LINKS", self.find_links),
            ):
                secret = [v for v in values if has_credentials(v)]
                if secret:
                    variables[variable] = " ".join([*environ.get(variable, "").split(), *secret])
                for value in values:
                    if value not in secret:
                        args += [option, value]
        if self.no_index:
            args.append("--no-index")
        return args, variables

    def with_credentials_of(self, given: IndexOptions) -> IndexOptions:
        """These (recorded, credential-free) options with the credentials of *given* put back
        where a URL of *given* is the same once redacted: a later command supplies them as
        the first one did (command line or environment), since no record holds them."""
        known = {
            redact(u): u for u in (given.index_url, *given.extra_index_urls, *given.find_links) if u
        }
        return self._with_urls(lambda url: known.get(url, url))

    def _with_urls(self, change: Callable[[str], str]) -> IndexOptions:
        """These options with *change* made to every index URL and find-links location."""
        return IndexOptions(
            index_url=None if self.index_url is None else change(self.index_url),
            extra_index_urls=tuple(map(change, self.extra_index_urls)),
            find_links=tuple(map(change, self.find_links)),
            no_index=self.no_index,
        )

    def to_json(self) -> dict[str, Any]:
        return jsonform.Form.to_json(self.redacted())


def redact(url: str) -> str:
    """*url* without its user information (``https://user:pw@host/x`` -> ``https://host/x``);
    anything that is not a URL with a host is returned as :func:`redact_text` returns it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    if "@" not in parts.netloc:
        return redact_text(url)  # (not a URL with a host: a credential in it is masked)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def has_credentials(location: str) -> bool:
    """Whether the URL *location* carries user information (``https://user:pw@host/x``,
    ``https://token@host/x``): what :func:`redact` removes."""
    return redact(location) != location


def redact_text(text: str) -> str:
    """*text* with the user information of every URL in it replaced by ``***``."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}***@", text)


def is_url(location: str) -> bool:
    """Whether *location* is a URL (``scheme://…``, or ``file:`` followed by any number of
    slashes: pip and uv take ``file:/srv/wheels`` as ``file:///srv/wheels``) rather than a
    local path."""
    if location[:5].lower() == "file:":
        return True
    return "://" in location and bool(urlsplit(location).scheme)


def _first(env: Mapping[str, str], *names: str) -> str | None:
    """The value of the first variable set, as a URL (:func:`_url_of`)."""
    found = _first_set(env, names)
    return None if found is None else _url_of(*found)


def _words(env: Mapping[str, str], *names: str) -> tuple[str, ...]:
    """The whitespace- (pip) or comma-separated (uv) values of the first variable set, each
    as a URL (:func:`_url_of`)."""
    found = _first_set(env, names)
    if found is None:
        return ()
    variable, value = found
    return tuple(_url_of(variable, w) for w in re.split(r"[\s,]+", value) if w)


def _first_set(env: Mapping[str, str], names: Sequence[str]) -> tuple[str, str] | None:
    """``(variable, value)`` of the first of *names* set to something."""
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return name, value
    return None


def _url_of(variable: str, value: str) -> str:
    """*value* of *variable* without the name uv's index variables allow (``UV_INDEX`` and
    ``UV_DEFAULT_INDEX`` take ``name=url``: uv's rule, the part before the first ``=`` when
    it is an index name), a name that only uv's own configuration refers to: pip and
    agenttools' own requests take the URL."""
    if variable in _NAMED_INDEXES:
        name, equals, url = value.partition("=")
        if equals and _INDEX_NAME.fullmatch(name):
            return url
    return value


def _absolute_location(location: str) -> str:
    if is_url(location):
        return location
    return os.path.abspath(os.path.expanduser(location))
