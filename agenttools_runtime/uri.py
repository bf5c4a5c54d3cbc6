"""``skill://`` URIs: parsing, providers, resolution, argument substitution and listing.

A URI is ``skill://{provider}/{skill-name}/{reference-path}`` (the scheme document in
``docs/skill-uri.md``); a bare ``skill-name`` (optionally followed by ``/reference``) is looked
up across every provider. Providers, in priority order:

- ``local``: the skill directories of every AI client on this machine (project scope of the
  current directory first, then user scope);
- one per installed distribution that ships skills, named after the distribution (PEP 503),
  and ``agenttools`` for agenttools' own built-in skills;
- MCP servers registered by the caller, read over the MCP resource protocol in FastMCP's
  skills-provider format (``skill://{skill}/SKILL.md``, ``…/_manifest``, ``…/{file}``).

Security rules hold for every provider: raw and percent-encoded NUL bytes and ``..`` segments
are rejected before anything is looked up, provider names must match
``^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$``, and a reference is resolved (symbolic links too) and must
stay inside its skill directory.

Arguments are substituted in one regular-expression pass, so inserted text is never scanned
again: the seed convention (``$1`` is the first argument, ``$ARGUMENTS`` and ``$@`` all of them)
or Claude Code's (``$0`` is the first, ``$ARGUMENTS[N]``, shell-style quoting).
"""

from __future__ import annotations

import abc
import base64
import hashlib
import json
import os
import re
import shlex
import warnings
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import quote, unquote

from agenttools_runtime.errors import (
    AgentToolsError,
    InvalidSkillProviderName,
    InvalidSkillURI,
    SkillNameCollision,
    SkillNotFound,
    SkillNullByte,
    SkillPathTraversal,
    SkillProviderExists,
    SkillProviderFailed,
    SkillProviderNotFound,
    SkillProviderSkipped,
    SkillReferenceNotFound,
)
from agenttools_runtime.names import canonical_dist_name, is_provider_name

if TYPE_CHECKING:
    import asyncio

    from agenttools_runtime.discovery import InstalledDistribution, SearchPath

SCHEME = "skill"
MAIN_FILE = "SKILL.md"
MANIFEST_REFERENCE = "_manifest"
LOCAL_PROVIDER = "local"
BUILTIN_PROVIDER = "agenttools"
MAX_REFERENCE_LENGTH = 4096
Convention = Literal["seed", "claude"]
CONVENTIONS: tuple[Convention, ...] = ("seed", "claude")
_T = TypeVar("_T")


# -- URIs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillURI:
    """A parsed ``skill://`` URI or bare name.

    ``provider`` is None for a bare name (looked up across providers). ``path`` holds the
    decoded path segments after the provider: the skill name first, then the reference path.
    Every segment is free of NUL, ``/``, ``\\``, ``.`` and ``..``.
    """

    provider: str | None
    path: tuple[str, ...]

    @property
    def skill(self) -> str:
        return self.path[0]

    @property
    def reference(self) -> str | None:
        """The reference path (``/``-separated), None for the skill itself."""
        return "/".join(self.path[1:]) or None

    def __str__(self) -> str:
        return format_skill_uri(self.provider, self.path)


def format_skill_uri(provider: str | None, path: Sequence[str]) -> str:
    """The canonical text of a URI: every segment percent-encoded; bare when no provider."""
    encoded = "/".join(quote(segment, safe="") for segment in path)
    return encoded if provider is None else f"{SCHEME}://{provider}/{encoded}"


def parse_skill_uri(text: str) -> SkillURI:
    """Parse ``skill://provider/skill[/reference]`` or a bare ``skill[/reference]``.

    Segments are percent-decoded one at a time (so ``%2e%2e`` is ``..`` and ``%2F`` is a
    separator). Raises ``SkillNullByte`` for a raw or encoded NUL, ``SkillPathTraversal`` for a
    ``..`` segment (or a backslash, a separator elsewhere), ``InvalidSkillProviderName``, and
    ``InvalidSkillURI`` for anything else malformed (another scheme, no skill name, empty or
    ``.`` segments, a query or fragment). A trailing ``/`` is ignored.
    """
    if "\0" in text:
        raise SkillNullByte(uri=text)
    scheme, sep, rest = text.partition("://")
    provider: str | None = None
    if sep:
        if scheme.lower() != SCHEME:
            raise InvalidSkillURI(uri=text, reason=f"the scheme must be '{SCHEME}', not '{scheme}'")
        raw_provider, _, raw_path = rest.partition("/")
        provider = _decode(raw_provider, text)
        if not is_provider_name(provider):
            raise InvalidSkillProviderName(provider=provider, uri=text)
    else:
        raw_path = text
    if "?" in raw_path or "#" in raw_path:
        raise InvalidSkillURI(
            uri=text, reason="a query or fragment is not allowed (percent-encode ? and #)"
        )
    raw_path = raw_path.removesuffix("/")
    segments: list[str] = []
    for raw in raw_path.split("/") if raw_path else ():
        segments.extend(_decode(raw, text).split("/"))
    for segment in segments:
        if segment == ".." or "\\" in segment:
            raise SkillPathTraversal(uri=text)
    if not segments:
        raise InvalidSkillURI(uri=text, reason="no skill name")
    if any(segment in ("", ".") for segment in segments):
        raise InvalidSkillURI(uri=text, reason="empty or '.' path segment")
    if len("/".join(segments[1:])) > MAX_REFERENCE_LENGTH:
        raise InvalidSkillURI(uri=text, reason=f"reference longer than {MAX_REFERENCE_LENGTH}")
    return SkillURI(provider, tuple(segments))


def _decode(raw: str, uri: str) -> str:
    try:
        decoded = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise InvalidSkillURI(uri=uri, reason="a percent-encoded sequence is not UTF-8") from None
    if "\0" in decoded:
        raise SkillNullByte(uri=uri)
    return decoded


