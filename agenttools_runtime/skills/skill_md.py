"""``SKILL.md``, the one reader and renderer: a YAML frontmatter block between ``---`` lines,
then the Markdown body.

:func:`parse_skill_md` is the one reader: every caller (deploys, ``skills install``, the build
hook and ``agenttools validate`` through :func:`check`, ``agenttools serve``, listings) splits
and parses with it, by these rules (the Agent Skills spec's frontmatter, as FastMCP's client,
gray-matter and skills-ref read it where they agree):

- A byte order mark before the first fence is skipped (clients skip it; :func:`check` reports
  it, since skills-ref and several clients reject it).
- The file starts with a line of exactly ``---``; the block ends at the next line of exactly
  ``---``. Lines end with ``\n`` or ``\r\n``; no other character ends a line.
- The YAML is the text between the two fences, without the line break before the closing
  one (so a block scalar written last has no final newline, as FastMCP's client reads it).
- No closing fence: an error. An empty block is an empty mapping; YAML that is not a mapping
  is an error.
- The YAML is read by PyYAML's safe loader (libyaml's when available), refusing what parsers
  disagree on or what expands beyond the text: a key given twice, a key that is not a string,
  aliases; nesting beyond ``limits.MAX_NESTING`` levels.

:func:`check`, the strict mode of ``agenttools validate`` and the build hook, reports every
problem with its line in skills-ref's wording, and also what the reader lets pass but some
client or skills-ref rejects (a BOM, ``---`` inside the frontmatter, flow style, keys outside
the spec).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from agenttools_runtime import errors, names, regular_files
from agenttools_runtime.limits import MAX_NESTING, shape_problem, too_deep
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.schema import CLIENT_EXTENSION_KEYS

Severity = Literal["error", "warning"]

# Frontmatter keys in the order a generated SKILL.md writes them (the Agent Skills spec's).
KNOWN_KEYS = ("name", "description", "license", "compatibility", "allowed-tools", "metadata")
# The keys the spec allows (skills-ref's ALLOWED_FIELDS).
ALLOWED_KEYS = frozenset(KNOWN_KEYS)

DASHES_MESSAGE = (
    "a '---' inside the frontmatter ends it early for skills-ref and other parsers that "
    "split on '---'; reword it or quote it differently"
)
_FLOW = {"[": "[...]", "{": "{...}"}
BOM = "\ufeff"
# The closing fence: a line of exactly "---" (searched from the start of a line).
_CLOSING_FENCE = re.compile(r"^---\r?(?:\n|\Z)", re.MULTILINE)
_TOO_DEEP = f"Invalid YAML in frontmatter: {too_deep(MAX_NESTING)}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of the strict mode: a validate problem code, its message, the line."""

    code: str
    message: str
    line: int | None = None
    severity: Severity = "error"


@dataclass(frozen=True, slots=True)
class SkillDocument:
    """A parsed ``SKILL.md``: its frontmatter mapping and its body text."""

    frontmatter: dict[str, Any]
    body: str


