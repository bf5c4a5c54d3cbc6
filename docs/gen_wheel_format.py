"""Generate docs/wheel-format.md from the one definition of the wheel contract
(agenttools_runtime/wheel/manifest.py and wheel/layout.py) and what each of its keys means
(``fields``: tests/wheel/test_manifest.py fails when a key the writer writes is not there).

    python docs/gen_wheel_format.py          # rewrite docs/wheel-format.md
    python docs/gen_wheel_format.py --check  # exit 1 if it is out of date

tests/wheel/test_manifest.py fails when the committed page differs from this output.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "wheel-format.md"


def example() -> bytes:
    from agenttools_runtime.wheel.manifest import (
        BundleEntry,
        ServerEntry,
        SkillEntry,
        WheelManifest,
    )

    digest = "<sha256>"
    return WheelManifest(
        distribution="weather-tools",
        version="1.2.0",
        root="skills",
        source_root="/abs/project/dir",
        bundles=(
            BundleEntry(
                name="weather-tools",
                implicit=False,
                description="Weather tools for agents",
                mcp_servers=("weather",),
                skills=("weather-report", "forecast-help", "other-dist/some-skill"),
                marker="sys_platform != 'win32'",
            ),
        ),
        servers={
            "weather": ServerEntry(
                "weather",
                description="Weather lookups",
                module="weather_tools.server",
                env={"WEATHER_UNITS": "metric"},
            )
        },
        skills={
            "weather-report": SkillEntry(
                name="weather-report",
                description="Report the weather.",
                files={"SKILL.md": digest, "scripts/report.py": digest},
                executable=("scripts/report.py",),
                path="skills/weather-report",
            ),
            "forecast-help": SkillEntry(
                name="forecast-help",
                description="How to read a forecast.",
                kind="inline",
                files={"SKILL.md": digest},
            ),
        },
    ).to_bytes()


# How the manifest changes between agenttools versions (the page quotes it).
EVOLUTION_RULE = (
    "A reader ignores a key it does not know, at every level (a later agenttools may add "
    "optional keys that an earlier one can do without); a key it knows must have the type "
    "documented here, or the manifest is refused. A change that an earlier reader would "
    "misread (a key whose absence or new meaning changes what gets deployed, a type that "
    "changes) raises `schema` instead, and a reader refuses a manifest whose `schema` is "
    'higher than the one it reads, with `ManifestSchemaTooNew` ("built by a newer '
    'agenttools"), rather than guess. A reader of schema N reads every schema from 1 to N.'
)


def fields() -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Each object of the manifest -> its (key, type, meaning); agenttools_runtime/wheel/
    manifest.py's parse and to_json implement them, tests/wheel/test_manifest.py holds them
    together. A server's keys, types and meaning are the schema's (schema.SERVER)."""
    from agenttools_runtime import schema
    from agenttools_runtime.wheel.manifest import MANIFEST_KEYS, SCHEMA_VERSION

    return {
        "manifest": (
            (
                "schema",
                "integer",
                "`1`, or `2` when a server declares settings (the lowest "
                "that carries the manifest, so wheels without settings stay readable by "
                f"agenttools of schema 1); this agenttools reads 1 to {SCHEMA_VERSION}. A reader "
                'refuses a higher schema (`ManifestSchemaTooNew`: "built by a newer agenttools"); '
                "see the evolution rule.",
            ),
            (
                "distribution",
                "string",
                "`[project].name` as written (a PEP 508 name); compare "
                "after PEP 503 normalization.",
            ),
            ("version", "string", "the distribution's version."),
            ("root", "string, optional", "`[tool.agenttools].root`."),
            (
                "source-root",
                "string, optional",
                "only in editable installs: the absolute project "
                "directory. A directory skill's live files are `<source-root>/<path>`.",
            ),
            (
                "bundles",
                "list of bundles",
                "in declaration order. Without "
                '`[[tool.agenttools.bundles]]`, one bundle with `"implicit": true`, named after the '
                "normalized distribution name, holding every server (table order) and skill (table "
                "order).",
            ),
            (
                "mcp-servers",
                "table of servers",
                "server name (non-blank, no `/`) → its "
                "`[tool.agenttools.mcp-servers.<name>]` table as written (the keys given, no "
                "defaults filled in).",
            ),
            (
                "skills",
                "table of skills",
                "skill name (the Agent Skills rule: 1–64 of `a-z`, "
                "`0-9` and single inner hyphens) → the skill.",
            ),
        ),
        "bundle": (
            ("name", "string", "the bundle name (non-blank, no `/`)."),
            ("implicit", "boolean", "true for the one bundle made when none is declared."),
            (
                "mcp-servers",
                "list of strings",
                "server references: `name` (this distribution's) or `dist/name`.",
            ),
            (
                "skills",
                "list of strings",
                "skill references: a skill name, or `dist/skill-name` for another distribution's.",
            ),
            ("description", "string, optional", "present only when given."),
            (
                "marker",
                "string, optional",
                "a PEP 508 environment marker; the bundle is offered "
                "only where it holds. Present only when given.",
            ),
        ),
        "skill": (
            ("description", "string", "the skill's description."),
            ("kind", "string", "`directory` or `inline` (a generated `SKILL.md`)."),
            (
                "path",
                "string, optional",
                "directory kind only: the project-relative source "
                "directory (relative, never leaving the project).",
            ),
            (
                "files",
                "table of strings",
                "every `/`-separated relative path the wheel ships "
                "(inside the skill directory: no `..`, no absolute path, no empty segment) → its "
                "SHA-256.",
            ),
            (
                "executable",
                "list of strings",
                "the files an install makes executable: any "
                "execute bit in the source, or a first line starting with `#!` (always present, "
                "sorted).",
            ),
        ),
        "server": tuple(
            (
                key.name,
                schema.KIND_TEXT[key.kind]
                + (" (" + " / ".join(f"`{c}`" for c in key.choices) + ")" if key.choices else ""),
                key.doc,
            )
            for key in MANIFEST_KEYS
        ),
    }


