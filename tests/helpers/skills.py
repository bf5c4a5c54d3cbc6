"""Small builders for skill-directory tests: real folders on disk, read back as trees."""

from __future__ import annotations

from pathlib import Path

SKILL_MD = "---\nname: {name}\ndescription: {description}\n---\n\nDo the thing.\n"


def make_skill(
    parent: Path,
    name: str = "demo-skill",
    description: str = "Demo skill.",
    files: dict[str, str | bytes] | None = None,
) -> Path:
    """Create ``parent/name`` with a valid ``SKILL.md`` plus *files* (relative path → content)."""
    directory = parent / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(SKILL_MD.format(name=name, description=description))
    for rel, content in (files or {}).items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return directory


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under *directory* (links followed): relative posix path → bytes."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def backups(root: Path) -> list[Path]:
    """Leftover ``.agenttools-backup-*`` entries next to a skills root."""
    return sorted(root.parent.glob(".agenttools-backup-*"))
