"""``SKILL.md``, the one reader and renderer: a YAML frontmatter block between ``---`` lines,
then the Markdown body.

Two modes share one parse (YAML's safe subset; a key given twice is refused, since parsers
disagree on which value wins; frontmatter nested more than ``limits.MAX_NESTING`` levels is
refused instead of exhausting the stack):

- :func:`parse_skill_md` / :func:`read_skill_md`, the runtime's reader, takes what clients take:
  a leading byte order mark is skipped, any frontmatter mapping is returned, and a problem is
  one ``InvalidSkillFrontmatter``.
- :func:`check`, the strict mode of ``agenttools validate`` and the build hook, reports every
  problem with its line in skills-ref's wording, and also what the reader lets pass but some
  client or skills-ref rejects (a BOM, ``---`` inside the frontmatter, flow style, keys outside
  the spec).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from agenttools_runtime import errors, names, regular_files
from agenttools_runtime.limits import MAX_NESTING, shape_problem, too_deep
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.schema import CLIENT_EXTENSION_KEYS
from agenttools_runtime.skills.plain_yaml import plain_mapping, plain_text
from agenttools_runtime.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a build's start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

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


class Finding(Value):
    """One problem of the strict mode: a validate problem code, its message, the line."""

    __slots__ = ("code", "line", "message", "severity")
    code: str
    message: str
    line: int | None
    severity: Severity

    def __init__(
        self, code: str, message: str, line: int | None = None, severity: Severity = "error"
    ) -> None:
        super().__init__(code=code, message=message, line=line, severity=severity)


class SkillDocument(Value):
    """A parsed ``SKILL.md``: its frontmatter mapping, body text, and where the body starts
    (``source``, its name in messages, is not compared)."""

    __slots__ = ("body", "body_line", "frontmatter", "source")
    _uncompared = frozenset({"source"})
    frontmatter: dict[str, Any]
    body: str
    body_line: int
    source: str

    def __init__(
        self, frontmatter: dict[str, Any], body: str, body_line: int = 1, source: str = SKILL_FILE
    ) -> None:
        super().__init__(frontmatter=frontmatter, body=body, body_line=body_line, source=source)


def split_frontmatter(text: str, source: str = SKILL_FILE) -> tuple[str, str, int]:
    """Split *text* into (frontmatter YAML, body, 1-based line where the body starts).

    Raises ``InvalidSkillFrontmatter`` when the file does not start with ``---`` or the block
    is not closed.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        raise errors.InvalidSkillFrontmatter(
            source=source, reason="must start with a YAML frontmatter block (a first line of ---)"
        )
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() == "---":
            yaml_text = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            return yaml_text, body, index + 2
    raise errors.InvalidSkillFrontmatter(
        source=source, reason="the frontmatter block is not closed by a line of ---"
    )