def generate() -> str:
    from agenttools_runtime.wheel import layout
    from agenttools_runtime.wheel.manifest import MAX_DEPTH, SCHEMA_VERSION

    lines = [
        "# What the build hook puts into a wheel",
        "",
        "<!-- generated by docs/gen_wheel_format.py from agenttools_runtime/wheel/; "
        "do not edit -->",
        "",
        "The agenttools hatchling hook (through hatchling's `extra_metadata` build data), the",
        "wrapping backend `agenttools_hook.backend` and `agenttools bundle` (both through",
        "`agenttools_runtime/wheel/archive.py`, with a `RECORD` line for each file) write the",
        "same files, taken from `agenttools_runtime/wheel/contents.py`, into",
        "",
        "```",
        f"<name>-<version>.dist-info/{layout.AGENTTOOLS_DIR}/",
        f"    {layout.MANIFEST}",
        f"    {layout.skill_file('<skill>', '<relative path>')}"
        "      every file of every skill of this distribution",
        "```",
        "",
        "pip installs these files into the installed `.dist-info` and lists them in `RECORD` (so",
        "uninstalling removes them). Discovery reads only the manifest; nothing is imported.",
        "The layout is `agenttools_runtime/wheel/layout.py`; the manifest's one writer "
        "(`WheelManifest.to_bytes`,",
        "used by the build plan) and one reader (`parse`, used by discovery) are",
        "`agenttools_runtime/wheel/manifest.py`.",
        "",
        f"## `{layout.MANIFEST}` (schema {SCHEMA_VERSION})",
        "",
        "```json",
        example().decode().rstrip("\n"),
        "```",
        "",
    ]
    titles = {
        "manifest": "The manifest",
        "bundle": "A bundle",
        "skill": "A skill",
        "server": "A server (the keys of `[tool.agenttools.mcp-servers.<name>]`)",
    }
    for kind, rows in fields().items():
        lines += [f"### {titles[kind]}", "", "| key | type | meaning |", "|---|---|---|"]
        lines += [f"| `{key}` | {type_} | {meaning} |" for key, type_, meaning in rows]
        lines.append("")
    lines += [
        "## Reading rules",
        "",
        "Every key is read with the type this page gives it, by the same definitions the build",
        "hook checks `[tool.agenttools]` with (`agenttools_runtime/schema.py`: a server's "
        "table also",
        "needs exactly one launch key, a dotted `module`, an http(s) `url`, and `transport`, "
        "`headers`,",
        "`args` and `env` that fit the kind of server). A key of the wrong type is one "
        "`InvalidManifest`",
        "naming the distribution, the server (or skill, or bundle) and the key: `server "
        '"weather": "args"',
        "must be an array of strings (got string)`. Nothing is coerced: a string is never "
        "split into",
        "arguments, a number never written as a URL.",
        "",
        "A manifest is used only when it passes the rules the build hook applies: the naming "
        "rules of",
        "`agenttools_runtime/names.py` (skill names, server and bundle names, references, the "
        "distribution",
        "name), skill file paths that stay inside their skill, and a nesting depth of at most",
        f"{MAX_DEPTH} levels. Anything else makes the distribution *listed with a problem* "
        "(`agenttools list`",
        "shows it, nothing uses it), never a crash and never a deploy; the other distributions are",
        "unaffected. The wheel's copy of a skill is read file by file, only the files the "
        "manifest lists,",
        "only as regular files reached without a symbolic link, and only when each file's "
        "SHA-256 matches.",
        "",
        "Hashes are `agenttools_runtime.skills.hashing.hash_bytes`: SHA-256 of the file's "
        "bytes, with",
        "`\\r\\n` turned into `\\n` for files without a NUL byte (so CRLF checkouts hash the "
        "same). Junk",
        "(`.DS_Store`, `Thumbs.db`, `desktop.ini`, `__pycache__`) and version-control "
        "directories are",
        "never shipped.",
        "",
        'The file is written as `json.dumps(manifest, indent=2, sort_keys=True) + "\\n"` '
        "(UTF-8), so",
        "identical sources give byte-identical manifests, whether the wheel is built from the "
        "source",
        "tree or from the sdist.",
        "",
        "## Evolution",
        "",
        *textwrap.wrap(EVOLUTION_RULE, 95),
        "",
        "An inline skill's `SKILL.md` is generated by",
        "`agenttools_runtime.skills.skill_md.render_skill_md` (deterministic: the spec's key "
        "order,",
        "`\\n` line endings, one final newline).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    from gen_reference import write_or_check  # this folder is on sys.path when run

    return write_or_check(PAGE, generate(), "docs/gen_wheel_format.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