def _is_segment(name: str) -> bool:
    """One path segment that leads nowhere else: not empty, ``.`` or ``..``; no separator
    (``/`` or ``\\``) and no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def _is_listable(name: str) -> bool:
    """A skill name a server may give: one segment without control characters (a newline in
    a name would forge lines of the listing an agent reads)."""
    return _is_segment(name) and name.isprintable()


# -- argument substitution -------------------------------------------------------------------

# seed: $1…$N (1-based; "$1x" is the first argument then "x", as in AgentPool), $ARGUMENTS, $@
_SEED_PLACEHOLDER = re.compile(r"\$(?:(?P<all>ARGUMENTS|@)|(?P<nth>[1-9][0-9]*))")
# claude, in Claude Code's precedence: $name, $ARGUMENTS[N], $N not followed by a word
# character, $ARGUMENTS
_CLAUDE_PLACEHOLDER = (
    r"\$(?:{named}ARGUMENTS\[(?P<indexed>[0-9]+)\]|(?P<nth>[0-9]+)(?!\w)|(?P<all>ARGUMENTS))"
)
_ARGUMENT_NAME = re.compile(r"[A-Za-z_]\w*")


def substitute_arguments(
    text: str,
    arguments: str | Sequence[str] | None,
    convention: Convention = "seed",
    *,
    names: Sequence[str] = (),
) -> str:
    """Replace argument placeholders in *text* in a single pass.

    *arguments* is the argument string as typed (split on whitespace for ``seed``,
    shell-style for ``claude``) or an already split list. None leaves *text* unchanged.
    Inserted values are never scanned again, ``$10`` is the tenth argument (never ``$1``
    followed by ``0``), and a placeholder without an argument stays as written.

    - ``seed``: ``$1``…``$N`` are 1-based; ``$ARGUMENTS`` and ``$@`` are the whole string.
    - ``claude``: ``$0``…``$N`` (not followed by a letter, digit or ``_``) and
      ``$ARGUMENTS[N]`` are 0-based; ``$ARGUMENTS`` is the whole string; ``$name`` for each of
      *names* (the frontmatter ``arguments``) in order; when *text* has no placeholder at all,
      ``ARGUMENTS: <string>`` is appended.

    Raises ``ValueError`` for an unknown convention.
    """
    _check_convention(convention)
    if arguments is None:
        return text
    raw, positional = _split_arguments(arguments, convention)
    base = 1 if convention == "seed" else 0
    named = {n: str(i) for i, n in enumerate(names) if _ARGUMENT_NAME.fullmatch(n)}
    if convention == "seed":
        pattern = _SEED_PLACEHOLDER
    else:
        longest_first = sorted(named, key=len, reverse=True)
        alternatives = "|".join(re.escape(n) for n in longest_first)
        pattern = re.compile(
            _CLAUDE_PLACEHOLDER.format(
                named=rf"(?P<name>{alternatives})(?![\[\w])|" if named else ""
            )
        )

    def replace(match: re.Match[str]) -> str:
        groups = match.groupdict()
        if groups["all"]:
            return raw
        name = groups.get("name")
        digits = named[name] if name else groups.get("indexed") or groups["nth"]
        found = _nth(positional, digits, base)
        return match.group(0) if found is None else found

    substituted, count = pattern.subn(replace, text)
    if convention == "claude" and count == 0 and raw.strip():
        substituted = f"{text.rstrip(chr(10))}\n\nARGUMENTS: {raw}\n"
    return substituted


def _nth(items: Sequence[str], digits: str, base: int) -> str | None:
    """``items[digits - base]``; None when out of range. A number longer than any index is out
    of range without ``int()``, which refuses strings of more than 4300 digits."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(len(items) + base)):
        return None
    index = int(digits) - base
    return items[index] if 0 <= index < len(items) else None


def _check_convention(convention: str) -> None:
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown argument convention {convention!r}; use seed or claude")


def _split_arguments(
    arguments: str | Sequence[str], convention: Convention
) -> tuple[str, list[str]]:
    if not isinstance(arguments, str):
        items = [str(a) for a in arguments]
        return (" ".join(items) if convention == "seed" else shlex.join(items)), items
    if convention == "seed":
        return arguments, arguments.split()
    try:
        return arguments, shlex.split(arguments)
    except ValueError:  # an unbalanced quote: Claude Code is lenient, so are we
        return arguments, arguments.split()


def argument_names(frontmatter: Mapping[str, Any]) -> list[str]:
    """Claude Code's named arguments: frontmatter ``arguments`` as a list or a
    space-separated string."""
    value = frontmatter.get("arguments")
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def split_skill_text(text: str) -> tuple[str, str]:
    """``(frontmatter block verbatim, body)``; an empty block when there is none."""
    from agenttools_runtime.skills.skill_md import split_frontmatter

    try:
        body = split_frontmatter(text)[1]
    except AgentToolsError:  # no frontmatter block: all of it is the body
        return "", text
    return text[: len(text) - len(body)], body  # the body is the text's tail


def substitute_skill_md(
    data: bytes, arguments: str | Sequence[str] | None, convention: Convention = "seed"
) -> bytes:
    """SKILL.md's bytes with *arguments* substituted in its body (never in the frontmatter;
    ``claude`` takes the frontmatter ``arguments`` as names). Bytes that are not UTF-8 are
    kept as they are."""
    text = data.decode("utf-8", errors="surrogateescape")
    head, body = split_skill_text(text)
    names = argument_names(skill_frontmatter(text)) if convention == "claude" else []
    body = substitute_arguments(body, arguments, convention, names=names)
    return (head + body).encode("utf-8", errors="surrogateescape")


def skill_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter mapping of SKILL.md text, ``{}`` when absent or unparseable."""
    from agenttools_runtime.skills.skill_md import parse_skill_md

    try:
        return parse_skill_md(text).frontmatter
    except AgentToolsError:
        return {}


def skill_description(text: str) -> str:
    """The frontmatter ``description``; else the first non-empty body line (heading marks
    stripped, at most 200 characters), as FastMCP and AgentPool do; else ``""``."""
    description = skill_frontmatter(text).get("description")
    if isinstance(description, str) and description.strip():
        return description.strip()
    for line in split_skill_text(text)[1].splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:200]
    return ""


# -- the FastMCP _manifest -------------------------------------------------------------------


def digest(data: bytes) -> str:
    """``sha256:<hex>`` over the raw bytes (the FastMCP / SEP-2640 digest)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_listing_json(name: str, files: Mapping[str, bytes]) -> str:
    """FastMCP's ``_manifest`` text: ``{"skill", "files": [{"path", "size", "hash"}]}``
    sorted by path, indented by 2, exactly as ``json.dumps`` writes it there."""
    entries = [
        {"path": path, "size": len(data), "hash": digest(data)}
        for path, data in sorted(files.items())
    ]
    return json.dumps({"skill": name, "files": entries}, indent=2)


