"""What a plugin manifest says about its distribution besides its name and version: the
summary, licence, home page, repository, author and keywords, read from the core metadata of
an installed distribution or a wheel (``METADATA``), or from a project's ``[project]`` table."""

from __future__ import annotations

import email.parser
import email.utils
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Project-URL labels (compared lowercased, without spaces, "-" or "_") for each field
_HOMEPAGE = ("homepage", "home", "documentation", "docs")
_REPOSITORY = ("repository", "source", "sourcecode", "code", "github", "git")


@dataclass(frozen=True, slots=True)
class DistMetadata:
    """The optional metadata a plugin manifest carries; None (or empty) when not given."""

    summary: str | None = None
    license: str | None = None
    homepage: str | None = None
    repository: str | None = None
    author: str | None = None
    author_email: str | None = None
    keywords: tuple[str, ...] = ()

    def author_json(self) -> dict[str, str] | None:
        """``{"name", "email"}`` as the plugin formats spell an author (None without a name)."""
        if not self.author:
            return None
        data = {"name": self.author}
        if self.author_email:
            data["email"] = self.author_email
        return data


def from_core_metadata(data: bytes) -> DistMetadata:
    """The metadata of a ``METADATA`` (or ``PKG-INFO``) file."""
    message = email.parser.BytesHeaderParser().parsebytes(data)

    def first(*names: str) -> str | None:
        for name in names:
            value = message.get(name)
            if value is not None and str(value).strip() and str(value).strip() != "UNKNOWN":
                return " ".join(str(value).split())
        return None

    urls: dict[str, str] = {}
    for item in message.get_all("Project-URL") or ():
        label, _, url = str(item).partition(",")
        urls.setdefault(_label(label), url.strip())
    author, email_address = first("Author"), None
    for name, address in email.utils.getaddresses([first("Author-email") or ""]):
        author = author or name or None
        email_address = address or None
        break
    keywords = first("Keywords") or ""
    return DistMetadata(
        summary=first("Summary"),
        license=first("License-Expression", "License"),
        homepage=_pick(urls, _HOMEPAGE) or first("Home-page"),
        repository=_pick(urls, _REPOSITORY),
        author=author,
        author_email=email_address,
        keywords=tuple(k for k in (w.strip() for w in keywords.replace(",", " ").split()) if k),
    )


def from_pyproject(project: Mapping[str, Any]) -> DistMetadata:
    """The metadata of a ``[project]`` table (values of another type are left out: the
    build backend reports them)."""

    def text(value: object) -> str | None:
        return " ".join(value.split()) if isinstance(value, str) and value.strip() else None

    license_value = project.get("license")
    if isinstance(license_value, Mapping):
        license_value = license_value.get("text")
    raw_urls = project.get("urls")
    urls = {
        _label(str(k)): v
        for k, v in (raw_urls.items() if isinstance(raw_urls, Mapping) else ())
        if isinstance(v, str)
    }
    author = author_email = None
    authors = project.get("authors")
    if isinstance(authors, list) and authors and isinstance(authors[0], Mapping):
        author, author_email = text(authors[0].get("name")), text(authors[0].get("email"))
    keywords = project.get("keywords")
    return DistMetadata(
        summary=text(project.get("description")),
        license=text(license_value),
        homepage=_pick(urls, _HOMEPAGE),
        repository=_pick(urls, _REPOSITORY),
        author=author or author_email,
        author_email=author_email,
        keywords=tuple(k for k in keywords if isinstance(k, str))
        if isinstance(keywords, list)
        else (),
    )


def _label(label: str) -> str:
    return label.strip().lower().replace(" ", "").replace("-", "").replace("_", "")


def _pick(urls: Mapping[str, str], labels: tuple[str, ...]) -> str | None:
    return next((urls[label] for label in labels if urls.get(label)), None)
