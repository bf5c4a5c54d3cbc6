"""agenttools' own requests to package indexes (``show --index``, ``list --index``): GET with
credentials from the URL or ``~/.netrc``, a time-out, and HTTP ranges; a ``file:`` URL or a
path read from disk the way pip and uv read a local index. Installs never go through here: the
installer does its own requests.

Every failure is one :class:`~agenttools_runtime.errors.environments.IndexUnreachable` (or
``IndexAuthenticationFailed``) naming the index without its credentials; a 404 is an answer
(:attr:`Response.status`), not a failure.
"""

from __future__ import annotations

import base64
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from agenttools_runtime import regular_files
from agenttools_runtime.envs.index import is_url, redact
from agenttools_runtime.errors import IndexAuthenticationFailed, IndexUnreachable

DEFAULT_TIMEOUT = 15.0
USER_AGENT = "agenttools"


@dataclass(frozen=True, slots=True)
class Response:
    """What a GET answered: the final URL (after redirects), its status, headers and body."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


def timeout_from_environment() -> float:
    """Seconds to wait for an index: ``PIP_TIMEOUT`` / ``PIP_DEFAULT_TIMEOUT`` /
    ``UV_HTTP_TIMEOUT`` when set, else :data:`DEFAULT_TIMEOUT`."""
    for name in ("PIP_TIMEOUT", "PIP_DEFAULT_TIMEOUT", "UV_HTTP_TIMEOUT"):
        try:
            value = float(os.environ.get(name, ""))
        except ValueError:
            continue
        if value > 0:
            return value
    return DEFAULT_TIMEOUT


def get(
    url: str,
    *,
    index: str,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """GET *url*; *index* names, in messages, the index or location it belongs to. Raises
    ``IndexUnreachable`` (no answer, a time-out, a server error) and
    ``IndexAuthenticationFailed`` (401, 403). A ``file:`` URL or a local path:
    :func:`_local`."""
    if not is_url(url) or urlsplit(url).scheme == "file":
        return _local(url, index)
    plain, authorization = _credentials(url)
    try:
        request = urllib.request.Request(
            plain, headers={"User-Agent": USER_AGENT, **(headers or {})}
        )
        if authorization is not None:
            # not sent on to where a redirect leads (another host)
            request.add_unredirected_header("Authorization", authorization)
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.geturl(), answer.status, _headers(answer.headers), answer.read())
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise IndexAuthenticationFailed(index=redact(index), status=exc.code) from None
        if exc.code in (404, 410, 416):
            body = exc.read() if exc.fp is not None else b""
            return Response(exc.geturl() or plain, exc.code, _headers(exc.headers), body)
        raise IndexUnreachable(
            index=redact(index), reason=f"HTTP {exc.code} {exc.reason}"
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, (socket.timeout, TimeoutError)) or isinstance(exc, TimeoutError):
            text = f"no answer within {timeout:g} seconds"
        else:
            text = getattr(reason, "strerror", None) or str(reason)
        raise IndexUnreachable(index=redact(index), reason=text) from None


def _local(location: str, index: str) -> Response:
    """The file a ``file:`` URL or a path names, as pip and uv read a local index (urllib
    gives a ``file:`` answer no status, and opens no directory): a directory answers with
    its ``index.html`` (a project's page of a local simple-API tree; an HTML page for both,
    never PEP 691 JSON), a file with its bytes, nothing there with 404. Raises
    ``IndexUnreachable`` for one that cannot be read."""
    path = Path(url2pathname(urlsplit(location).path) if is_url(location) else location)
    if path.is_dir():
        path = path / "index.html"
    try:
        body = regular_files.read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        return Response(path.as_uri(), 404, {}, b"")
    except OSError as exc:
        raise IndexUnreachable(index=redact(index), reason=exc.strerror or str(exc)) from None
    kind = "text/html" if path.suffix.lower() in (".html", ".htm") else "application/octet-stream"
    return Response(path.as_uri(), 200, {"content-type": kind}, body)


def _credentials(url: str) -> tuple[str, str | None]:
    """*url* without user information, and the ``Authorization`` header it or ``~/.netrc``
    gives (None: none)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url, None
    host = parts.hostname or ""
    if "@" in parts.netloc:
        user, password = unquote(parts.username or ""), unquote(parts.password or "")
        return redact(url), _basic(user, password)
    login = _netrc_login(host)
    return url, None if login is None else _basic(*login)


def _netrc_login(host: str) -> tuple[str, str] | None:
    import netrc

    try:
        found = netrc.netrc(os.environ.get("NETRC")).authenticators(host)
    except (OSError, netrc.NetrcParseError):
        return None
    if not found:
        return None
    login, _, password = found
    return login or "", password or ""


def _basic(user: str, password: str) -> str:
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


def _headers(message: Message | None) -> dict[str, str]:
    if message is None:
        return {}
    return {k.lower(): v for k, v in message.items()}