# -- providers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProvidedSkill:
    """One skill a provider has.

    ``path`` is where the provider keeps it (its name, or a longer ``a/b/name`` path on MCP
    servers that nest skills); ``directory`` is its folder for local and distribution skills.
    ``prompt`` holds the argument names of an MCP prompt exposed as a skill (None for skills
    made of files).
    """

    provider: str
    name: str
    description: str
    path: str
    directory: Path | None = None
    origin: str = ""
    prompt: tuple[str, ...] | None = None

    @property
    def uri(self) -> str:
        return format_skill_uri(self.provider, self.path.split("/"))

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "name": self.name,
            "description": self.description,
            "uri": self.uri,
            "directory": None if self.directory is None else str(self.directory),
            "origin": self.origin,
            "kind": "files" if self.prompt is None else "prompt",
        }


class SkillProvider(abc.ABC):
    """A named source of skills. Subclasses list skills and read their files."""

    kind: str = "provider"

    def __init__(self, name: str) -> None:
        if not is_provider_name(name):
            raise InvalidSkillProviderName(provider=name)
        self.name = name

    @abc.abstractmethod
    def skills(self) -> Sequence[ProvidedSkill]:
        """Every skill, sorted by name. Raises ``SkillProviderFailed`` when unreachable."""

    def names(self) -> list[str]:
        """The names of every skill (for "Available: …"), possibly cheaper than :meth:`skills`."""
        return [s.name for s in self.skills()]

    def find(self, name: str) -> ProvidedSkill | None:
        return next((s for s in self.skills() if s.name == name), None)

    def locate(self, path: Sequence[str]) -> tuple[ProvidedSkill, tuple[str, ...]] | None:
        """The skill a URI path names and the reference segments after it."""
        skill = self.find(path[0])
        return None if skill is None else (skill, tuple(path[1:]))

    @abc.abstractmethod
    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        """The bytes of one file of *skill* (``("SKILL.md",)`` for the main file).

        Raises ``SkillReferenceNotFound`` or ``SkillPathTraversal``.
        """

    @abc.abstractmethod
    def manifest(self, skill: ProvidedSkill) -> str:
        """The skill's FastMCP ``_manifest`` JSON text."""

    def close(self) -> None:
        """Release what the provider holds open (MCP sessions); it may be used again."""
        return None  # directories hold nothing open

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


@dataclass(frozen=True)
class _DirectorySkill:
    directory: Path
    # the files a wheel shipped, with their manifest hashes; None: whatever is there
    files: Mapping[str, str] | None
    description: str | None = None
    owner: str = ""  # the distribution, for BundledFile* messages


class DirectorySkillProvider(SkillProvider):
    """Skills that are folders on disk (the base of ``local`` and distribution providers)."""

    kind = "directory"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._folders: dict[str, list[_DirectorySkill]] | None = None
        self._provided: dict[str, ProvidedSkill] = {}

    @abc.abstractmethod
    def _scan(self) -> Iterable[tuple[str, _DirectorySkill]]:
        """``(name, folder)`` pairs in priority order; the first of a name wins."""

    def _candidates(self) -> dict[str, list[_DirectorySkill]]:
        if self._folders is None:
            folders: dict[str, list[_DirectorySkill]] = {}
            for name, entry in self._scan():
                folders.setdefault(name, []).append(entry)
            self._folders = dict(sorted(folders.items()))
        return self._folders

    def _entry(self, name: str) -> _DirectorySkill:
        return self._candidates()[name][0]

    def _skill(self, name: str) -> ProvidedSkill:
        """The skill *name* (first folder of that name), built on first use: only skills that
        are asked for cost a SKILL.md parse, and a collision is reported when it matters."""
        skill = self._provided.get(name)
        if skill is None:
            kept, *others = self._candidates()[name]
            if others:
                self._duplicates(name, kept, others)
            description = kept.description
            if description is None:
                description = _read_description(kept.directory)
            skill = ProvidedSkill(
                self.name, name, description, name, kept.directory, str(kept.directory)
            )
            self._provided[name] = skill
        return skill

    def _duplicates(self, name: str, kept: _DirectorySkill, others: list[_DirectorySkill]) -> None:
        """Several folders of one name inside this provider: the first wins. Identical copies
        (one skill deployed to several clients) are not worth a word; different ones are."""
        baseline = _folder_hashes(kept)
        differing = [o for o in others if baseline is None or _folder_hashes(o) != baseline]
        if differing:
            everyone = [str(e.directory) for e in (kept, *differing)]
            warnings.warn(
                SkillNameCollision(
                    skill=name, providers=everyone, chosen=kept.directory, provider=self.name
                ),
                stacklevel=5,
            )

    def skills(self) -> Sequence[ProvidedSkill]:
        return [self._skill(name) for name in self._candidates()]

    def names(self) -> list[str]:
        return list(self._candidates())

    def find(self, name: str) -> ProvidedSkill | None:
        return self._skill(name) if name in self._candidates() else None

    def files(self, skill: ProvidedSkill) -> dict[str, Path]:
        """Every file of *skill*: relative path → absolute path (junk and VCS skipped; for a
        wheel's copy, exactly the files its manifest lists)."""
        entry = self._entry(skill.name)
        if entry.files is not None:
            return {rel: entry.directory.joinpath(*rel.split("/")) for rel in sorted(entry.files)}
        return _folder_files(entry.directory)

    def contents(self, skill: ProvidedSkill) -> dict[str, bytes]:
        """The bytes of every file of *skill*, each verified like :meth:`read`."""
        return {rel: self._read_file(skill, rel, path) for rel, path in self.files(skill).items()}

    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        entry = self._entry(skill.name)
        rel = "/".join(reference)
        listed = entry.files is not None and rel in entry.files
        try:
            path = safe_skill_path(entry.directory, reference, skill.name)
        except SkillReferenceNotFound:
            if not listed:
                raise
            path = entry.directory.joinpath(*reference)  # listed but gone: BundledFileMissing
        if entry.files is not None and not listed:
            raise SkillReferenceNotFound(reference=rel, skill=skill.name)
        return self._read_file(skill, rel, path)

    def _read_file(self, skill: ProvidedSkill, rel: str, path: Path) -> bytes:
        """Read one file; a wheel's copy must match the hash its manifest recorded
        (``BundledFileMissing`` / ``BundledFileMismatch``: tampered or half uninstalled)."""
        from agenttools_runtime.errors import BundledFileMismatch, BundledFileMissing
        from agenttools_runtime.skills.hashing import hash_bytes

        entry = self._entry(skill.name)
        try:
            data = path.read_bytes()
        except OSError:
            if entry.files is not None:
                raise BundledFileMissing(path=path, distribution=entry.owner) from None
            raise SkillReferenceNotFound(reference=rel, skill=skill.name) from None
        if entry.files is not None and hash_bytes(data) != entry.files[rel]:
            raise BundledFileMismatch(path=path, distribution=entry.owner)
        return data

    def manifest(self, skill: ProvidedSkill) -> str:
        return file_listing_json(skill.name, self.contents(skill))


