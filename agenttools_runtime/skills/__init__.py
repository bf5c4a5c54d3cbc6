"""Agent Skills: names, SKILL.md frontmatter, hashing, sources, directory writes, install."""