class FrontmatterError(ValueError):
    """Why SKILL.md text has no readable frontmatter: the sentence (skills-ref's wording where
    it has one) and the 1-based line of SKILL.md it is about (None: the whole file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def split_skill_md(text: str) -> tuple[str, str]:
    """Cut SKILL.md *text* at its ``---`` fences (the rules of this module's docstring):
    ``(the frontmatter YAML, the body)``.

    Raises :class:`FrontmatterError` when the text does not start with a fence or the block
    is not closed."""
    text = text.removeprefix(BOM)
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.removesuffix("\r") != "---":
        raise FrontmatterError("SKILL.md must start with YAML frontmatter (---)", 1)
    opened = len(text) if first_end < 0 else first_end + 1
    closing = _CLOSING_FENCE.search(text, opened) if first_end >= 0 else None
    if closing is None:
        raise FrontmatterError("SKILL.md frontmatter not properly closed with ---", 1)
    # the YAML without the line break that ends its last line
    yaml_text = text[opened : max(opened, closing.start() - 1)].removesuffix("\r")
    return yaml_text, text[closing.end() :]


def parse_skill_md(text: str | bytes, source: str = SKILL_FILE) -> SkillDocument:
    """Split and parse ``SKILL.md`` text (or its UTF-8 bytes): the one reader. The frontmatter
    must be a YAML mapping of string keys, none repeated, without aliases, nested at most
    ``limits.MAX_NESTING`` levels. Raises ``InvalidSkillFrontmatter`` (naming *source* and,
    where there is one, the line)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise errors.InvalidSkillFrontmatter(
                source=source, reason=f"not UTF-8 ({exc.reason})"
            ) from None
    try:
        yaml_text, body = split_skill_md(text)
        return SkillDocument(_mapping(yaml_text), body)
    except FrontmatterError as exc:
        where = source if exc.line is None else f"{source}:{exc.line}"
        raise errors.InvalidSkillFrontmatter(source=where, reason=exc.message) from None


def read_skill_md(path: Path) -> SkillDocument:
    """Read and parse a ``SKILL.md`` file (UTF-8)."""
    return parse_skill_md(regular_files.read_bytes(path), str(path))


def _mapping(yaml_text: str) -> dict[str, Any]:
    """The frontmatter block's YAML, read by the rules of this module (what
    :func:`parse_skill_md` reads between the fences). Raises :class:`FrontmatterError`, its
    line counted in SKILL.md (the block starts on line 2)."""
    try:
        data = yaml.load(yaml_text, Loader=_FastLoader)  # a SafeLoader subclass
    except RecursionError:  # deeper than the interpreter's stack, long before the limit
        raise FrontmatterError(_TOO_DEEP, 2) from None
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, yaml_text) from None
    problem = shape_problem(data)
    if problem is not None:
        raise FrontmatterError(f"Invalid YAML in frontmatter: {problem}", 2)
    if data is None:  # an empty block
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("SKILL.md frontmatter must be a YAML mapping", 2)
    return data


def _yaml_error(error: yaml.YAMLError, yaml_text: str) -> FrontmatterError:
    """*error* as a finding: in PyYAML's own words (which skills-ref's parser shares), the
    same wherever agenttools runs; libyaml words some errors differently."""
    problem: str = getattr(error, "problem", None) or str(error)
    if "maximum nesting depth" in problem:  # libyaml's own limit (1,000), beyond ours
        return FrontmatterError(_TOO_DEEP, 2)
    if _FastLoader is not _Loader:
        try:
            yaml.load(yaml_text, Loader=_Loader)  # a SafeLoader subclass
        except RecursionError:
            return FrontmatterError(_TOO_DEEP, 2)
        except yaml.YAMLError as own:
            error = own
            problem = getattr(error, "problem", None) or str(error)
    mark = getattr(error, "problem_mark", None)
    message = f"Invalid YAML in frontmatter: {problem}"
    if "mapping values are not allowed" in problem and mark is not None:
        lines = yaml_text.split("\n")
        where = lines[mark.line].split(":", 1)[0].strip() if mark.line < len(lines) else ""
        message += (
            f"; the value of '{where}' contains ': ', so quote it "
            f'({where}: "...") or use a folded block ({where}: >-)'
        )
    return FrontmatterError(message, None if mark is None else mark.line + 2)


class _Rules:
    """What the frontmatter loaders refuse beyond PyYAML's safe loader: aliases (a few bytes
    expanding into a huge document; strictyaml and FastMCP's client refuse them too), keys
    that are not strings and repeated keys (parsers disagree on which value wins)."""

    def get_single_data(self: Any) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _refuse_aliases(node)
        return self.construct_document(node)

    def construct_mapping(
        self: Any, node: yaml.MappingNode, deep: bool = False
    ) -> dict[Hashable, Any]:
        mapping: dict[Hashable, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)  # (a list key, filled in)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key that is not a string ({key!r})", key_node.start_mark
                )
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}'", key_node.start_mark
                )
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


class _Loader(_Rules, yaml.SafeLoader):
    """The rules on PyYAML's own parser (the wording of every error)."""