def safe_skill_path(directory: Path, reference: Sequence[str], skill: str | None = None) -> Path:
    """``directory/reference`` after checking it stays inside *directory* once every symbolic
    link is resolved, and is a regular file. Version-control metadata is never served.

    Raises ``SkillPathTraversal`` (escapes) or ``SkillReferenceNotFound`` (absent, not a file).
    """
    from agenttools_runtime.skills.hashing import VCS_NAMES

    rel = "/".join(reference)
    name = directory.name if skill is None else skill
    if "\0" in rel:
        raise SkillNullByte(reference=rel)
    if not reference or not all(_is_segment(s) for s in reference):
        raise SkillPathTraversal(reference=rel)
    try:
        root = Path(os.path.realpath(directory))
        target = Path(os.path.realpath(directory.joinpath(*reference)))
    except OSError:  # a name or path too long for this system, a link loop (Windows)
        raise SkillReferenceNotFound(reference=rel, skill=name) from None
    if target != root and root not in target.parents:
        raise SkillPathTraversal(reference=rel, target=target)
    # VCS metadata (credentials in .git/config) under any alias: a link, another letter case
    parts = (*reference, *target.relative_to(root).parts)
    # os.path.isfile: False for anything but a regular file, and for every OSError
    if any(part.lower() in VCS_NAMES for part in parts) or not os.path.isfile(target):
        raise SkillReferenceNotFound(reference=rel, skill=name)
    return target


def _read_description(directory: Path) -> str:
    """The description of the skill in *directory*; ``""`` when its SKILL.md cannot be read
    or leads out of the folder (a link to a private file must not leak its first line)."""
    try:
        text = safe_skill_path(directory, (MAIN_FILE,)).read_bytes()
    except (AgentToolsError, OSError):
        return ""
    return skill_description(text.decode("utf-8", errors="replace"))


def _folder_files(directory: Path) -> dict[str, Path]:
    """The files of a skill folder (junk and VCS skipped). Regular files only: reading a named
    pipe or a device would block or never end. Raises ``AgentSkillUnsafeLink`` and
    ``AgentSkillUnreadable``."""
    from agenttools_runtime.skills.hashing import VCS_NAMES, iter_source_files

    root = Path(os.path.realpath(directory))
    files = {}
    for rel, path in iter_source_files(directory):  # links inside the folder only
        real = Path(os.path.realpath(path))
        if root not in real.parents or not os.path.isfile(real):
            continue
        # no VCS metadata reached through a link (docs -> .git), as in safe_skill_path
        if not any(part.lower() in VCS_NAMES for part in real.parts[len(root.parts) :]):
            files[rel] = path
    return files


def _folder_hashes(entry: _DirectorySkill) -> dict[str, str] | None:
    """Every file's hash; None when the folder cannot be read whole (a link leaving it, an
    unreadable file), which never counts as identical to anything."""
    from agenttools_runtime.skills.hashing import hash_file

    try:
        return {rel: hash_file(path) for rel, path in _folder_files(entry.directory).items()}
    except (AgentToolsError, OSError):
        return None


def _skill_folders(root: Path) -> Iterable[tuple[str, _DirectorySkill]]:
    """The immediate sub-folders of a skills root that hold a ``SKILL.md`` file."""
    try:
        children = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for child in children:
        path = Path(child.path)
        # os.path: False (not an error) for a link loop or an unreadable entry
        if child.name.startswith(".") or not os.path.isdir(path):
            continue
        if os.path.isfile(path / MAIN_FILE):
            yield child.name, _DirectorySkill(path, None)


def local_skill_roots(project_dir: Path | str | None = None) -> list[Path]:
    """The skills roots every client reads: project scope of *project_dir* (default: the
    current directory) first, then user scope; clients in table order, each client's own root
    before the others it reads, shared roots once."""
    from agenttools_runtime.clients import (
        Client,
        all_clients,
        project_skill_read_locations,
        skill_read_locations,
    )

    project = Path.cwd() if project_dir is None else Path(project_dir)
    roots: list[Path] = []
    seen: set[str] = set()
    clients = list(all_clients().values())
    candidates: list[tuple[Client, bool]] = [
        *((c, True) for c in clients if c.supports_project_skills),
        *((c, False) for c in clients if c.supports_skills),
    ]
    for client, project_scope in candidates:
        try:
            read = (
                project_skill_read_locations(client, project)
                if project_scope
                else skill_read_locations(client)
            )
        except AgentToolsError:  # no location on this OS, no such project directory
            continue
        for root in read:
            key = os.path.normcase(os.path.realpath(root))
            if key not in seen:
                seen.add(key)
                roots.append(root)
    return roots


