"""The listing of every ``skill://`` skill, grouped by provider in priority order: the scheme
document's "Available skills" text and its JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agenttools_runtime.skilluri.providers.base import ProvidedSkill


@dataclass(frozen=True, slots=True)
class ProviderListing:
    name: str
    kind: str
    skills: tuple[ProvidedSkill, ...]
    error: str | None = None


@dataclass(frozen=True, slots=True)
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