class _CLoader(_Rules, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The rules on libyaml's parser, where PyYAML was built with it."""


_FastLoader: type[Any] = _CLoader if hasattr(yaml, "CSafeLoader") else _Loader


def _refuse_aliases(root: Any) -> None:
    """An alias is a node met twice in the composed tree (PyYAML's and libyaml's composers
    share the anchored node): refused where it is first met again."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise yaml.composer.ComposerError(
                None,
                None,
                "this anchored value (&name) is used again through an alias (*name); "
                "YAML aliases are not allowed",
                node.start_mark,
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


# -- lenient readings (listings and argument substitution never fail on a bad SKILL.md) ------
def split_skill_text(text: str) -> tuple[str, str]:
    """``(frontmatter block verbatim, body)``; an empty block when there is none."""
    try:
        body = split_skill_md(text)[1]
    except FrontmatterError:  # no frontmatter block: all of it is the body
        return "", text
    return text[: len(text) - len(body)], body  # the body is the text's tail


def skill_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter mapping of SKILL.md text, ``{}`` when absent or unparseable."""
    try:
        return parse_skill_md(text).frontmatter
    except errors.InvalidSkillFrontmatter:
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


def render_skill_md(
    name: str,
    description: str,
    body: str,
    *,
    license: str | None = None,
    compatibility: str | None = None,
    allowed_tools: str | list[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """Generate ``SKILL.md`` deterministically: byte-identical output for identical input.

    Keys in the spec's order (name, description, license, compatibility, allowed-tools,
    metadata with values as strings), then *extra* keys in their given order; ``\\n`` line
    endings and exactly one trailing newline.
    """
    extra = dict(extra or {})
    if allowed_tools is None and "allowed-tools" in extra:
        allowed_tools = extra["allowed-tools"]
    for key in KNOWN_KEYS:
        extra.pop(key, None)

    data: dict[str, Any] = {"name": name, "description": description}
    if license is not None:
        data["license"] = license
    if compatibility is not None:
        data["compatibility"] = compatibility
    if allowed_tools is not None:
        data["allowed-tools"] = allowed_tools
    if metadata:
        data["metadata"] = {str(k): _metadata_value(v) for k, v in metadata.items()}
    data.update(extra)

    # (PyYAML's own emitter, not libyaml's: the same bytes wherever it is built)
    front = yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )
    body_text = body.replace("\r\n", "\n").strip("\n")
    text = f"---\n{front}---\n"
    if body_text:
        text += f"\n{body_text}\n"
    return text


def _metadata_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- the strict mode -------------------------------------------------------------------------
def check(path: Path, expected_name: str | None) -> tuple[dict[str, Any] | None, list[Finding]]:
    """The strict mode (``agenttools validate`` and the build hook): check one ``SKILL.md`` as
    skills-ref does (same rules and wording), plus portability: a BOM, a ``---`` inside the
    frontmatter, non-ASCII names, an unquoted ``: ``, flow style, and the shared rules of
    :func:`parse_skill_md` (duplicate keys, nesting). The directory name must equal the skill
    name (and *expected_name*, the declared one).

    Returns the frontmatter (None when it did not parse) and every finding, with its line.
    """
    findings: list[Finding] = []

    def add(code: str, message: str, line: int | None = None, severity: Severity = "error") -> None:
        findings.append(Finding(code, message, line, severity))

    try:
        raw = regular_files.read_bytes(path)
    except OSError as exc:
        add("MissingDefinitionFile", f"Missing required file: SKILL.md ({exc.strerror})")
        return None, findings
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        add("InvalidSkillDefinition", f"SKILL.md is not UTF-8 text ({exc.reason})")
        return None, findings
    if text.startswith(BOM):
        add(
            "SkillFrontmatterBOM",
            "SKILL.md must start with YAML frontmatter (---): it starts with a byte order mark "
            "(BOM), which skills-ref and several clients reject; save it as UTF-8 without BOM",
            1,
        )
        return None, findings
    try:
        yaml_text = split_skill_md(text)[0]
    except FrontmatterError as exc:
        add("InvalidSkillDefinition", exc.message, exc.line)
        return None, findings
    front_lines = yaml_text.split("\n") if yaml_text else []
    for offset, text_line in enumerate(front_lines):
        if "---" in text_line:
            add("SkillFrontmatterDashes", DASHES_MESSAGE, offset + 2)
    try:
        data = _mapping(yaml_text)
    except FrontmatterError as exc:
        add("InvalidSkillDefinition", exc.message, exc.line)
        return None, findings
    key_lines = _frontmatter_key_lines(front_lines)
    for key, line in key_lines.items():
        value_start = front_lines[line - 2].split(":", 1)[1].strip()
        if value_start.startswith(("[", "{")):
            add(
                "FlowStyle",
                f"Field '{key}' uses YAML flow style ({_FLOW[value_start[0]]}), which skills-ref "
                "(strictyaml) rejects; write it in block style",
                line,
                "warning",
            )
    extension = sorted(k for k in data if k not in ALLOWED_KEYS and k in CLIENT_EXTENSION_KEYS)
    for key in extension:
        add(
            "ClientExtensionKey",
            f"Field '{key}' is a {CLIENT_EXTENSION_KEYS[key]} extension, not part of the Agent "
            "Skills spec; other clients ignore it and skills-ref rejects it",
            key_lines.get(key),
            "warning",
        )
    unexpected = sorted(k for k in data if k not in ALLOWED_KEYS and k not in CLIENT_EXTENSION_KEYS)
    if unexpected:
        add(
            "InvalidSkillDefinition",
            f"Unexpected fields in frontmatter: {', '.join(unexpected)}. "
            f"Only {sorted(ALLOWED_KEYS)} are allowed.",
            key_lines.get(unexpected[0]),
        )
    if "name" not in data:
        add("InvalidSkillDefinition", "Missing required field in frontmatter: name", 2)
    else:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            add(
                "InvalidSkillDefinition",
                "Field 'name' must be a non-empty string",
                key_lines.get("name"),
            )
        else:
            for message in names.skill_name_problems(name, path.parent.name):
                add("InvalidSkillName", message, key_lines.get("name"))
            normalized = names.nfkc(name.strip())
            # (where the directory is named as declared, the directory mismatch above says it)
            if expected_name not in (None, normalized, path.parent.name):
                add(
                    "InvalidSkillName",
                    f"Skill name '{normalized}' must match the declared name '{expected_name}'",
                    key_lines.get("name"),
                )
    if "description" not in data:
        add("InvalidSkillDefinition", "Missing required field in frontmatter: description", 2)
    # the text fields, with skills-ref's message for a value that is no string
    for key, problems, not_text in (
        ("description", names.description_problems, "must be a non-empty string"),
        ("compatibility", names.compatibility_problems, "must be a string"),
    ):
        if key not in data:
            continue
        value = data[key]
        messages = problems(value) if isinstance(value, str) else [f"Field '{key}' {not_text}"]
        for message in messages:
            add("InvalidSkillDefinition", message, key_lines.get(key))
    if "allowed-tools" in data:
        tools = data["allowed-tools"]
        if isinstance(tools, list):
            if not all(isinstance(t, str) for t in tools):
                add(
                    "InvalidSkillDefinition",
                    "Field 'allowed-tools' list items must all be strings",
                    key_lines.get("allowed-tools"),
                )
        elif not isinstance(tools, str):
            add(
                "InvalidSkillDefinition",
                "Field 'allowed-tools' must be either a string or a list of strings",
                key_lines.get("allowed-tools"),
            )
    if "metadata" in data:
        metadata = data["metadata"]
        if not isinstance(metadata, dict) or any(
            isinstance(v, (dict, list)) for v in metadata.values()
        ):
            add(
                "InvalidSkillDefinition",
                "Field 'metadata' must be a mapping of string keys to string values",
                key_lines.get("metadata"),
            )
    return data, findings


def _frontmatter_key_lines(front_lines: Sequence[str]) -> dict[str, int]:
    """Top-level key -> 1-based line in SKILL.md (the frontmatter starts on line 2)."""
    lines: dict[str, int] = {}
    for offset, line in enumerate(front_lines):
        match = re.match(r"""^(?:"([^"]+)"|'([^']+)'|([^\s:#][^:#]*?))\s*:(\s|$)""", line)
        if match:
            key = next(g for g in match.groups()[:3] if g is not None)
            lines.setdefault(key, offset + 2)
    return lines