class LocalSkillProvider(DirectorySkillProvider):
    """``local``: skill folders under the given roots (default: :func:`local_skill_roots`),
    in order; the first folder of a name wins (a different second one is reported)."""

    kind = "local"

    def __init__(
        self,
        roots: Sequence[Path | str] | None = None,
        *,
        project_dir: Path | str | None = None,
        name: str = LOCAL_PROVIDER,
    ) -> None:
        super().__init__(name)
        self.roots = local_skill_roots(project_dir) if roots is None else [Path(r) for r in roots]

    def _scan(self) -> Iterable[tuple[str, _DirectorySkill]]:
        for root in self.roots:
            yield from _skill_folders(root)


class DistributionSkillProvider(DirectorySkillProvider):
    """The skills an installed distribution ships, named after the distribution.

    Files come from ``<dist-info>/extra_metadata/agenttools/skills/<name>/`` (only the files
    the manifest lists); for editable installs, directory skills come from the live source
    folder (``source-root`` + the skill's ``path``).
    """

    kind = "distribution"

    def __init__(self, distribution: InstalledDistribution) -> None:
        super().__init__(distribution.name)
        self.distribution = distribution

    def _scan(self) -> Iterable[tuple[str, _DirectorySkill]]:
        dist = self.distribution
        if dist.manifest is None:
            return
        for name, entry in sorted(dist.manifest.skills.items()):
            directory = dist.skill_directory(name)
            # the wheel's copy: only what it lists; the live source of an editable install: all
            listed = dict(entry.files) if directory == dist.skills_dir / name else None
            description = entry.description or None  # none recorded: read from SKILL.md
            yield name, _DirectorySkill(directory, listed, description, dist.display_name)

    def _read_file(self, skill: ProvidedSkill, rel: str, path: Path) -> bytes:
        if self._entry(skill.name).files is None:
            return super()._read_file(skill, rel, path)
        # a regular file reached without a link, hashed as the wheel recorded it
        return self.distribution.read_skill_file(skill.name, rel)


class BuiltinSkillProvider(DirectorySkillProvider):
    """``agenttools``: the skills agenttools itself ships (the built-in bundle's skills)."""

    kind = "builtin"

    def __init__(self, name: str = BUILTIN_PROVIDER) -> None:
        super().__init__(name)

    def _scan(self) -> Iterable[tuple[str, _DirectorySkill]]:
        from agenttools_runtime.bundles import BUILTIN_SKILL_NAMES, BUILTIN_SKILLS_DIR

        for name in BUILTIN_SKILL_NAMES:
            directory = BUILTIN_SKILLS_DIR / name
            if (directory / MAIN_FILE).is_file():
                yield name, _DirectorySkill(directory, None)


def distribution_providers(search: SearchPath | None = None) -> list[DistributionSkillProvider]:
    """One provider per installed distribution whose manifest lists skills, by name.
    Distributions with a broken manifest are skipped with a ``SkillProviderSkipped`` warning."""
    from agenttools_runtime.discovery import find_distributions

    providers = []
    for dist in find_distributions(search):
        if dist.problem is not None:
            warnings.warn(
                SkillProviderSkipped(provider=dist.name, reason=dist.problem), stacklevel=2
            )
            continue
        if dist.manifest is None or not dist.manifest.skills:
            continue
        if not is_provider_name(dist.name):
            reason = "its name is not a valid provider name"
            warnings.warn(SkillProviderSkipped(provider=dist.name, reason=reason), stacklevel=2)
            continue
        providers.append(DistributionSkillProvider(dist))
    return providers


# -- MCP servers -----------------------------------------------------------------------------