def parse_skill_md(text: str, source: str = SKILL_FILE) -> SkillDocument:
    """Parse ``SKILL.md`` text. The frontmatter must be a YAML mapping without repeated keys,
    nested at most ``limits.MAX_NESTING`` levels. Raises ``InvalidSkillFrontmatter``."""
    yaml_text, body, body_line = split_frontmatter(text, source)
    try:
        data = _load_yaml(yaml_text)
    except _TooDeep as exc:
        raise errors.InvalidSkillFrontmatter(
            source=source, reason=f"the frontmatter is {exc}"
        ) from None
    except _InvalidYAML as exc:
        where = ""
        if exc.mark is not None:
            where = f" at line {exc.mark.line + 2}, column {exc.mark.column + 1}"
        raise errors.InvalidSkillFrontmatter(
            source=source, reason=f"the frontmatter is not valid YAML{where}: {exc.problem}"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise errors.InvalidSkillFrontmatter(
            source=source, reason="the frontmatter must be a YAML mapping of keys to values"
        )
    return SkillDocument({str(k): v for k, v in data.items()}, body, body_line, source)


class _TooDeep(Exception):
    """Frontmatter nested beyond the limit (the message says how deep)."""


class _InvalidYAML(Exception):
    """PyYAML's error: its problem and where (``mark``: 0-based line and column, or None)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.problem: str = getattr(error, "problem", None) or str(error)
        self.mark: Any = getattr(error, "problem_mark", None)


def _load_yaml(text: str) -> Any:
    """The frontmatter's YAML: safe subset, repeated keys refused, nesting limited. Plain
    ``key: value`` lines are read without PyYAML, to the same mapping (a build's check then
    does without its import); PyYAML's errors are raised as :class:`_InvalidYAML`."""
    data: Any = plain_mapping(text)
    if data is None:
        import yaml

        from agenttools_runtime.skills.yaml_loader import UniqueKeyLoader

        try:
            data = yaml.load(text, Loader=UniqueKeyLoader)
        except RecursionError:  # deeper than the interpreter's stack, long before the limit
            raise _TooDeep(too_deep(MAX_NESTING)) from None
        except yaml.YAMLError as exc:
            raise _InvalidYAML(exc) from None
    problem = shape_problem(data)
    if problem is not None:
        raise _TooDeep(problem)
    return data


def read_skill_md(path: Path) -> SkillDocument:
    """Read and parse a ``SKILL.md`` file (UTF-8)."""
    try:
        text = regular_files.read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.InvalidSkillFrontmatter(
            source=path, reason=f"not UTF-8 ({exc.reason})"
        ) from None
    return parse_skill_md(text, str(path))


# -- lenient readings (listings and argument substitution never fail on a bad SKILL.md) ------
def split_skill_text(text: str) -> tuple[str, str]:
    """``(frontmatter block verbatim, body)``; an empty block when there is none."""
    try:
        body = split_frontmatter(text)[1]
    except errors.InvalidSkillFrontmatter:  # no frontmatter block: all of it is the body
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
    extra.pop("allowed-tools", None)
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

    front = plain_text(data)  # one-line strings are written as PyYAML writes them
    if front is None:
        import yaml

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
    if text.startswith("\ufeff"):
        add(
            "SkillFrontmatterBOM",
            "SKILL.md must start with YAML frontmatter (---): it starts with a byte order mark "
            "(BOM), which skills-ref and several clients reject; save it as UTF-8 without BOM",
            1,
        )
        return None, findings
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        add("InvalidSkillDefinition", "SKILL.md must start with YAML frontmatter (---)", 1)
        return None, findings
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        add("InvalidSkillDefinition", "SKILL.md frontmatter not properly closed with ---", 1)
        return None, findings
    front_lines = lines[1:end]
    for offset, text_line in enumerate(front_lines):
        if "---" in text_line:
            add("SkillFrontmatterDashes", DASHES_MESSAGE, offset + 2)
    scanned: list[dict[str, int]] = []

    def key_lines() -> dict[str, int]:
        # scanned when a finding needs a line or a value may be in flow style (a clean
        # SKILL.md needs neither): the scan's pattern is compiled on its first use
        if not scanned:
            scanned.append(_frontmatter_key_lines(front_lines))
        return scanned[0]

    def key_line(key: str) -> int | None:
        return key_lines().get(key)

    try:
        data = _load_yaml("\n".join(front_lines))
    except _TooDeep as exc:
        add("InvalidSkillDefinition", f"Invalid YAML in frontmatter: {exc}", 2)
        return None, findings
    except _InvalidYAML as exc:
        mark, problem = exc.mark, exc.problem
        line = mark.line + 2 if mark is not None else None
        message = f"Invalid YAML in frontmatter: {problem}"
        if "mapping values are not allowed" in problem:
            where = front_lines[mark.line].split(":", 1)[0].strip() if mark is not None else ""
            message += (
                f"; the value of '{where}' contains ': ', so quote it "
                f'({where}: "...") or use a folded block ({where}: >-)'
            )
        add("InvalidSkillDefinition", message, line)
        return None, findings
    if data is None:
        data = {}
    if not isinstance(data, dict):
        add("InvalidSkillDefinition", "SKILL.md frontmatter must be a YAML mapping", 2)
        return None, findings
    data = {str(k): v for k, v in data.items()}

    flow = any("[" in line or "{" in line for line in front_lines)
    for key, line in key_lines().items() if flow else ():
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
            key_line(key),
            "warning",
        )
    unexpected = sorted(k for k in data if k not in ALLOWED_KEYS and k not in CLIENT_EXTENSION_KEYS)
    if unexpected:
        add(
            "InvalidSkillDefinition",
            f"Unexpected fields in frontmatter: {', '.join(unexpected)}. "
            f"Only {sorted(ALLOWED_KEYS)} are allowed.",
            key_line(unexpected[0]),
        )
    if "name" not in data:
        add("InvalidSkillDefinition", "Missing required field in frontmatter: name", 2)
    else:
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            add(
                "InvalidSkillDefinition",
                "Field 'name' must be a non-empty string",
                key_line("name"),
            )
        else:
            for message in names.skill_name_problems(name, path.parent.name):
                add("InvalidSkillName", message, key_line("name"))
            normalized = names.nfkc(name.strip())
            if expected_name is not None and normalized != expected_name:
                if path.parent.name == expected_name:
                    pass  # reported as the directory mismatch above
                else:
                    add(
                        "InvalidSkillName",
                        f"Skill name '{normalized}' must match the declared name '{expected_name}'",
                        key_line("name"),
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
            add("InvalidSkillDefinition", message, key_line(key))
    if "allowed-tools" in data:
        tools = data["allowed-tools"]
        if isinstance(tools, list):
            if not all(isinstance(t, str) for t in tools):
                add(
                    "InvalidSkillDefinition",
                    "Field 'allowed-tools' list items must all be strings",
                    key_line("allowed-tools"),
                )
        elif not isinstance(tools, str):
            add(
                "InvalidSkillDefinition",
                "Field 'allowed-tools' must be either a string or a list of strings",
                key_line("allowed-tools"),
            )
    if "metadata" in data:
        metadata = data["metadata"]
        if not isinstance(metadata, dict) or any(
            isinstance(v, (dict, list)) for v in metadata.values()
        ):
            add(
                "InvalidSkillDefinition",
                "Field 'metadata' must be a mapping of string keys to string values",
                key_line("metadata"),
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
