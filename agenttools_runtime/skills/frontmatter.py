"""Reading and generating ``SKILL.md``: a YAML frontmatter block between ``---`` lines, then
the Markdown body."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime.errors import InvalidSkillFrontmatter

SKILL_FILE = "SKILL.md"

# Frontmatter keys in the order a generated SKILL.md writes them (the Agent Skills spec's).
KNOWN_KEYS = ("name", "description", "license", "compatibility", "allowed-tools", "metadata")


@dataclass(frozen=True)
class SkillDocument:
    """A parsed ``SKILL.md``: its frontmatter mapping, body text, and where the body starts."""

    frontmatter: dict[str, Any]
    body: str
    body_line: int = 1
    source: str = field(default="SKILL.md", compare=False)


def split_frontmatter(text: str, source: str = SKILL_FILE) -> tuple[str, str, int]:
    """Split *text* into (frontmatter YAML, body, 1-based line where the body starts).

    Raises ``InvalidSkillFrontmatter`` when the file does not start with ``---`` or the block
    is not closed.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        raise InvalidSkillFrontmatter(
            source=source, reason="must start with a YAML frontmatter block (a first line of ---)"
        )
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() == "---":
            yaml_text = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            return yaml_text, body, index + 2
    raise InvalidSkillFrontmatter(
        source=source, reason="the frontmatter block is not closed by a line of ---"
    )


def parse_skill_md(text: str, source: str = SKILL_FILE) -> SkillDocument:
    """Parse ``SKILL.md`` text. The frontmatter must be a YAML mapping."""
    import yaml  # lazy: keeps the CLI's start-up light

    yaml_text, body, body_line = split_frontmatter(text, source)
    try:
        data = yaml.safe_load(yaml_text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 2}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise InvalidSkillFrontmatter(
            source=source, reason=f"the frontmatter is not valid YAML{where}: {problem}"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidSkillFrontmatter(
            source=source, reason="the frontmatter must be a YAML mapping of keys to values"
        )
    return SkillDocument({str(k): v for k, v in data.items()}, body, body_line, source)


def read_skill_md(path: Path) -> SkillDocument:
    """Read and parse a ``SKILL.md`` file (UTF-8)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidSkillFrontmatter(source=path, reason=f"not UTF-8 ({exc.reason})") from None
    return parse_skill_md(text, str(path))


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
    import yaml

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