class MCPSkillProvider(SkillProvider):
    """Skills an MCP server serves as FastMCP skills-provider resources.

    *server* is a command line (``str``, split shell-style, or a list), an ``http(s)://`` URL,
    an :class:`agenttools_runtime.mcp.server.MCPServer` declaration, or anything
    ``mcp.Client`` accepts (``StdioServerParameters``, an in-process ``mcp`` server).
    Every ``skill://{path}/SKILL.md`` resource is a skill named after the last segment of its
    path; ``skill://{name}/…`` URIs reach it by that name or by its full path. Every prompt of
    the server whose name no such skill has is a skill too (AgentPool's prompt-based skills):
    resolving it renders the prompt with the arguments. One session is
    opened on first use and kept until :meth:`close` (the listing is cached). Needs ``mcp``.
    """

    kind = "mcp"

    def __init__(self, name: str, server: Any, *, timeout: float = 60.0) -> None:
        super().__init__(name)
        self.server = server
        self.timeout = timeout
        self._cache: list[ProvidedSkill] | None = None
        self._connection: _Connection | None = None

    def skills(self) -> Sequence[ProvidedSkill]:
        if self._cache is None:
            self._cache = self._session(self._list)
        return self._cache

    def locate(self, path: Sequence[str]) -> tuple[ProvidedSkill, tuple[str, ...]] | None:
        by_path = {s.path: s for s in self.skills()}
        for cut in range(len(path), 0, -1):  # the longest skill path wins
            skill = by_path.get("/".join(path[:cut]))
            if skill is not None:
                return skill, tuple(path[cut:])
        return super().locate(path)

    def find(self, name: str) -> ProvidedSkill | None:
        matches = [s for s in self.skills() if s.name == name]
        if len(matches) > 1:
            warnings.warn(
                SkillNameCollision(
                    skill=name,
                    providers=[s.uri for s in matches],
                    chosen=matches[0].uri,
                    provider=self.name,
                ),
                stacklevel=3,
            )
        return matches[0] if matches else None

    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        rel = "/".join(reference)
        uri = f"{SCHEME}://{quote(skill.path, safe='/')}/{quote(rel, safe='/')}"
        data = self._session(lambda client: _read_resource(client, uri))
        if data is None:
            raise SkillReferenceNotFound(reference=rel, skill=skill.name)
        return data

    def manifest(self, skill: ProvidedSkill) -> str:
        data = self.read(skill, (MANIFEST_REFERENCE,))
        return data.decode("utf-8")

    async def _list(self, client: Any) -> list[ProvidedSkill]:
        found: dict[str, ProvidedSkill] = {}
        for resource in await _paginate(client.list_resources, "resources"):
            uri = str(resource.uri)
            if not (uri.startswith(f"{SCHEME}://") and uri.endswith(f"/{MAIN_FILE}")):
                continue
            path = unquote(uri[len(SCHEME) + 3 : -len(MAIN_FILE) - 1])
            segments = path.split("/")
            if not all(_is_listable(s) for s in segments):
                continue
            description = resource.description or f"MCP skill: {segments[-1]}"
            found[path] = ProvidedSkill(
                self.name, segments[-1], description, path, None, f"mcp:{self.name} {uri}"
            )
        names = {s.name for s in found.values()}
        for prompt in await _list_prompts(client):
            if prompt.name in names or prompt.name in found or not _is_listable(prompt.name):
                continue
            arguments = tuple(a.name for a in prompt.arguments or ())
            description = prompt.description or f"MCP prompt: {prompt.name}"
            found[prompt.name] = ProvidedSkill(
                self.name,
                prompt.name,
                description,
                prompt.name,
                None,
                f"mcp:{self.name} prompt {prompt.name}",
                arguments,
            )
        return sorted(found.values(), key=lambda s: (s.name, s.path))

    def render_prompt(
        self, skill: ProvidedSkill, arguments: str | Sequence[str] | None, convention: Convention
    ) -> bytes:
        """Get a prompt skill from the server with *arguments* mapped onto its declared
        arguments in order (split by *convention*; the last one takes the rest, a single one
        the whole string); its text messages joined by blank lines."""
        declared = skill.prompt or ()
        values: dict[str, str] = {}
        if arguments is not None and declared:
            raw, positional = _split_arguments(arguments, convention)
            if len(declared) == 1:
                values[declared[0]] = raw
            else:
                for index, name in enumerate(declared):
                    if index < len(positional):
                        last = index == len(declared) - 1
                        values[name] = " ".join(positional[index:]) if last else positional[index]
        text, refusal = self._session(lambda client: _get_prompt(client, skill.name, values))
        if text is None:
            reason = f"the prompt '{skill.name}' could not be rendered ({refusal})"
            raise SkillProviderFailed(provider=self.name, reason=reason)
        return text.encode("utf-8")

    def close(self) -> None:
        """End the session with the server (it is opened again when needed)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _session(self, action: Callable[[Any], Coroutine[Any, Any, _T]]) -> _T:
        try:
            import mcp  # noqa: F401
        except ImportError:
            from agenttools_runtime.errors import MCPSDKMissing

            raise MCPSDKMissing(
                feature=f"Reading skills from the MCP server '{self.name}'"
            ) from None
        try:
            if self._connection is None:
                self._connection = _Connection(_client_target(self.server), self.timeout)
            return self._connection.call(action)
        except AgentToolsError:
            raise
        except Exception as exc:  # an unreachable or broken server is the provider's failure
            self.close()
            raise SkillProviderFailed(provider=self.name, reason=_describe(exc)) from exc


class _Connection:
    """One MCP client session kept open on an event loop of its own (a daemon thread), so a
    listing and the reads after it cost one server start-up, and synchronous callers work
    whether or not they run inside an event loop themselves."""

    def __init__(self, target: Any, timeout: float) -> None:
        import asyncio  # here, not at import: it costs the CLI's start-up ~50 ms
        import threading

        self.timeout = timeout
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._main(target)), name="agenttools-mcp", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(timeout):
            self._abandon()
            raise TimeoutError(f"no answer within {timeout:g} s")
        if self._error is not None:
            raise self._error

    async def _main(self, target: Any) -> None:
        import asyncio

        from mcp import Client

        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._stop = asyncio.Event()
        try:
            async with Client(target, read_timeout_seconds=self.timeout) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # reported to the caller waiting in __init__ or call
            self._error = exc
        finally:
            self._client = None
            self._ready.set()

    def call(self, action: Callable[[Any], Coroutine[Any, Any, _T]]) -> _T:
        import asyncio
        import concurrent.futures

        if self._client is None or self._loop is None:
            raise self._error or RuntimeError("the MCP session has ended")
        future = asyncio.run_coroutine_threadsafe(action(self._client), self._loop)
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:  # not TimeoutError on Python 3.10
            future.cancel()
            raise TimeoutError(f"no answer within {self.timeout:g} s") from None

    def _abandon(self) -> None:
        """Stop a server that does not start now, not when the SDK's own time-out ends it."""
        if self._loop is not None and self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(self.timeout)

    def close(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(self.timeout)


async def _paginate(method: Callable[..., Coroutine[Any, Any, Any]], field: str) -> list[Any]:
    """Every item of a paginated MCP listing (``list_resources``, ``list_prompts``)."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(1000):  # a server paginating forever cannot hang us
        result = await method(cursor=cursor)
        items.extend(getattr(result, field))
        cursor = result.next_cursor
        if not cursor:
            break
    return items


async def _list_prompts(client: Any) -> list[Any]:
    try:
        return await _paginate(client.list_prompts, "prompts")
    except Exception:  # a server without prompts (or a broken listing): skills only
        return []


def _refusal(exc: Exception) -> str | None:
    """The server's message when *exc* is its answer to a request (an unknown resource, a
    prompt's missing argument); None when the session failed (closed, timed out): the
    server's failure, not a missing file."""
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    if isinstance(exc, MCPError) and exc.error.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
        return exc.error.message
    return None


async def _get_prompt(client: Any, name: str, arguments: dict[str, str]) -> tuple[str | None, str]:
    """``(text messages joined by blank lines, "")``, or ``(None, the server's refusal)``."""
    try:
        result = await client.get_prompt(name, arguments)
    except Exception as exc:
        refusal = _refusal(exc)
        if refusal is None:
            raise
        return None, refusal
    texts = [
        message.content.text
        for message in result.messages
        if getattr(message.content, "type", None) == "text"
    ]
    return "\n\n".join(texts), ""


async def _read_resource(client: Any, uri: str) -> bytes | None:
    from mcp_types import TextResourceContents

    try:
        result = await client.read_resource(uri)
    except Exception as exc:
        if _refusal(exc) is None:
            raise
        return None
    if len(result.contents) != 1:
        return None
    content = result.contents[0]
    if isinstance(content, TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob)


def _client_target(server: Any) -> Any:
    from mcp import StdioServerParameters

    from agenttools_runtime.mcp.server import MCPServer

    if isinstance(server, MCPServer):
        if server.url is not None:
            return server.url
        command, args = server.launch()
        return StdioServerParameters(command=command, args=args, env=_server_env(server.env))
    if isinstance(server, str):
        if server.startswith(("http://", "https://")):
            return server
        server = split_command(server)
    if isinstance(server, (list, tuple)):
        if not server:
            raise ValueError("an empty MCP server command")
        return StdioServerParameters(command=str(server[0]), args=[str(a) for a in server[1:]])
    return server


def split_command(command: str, posix: bool = os.name != "nt") -> list[str]:
    """A command line's words, split shell-style. On Windows (*posix* False) a backslash is a
    path separator, not an escape, and double quotes only group: ``"C:\\Program Files\\x.exe"
    --y`` is ``['C:\\Program Files\\x.exe', '--y']``. Raises ``ValueError`` for an unbalanced
    quote."""
    if posix:
        return shlex.split(command)
    lexer = shlex.shlex(command, posix=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] == '"' else w for w in lexer]


def _server_env(extra: Mapping[str, str]) -> dict[str, str] | None:
    if not extra:
        return None
    return {**os.environ, **extra}


def _describe(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)
    while inner:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return str(exc) or type(exc).__name__


# -- resolution ------------------------------------------------------------------------------

ResultKind = Literal["skill", "reference", "manifest"]


@dataclass(frozen=True)
class ResolvedSkill:
    """What a URI resolved to.

    ``kind`` is ``skill`` (SKILL.md, arguments substituted), ``reference`` (a file of the
    skill, verbatim) or ``manifest`` (FastMCP's ``_manifest`` JSON). ``content`` is the bytes;
    ``text`` the same decoded as UTF-8 (None for binary files). ``also_provided_by`` names the
    lower-priority providers that have a skill of that name too (a bare name's collision).
    """

    uri: str
    skill: ProvidedSkill
    kind: ResultKind
    reference: str | None
    content: bytes
    also_provided_by: tuple[str, ...] = ()

    @property
    def provider(self) -> str:
        return self.skill.provider

    @property
    def text(self) -> str | None:
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def to_json(self) -> dict[str, Any]:
        text = self.text
        data: dict[str, Any] = {
            "uri": self.uri,
            "provider": self.provider,
            "skill": self.skill.name,
            "kind": self.kind,
            "reference": self.reference,
            "directory": None if self.skill.directory is None else str(self.skill.directory),
            "also_provided_by": list(self.also_provided_by),
        }
        if text is None:
            data["content_base64"] = base64.b64encode(self.content).decode("ascii")
        else:
            data["content"] = text
        return data


@dataclass(frozen=True)
class ProviderListing:
    name: str
    kind: str
    skills: tuple[ProvidedSkill, ...]
    error: str | None = None


@dataclass(frozen=True)
class SkillListing:
    """Every provider's skills, in priority order. ``winners`` maps each name to the
    provider a bare name resolves to."""

    providers: tuple[ProviderListing, ...]
    winners: Mapping[str, str] = field(default_factory=dict)

    def render(self) -> str:
        """The scheme document's "Available skills" text, grouped by provider."""
        groups = [p for p in self.providers if p.skills]
        if not groups:
            return "No skills available"
        lines = ["Available skills:"]
        for group in groups:
            count = len(group.skills)
            lines += ["", f"## {group.name} ({count} skill{'' if count == 1 else 's'})"]
            for skill in group.skills:
                description = " ".join(skill.description.split())  # one line per skill
                lines.append(f"- **{skill.name}**: {description}".rstrip())
                lines.append(f"  URI: `{skill.uri}`")
                winner = self.winners.get(skill.name)
                if winner is not None and winner != group.name:
                    lines.append(f"  Shadowed: the bare name '{skill.name}' resolves to {winner}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "providers": [
                {
                    "name": p.name,
                    "kind": p.kind,
                    "error": p.error,
                    "skills": [
                        {**s.to_json(), "resolves_bare_name": self.winners.get(s.name) == p.name}
                        for s in p.skills
                    ],
                }
                for p in self.providers
            ]
        }


class SkillResolver:
    """Resolves ``skill://`` URIs against providers in priority (registration) order."""

    def __init__(self, providers: Iterable[SkillProvider] = ()) -> None:
        self._providers: dict[str, SkillProvider] = {}
        for provider in providers:
            self.register(provider)

    @classmethod
    def default(
        cls,
        *,
        search: SearchPath | None = None,
        project_dir: Path | str | None = None,
        mcp_servers: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
        local: bool = True,
        distributions: bool = True,
    ) -> SkillResolver:
        """``local``, then every installed distribution with skills (by name) and agenttools'
        own built-in skills (``agenttools``), then *mcp_servers* (name → server, see
        :class:`MCPSkillProvider`) in the order given.
        A distribution whose name is taken by an earlier provider is skipped with a warning."""
        resolver = cls()
        if local:
            resolver.register(LocalSkillProvider(project_dir=project_dir))
        if distributions:
            shipped: list[SkillProvider] = [*distribution_providers(search)]
            shipped.append(BuiltinSkillProvider())
            for provider in shipped:
                if provider.name in resolver._providers:
                    reason = f"the name is taken by an earlier provider ({provider.name})"
                    warnings.warn(
                        SkillProviderSkipped(provider=provider.name, reason=reason), stacklevel=2
                    )
                    continue
                resolver.register(provider)
        items = mcp_servers.items() if isinstance(mcp_servers, Mapping) else mcp_servers
        for name, server in items:
            resolver.register(MCPSkillProvider(name, server))
        return resolver

    def close(self) -> None:
        """Close every provider (ends MCP sessions)."""
        for provider in self._providers.values():
            provider.close()

    def __enter__(self) -> SkillResolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def register(self, provider: SkillProvider) -> None:
        """Add a provider after the existing ones. Raises ``SkillProviderExists``."""
        if provider.name in self._providers:
            raise SkillProviderExists(provider=provider.name)
        self._providers[provider.name] = provider

    @property
    def providers(self) -> tuple[SkillProvider, ...]:
        return tuple(self._providers.values())

    def provider(self, name: str) -> SkillProvider:
        """A provider by name (distribution names also after PEP 503 normalization).
        Raises ``SkillProviderNotFound``."""
        found = self._providers.get(name)
        if found is None:
            found = self._providers.get(canonical_dist_name(name))
        if found is None:
            available = ", ".join(self._providers) or "(none)"
            raise SkillProviderNotFound(provider=name, available=available)
        return found

    def locate(self, uri: str | SkillURI) -> tuple[ProvidedSkill, tuple[str, ...], tuple[str, ...]]:
        """``(skill, reference segments, other providers with that name)``.

        Raises the parse errors of :func:`parse_skill_uri`, ``SkillProviderNotFound``,
        ``SkillProviderFailed`` (an explicitly named provider is unreachable) and
        ``SkillNotFound``. A bare name takes the first provider that has it; when later ones
        have it too, a ``SkillNameCollision`` warning says which one won.
        """
        parsed = parse_skill_uri(uri) if isinstance(uri, str) else uri
        if parsed.provider is not None:
            provider = self.provider(parsed.provider)
            located = provider.locate(parsed.path)
            if located is None:
                available = ", ".join(provider.names()) or "(none)"
                raise SkillNotFound(skill=parsed.skill, available=available)
            return located[0], located[1], ()
        found: list[tuple[ProvidedSkill, tuple[str, ...]]] = []
        names: set[str] = set()
        for provider in self._providers.values():
            try:
                located = provider.locate(parsed.path)
                if located is None:
                    names.update(provider.names())
            except SkillProviderFailed as exc:  # one dead server must not hide the others
                warnings.warn(
                    SkillProviderSkipped(provider=provider.name, reason=exc.data["reason"]),
                    stacklevel=2,
                )
                continue
            if located is not None:
                found.append(located)
        if not found:
            available = ", ".join(sorted(names)) or "(none)"
            raise SkillNotFound(skill=parsed.skill, available=available)
        (skill, reference), others = found[0], tuple(s.provider for s, _ in found[1:])
        if others:
            warnings.warn(
                SkillNameCollision(
                    skill=skill.name, providers=[skill.provider, *others], chosen=skill.uri
                ),
                stacklevel=2,
            )
        return skill, reference, others

    def resolve(
        self,
        uri: str | SkillURI,
        arguments: str | Sequence[str] | None = None,
        *,
        convention: Convention = "seed",
    ) -> ResolvedSkill:
        """Load what *uri* names: SKILL.md with *arguments* substituted in its body (never in
        the frontmatter), a reference file verbatim, or the ``_manifest`` JSON.

        Raises what :meth:`locate` raises, ``SkillReferenceNotFound``, ``SkillPathTraversal``
        (a reference that leads out of its skill, e.g. through a symbolic link) and
        ``ValueError`` for an unknown *convention*.
        """
        _check_convention(convention)
        skill, reference, others = self.locate(uri)
        provider = self._providers[skill.provider]
        rel = "/".join(reference)
        kind: ResultKind = "reference"
        if not reference or reference == (MAIN_FILE,):
            kind, reference = "skill", ()
        elif reference == (MANIFEST_REFERENCE,):
            kind = "manifest"
        if skill.prompt is not None and isinstance(provider, MCPSkillProvider):
            if kind != "skill":  # a prompt has no files
                raise SkillReferenceNotFound(reference=rel, skill=skill.name)
            data = provider.render_prompt(skill, arguments, convention)
        elif kind == "skill":
            data = provider.read(skill, (MAIN_FILE,))
            if arguments is not None:
                data = substitute_skill_md(data, arguments, convention)
        elif kind == "manifest":
            data = provider.manifest(skill).encode("utf-8")
        else:
            data = provider.read(skill, reference)
        canonical = format_skill_uri(skill.provider, [*skill.path.split("/"), *reference])
        return ResolvedSkill(canonical, skill, kind, rel if reference else None, data, others)

    def list_skills(self) -> SkillListing:
        """Every provider's skills; an unreachable provider is listed with its error (and a
        ``SkillProviderSkipped`` warning)."""
        groups: list[ProviderListing] = []
        winners: dict[str, str] = {}
        for provider in self._providers.values():
            try:
                skills = tuple(provider.skills())
            except SkillProviderFailed as exc:
                warnings.warn(
                    SkillProviderSkipped(provider=provider.name, reason=exc.data["reason"]),
                    stacklevel=2,
                )
                groups.append(ProviderListing(provider.name, provider.kind, (), str(exc)))
                continue
            for skill in skills:
                winners.setdefault(skill.name, provider.name)
            groups.append(ProviderListing(provider.name, provider.kind, skills))
        return SkillListing(tuple(groups), winners)


def resolve_skill(
    uri: str,
    arguments: str | Sequence[str] | None = None,
    *,
    convention: Convention = "seed",
    mcp_servers: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
    search: SearchPath | None = None,
    project_dir: Path | str | None = None,
) -> ResolvedSkill:
    """Resolve one URI with the default providers (see :meth:`SkillResolver.default` and
    :meth:`SkillResolver.resolve`)."""
    with SkillResolver.default(
        search=search, project_dir=project_dir, mcp_servers=mcp_servers
    ) as resolver:
        return resolver.resolve(uri, arguments, convention=convention)


def list_skills(
    *,
    mcp_servers: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
    search: SearchPath | None = None,
    project_dir: Path | str | None = None,
) -> SkillListing:
    """Every skill of the default providers, grouped by provider in priority order."""
    with SkillResolver.default(
        search=search, project_dir=project_dir, mcp_servers=mcp_servers
    ) as resolver:
        return resolver.list_skills()
