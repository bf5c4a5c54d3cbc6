"""Validation of [tool.agenttools] and skills (agenttools_runtime/project/): the samples, the
broken sample's expected report, SKILL.md rules with skills-ref's wording, lines, manifests."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from agenttools_runtime.project import (
    CODES,
    Project,
    ProjectInvalid,
    build_manifest,
    check_skill_md,
    errors_of,
    load_project,
    validate_project,
)
from agenttools_runtime.toml_text import TomlLines
from agenttools_runtime.wheel import manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_packages"
BROKEN = SAMPLES / "broken"
BROKEN_PROJECTS = sorted(p.parent for p in BROKEN.rglob("expected.txt"))

# Problems no committed fixture can show (they need an unreadable file or no project, or a
# file of 100,000 values: test_a_file_of_too_many_values_is_not_called_too_deep writes one).
NOT_IN_FIXTURES = {"NoProject", "UnreadableProject", "NothingDeclared", "TooManyValues"}


@pytest.mark.parametrize("name", ["weather-tools", "multi-bundle", "skills-only", "keyed-forecast"])
def test_samples_are_valid(name: str) -> None:
    assert validate_project(SAMPLES / name) == []


@pytest.mark.parametrize("project", BROKEN_PROJECTS, ids=lambda p: p.name)
def test_broken_reports_exactly_what_expected_txt_says(project: Path) -> None:
    expected = (project / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert [p.format(project) for p in validate_project(project)] == expected


def test_every_problem_code_is_in_a_broken_fixture() -> None:
    seen = set()
    for project in BROKEN_PROJECTS:
        for line in (project / "expected.txt").read_text(encoding="utf-8").splitlines():
            match = re.match(r"^[^:]+(?::\d+)?: (?:warning: )?([A-Za-z]+): ", line)
            assert match, line
            seen.add(match.group(1))
    assert set(CODES) - seen == NOT_IN_FIXTURES
    assert seen <= set(CODES)


def test_lines_point_at_the_key(tmp_path: Path) -> None:
    project = write_project(
        tmp_path,
        """
        [tool.agenttools.mcp-servers.weather]
        module = "nowhere.server"

        [[tool.agenttools.bundles]]
        name = "one"
        skills = ["x_y"]
        """,
    )
    problems = {p.code: p for p in validate_project(project)}
    text = (project / "pyproject.toml").read_text().splitlines()
    assert text[problems["UnknownModule"].line - 1].startswith("module =")
    assert text[problems["InvalidSkillName"].line - 1].startswith("skills =")


def test_every_problem_is_reported_not_only_the_first(tmp_path: Path) -> None:
    project = write_project(
        tmp_path,
        """
        [tool.agenttools]
        rot = "skills"

        [tool.agenttools.mcp-servers.a]
        url = "file:///etc/passwd"

        [tool.agenttools.skills.b]
        """,
    )
    codes = sorted(p.code for p in errors_of(validate_project(project)))
    assert codes == ["InvalidURL", "MissingDefinitionFile", "UnknownKey"]


def test_build_manifest_raises_one_error_listing_every_problem(tmp_path: Path) -> None:
    project = write_project(
        tmp_path,
        """
        [tool.agenttools.mcp-servers.a]
        script = "not-a-script"

        [tool.agenttools.mcp-servers.b]
        """,
    )
    with pytest.raises(ProjectInvalid) as caught:
        build_manifest(loaded_project(project), "1.0")
    lines = str(caught.value).splitlines()
    assert lines[0] == "[tool.agenttools] has 2 error(s):"
    assert any("UnknownScript" in line for line in lines)
    assert any("InvalidServer" in line for line in lines)


def test_module_found_in_src_and_via_main(tmp_path: Path) -> None:
    project = write_project(
        tmp_path,
        """
        [tool.agenttools.mcp-servers.a]
        module = "pkg.server"

        [tool.agenttools.mcp-servers.b]
        module = "tool"
        """,
    )
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "server.py").write_text("")
    (project / "tool").mkdir()
    (project / "tool" / "__main__.py").write_text("")
    assert validate_project(project) == []


@pytest.mark.parametrize(
    ("sources", "moved"),
    [
        ('{"" = "pkg"}', "pkg/agenttools/manifest.json"),
        ('{"agenttools" = ""}', "manifest.json"),
        ('{"src" = ""}', None),
        ('["src"]', None),
        ('{"" = ""}', None),
    ],
)
def test_wheel_sources_that_would_move_the_agenttools_files(
    tmp_path: Path, sources: str, moved: str | None
) -> None:
    project = write_project(tmp_path, "[tool.agenttools.skills.s]\n")
    (project / "skills" / "s").mkdir(parents=True)
    (project / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    with open(project / "pyproject.toml", "a") as handle:
        handle.write(f"[tool.hatch.build.targets.wheel]\nsources = {sources}\n")
    problems = validate_project(project)
    if moved is None:
        assert problems == []
    else:
        (problem,) = problems
        assert (problem.code, problem.line) == ("SkillFileNotInWheel", 12)
        assert f"(agenttools/manifest.json -> {moved})" in problem.message


def test_disjoint_markers_may_share_a_bundle_name(tmp_path: Path) -> None:
    base = """
        [tool.agenttools.mcp-servers.a]
        command = "uvx"

        [[tool.agenttools.bundles]]
        name = "dev"
        mcp-servers = ["a"]
        marker = "{first}"

        [[tool.agenttools.bundles]]
        name = "dev"
        mcp-servers = ["a"]
        marker = "{second}"
        """
    disjoint = write_project(
        tmp_path / "disjoint",
        base.format(first="sys_platform == 'win32'", second="os_name == 'posix'"),
    )
    assert validate_project(disjoint) == []
    overlapping = write_project(
        tmp_path / "overlap",
        base.format(first="python_version >= '3.9'", second="sys_platform == 'linux'"),
    )
    assert [p.code for p in validate_project(overlapping)] == ["DuplicateBundleName"]


def test_path_argument_may_be_any_file_of_the_project() -> None:
    by_dir = validate_project(BROKEN)
    by_file = validate_project(BROKEN / "skills" / "colon" / "SKILL.md")
    assert by_file == by_dir


def test_manifest_is_deterministic() -> None:
    one = build_manifest(loaded_project(SAMPLES / "multi-bundle"), "0.3.0")
    two = build_manifest(loaded_project(SAMPLES / "multi-bundle"), "0.3.0")
    assert one.manifest.to_bytes() == two.manifest.to_bytes()
    assert one.manifest.to_bytes().endswith(b"}\n")


def test_symlink_inside_the_skill_is_fine(tmp_path: Path) -> None:
    project = write_project(tmp_path, "[tool.agenttools.skills.linked]\n")
    skill = project / "skills" / "linked"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: linked\ndescription: Has a link.\n---\nBody\n")
    (skill / "real.md").write_text("real\n")
    (skill / "alias.md").symlink_to("real.md")
    assert validate_project(project) == []
    plan = build_manifest(loaded_project(project), "1")
    assert sorted(plan.manifest.skills["linked"].files) == ["SKILL.md", "alias.md", "real.md"]


def test_inline_skill_md_is_the_runtimes_own_generation(tmp_path: Path) -> None:
    """The wheel's generated SKILL.md is byte-identical to what ``skills install`` writes for
    the same inline definition: one generator, so a deploy never looks like a modification."""
    from agenttools_runtime.skills.source import to_source

    project = write_project(
        tmp_path,
        r"""
        [tool.agenttools.skills.full]
        description = "Every optional key: values of several types."
        body = "Line one.\r\nLine two.\n\n"
        license = "MIT"
        compatibility = "Python 3.10+"
        allowed-tools = ["Read", "Bash(python:*)"]
        metadata = { version = 2, beta = true, author = "Ada" }
        argument-hint = "[city]"
        """,
    )
    plan = build_manifest(loaded_project(project), "1")
    generated = plan.files["skills/full/SKILL.md"]
    assert isinstance(generated, str)
    runtime = to_source(
        {
            "name": "full",
            "description": "Every optional key: values of several types.",
            "body": "Line one.\r\nLine two.\n\n",
            "license": "MIT",
            "compatibility": "Python 3.10+",
            "allowed-tools": ["Read", "Bash(python:*)"],
            "metadata": {"version": 2, "beta": True, "author": "Ada"},
            "argument-hint": "[city]",
        }
    )
    assert generated.encode() == runtime.files["SKILL.md"].encode()  # type: ignore[union-attr]
    assert plan.manifest.skills["full"].files == dict(runtime.manifest)


def test_inline_skill_with_dashes_in_its_frontmatter_is_refused(tmp_path: Path) -> None:
    """skills-ref splits SKILL.md on the first two '---' anywhere: a generated frontmatter
    holding one would be cut short, as a hand-written one is."""
    project = write_project(
        tmp_path,
        """
        [tool.agenttools.skills.dashed]
        description = "Before --- after."
        body = "A body --- may hold dashes."
        metadata = { note = "x---y" }
        """,
    )
    problems = [(p.code, p.line, p.message.split(":")[0]) for p in validate_project(project)]
    assert problems == [
        ("SkillFrontmatterDashes", 12, "tool.agenttools.skills.dashed.description"),
        ("SkillFrontmatterDashes", 14, "tool.agenttools.skills.dashed.metadata"),
    ]


def test_directory_skill_manifest_is_the_runtimes_source(tmp_path: Path) -> None:
    """Hashes (CRLF-normalized) and executable files as the runtime computes them: a script
    with a shebang but no mode bits, and one executable by group only, are both listed."""
    import os

    from agenttools_runtime.skills.source import to_source

    project = write_project(tmp_path, "[tool.agenttools.skills.tool]\n")
    skill = project / "skills" / "tool"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(b"---\r\nname: tool\r\ndescription: CRLF.\r\n---\r\nBody\r\n")
    (skill / "scripts" / "shebang.py").write_text("#!/usr/bin/env python3\n")
    (skill / "scripts" / "group.sh").write_text("echo\n")
    os.chmod(skill / "scripts" / "shebang.py", 0o644)
    os.chmod(skill / "scripts" / "group.sh", 0o654)
    (skill / "plain.md").write_text("plain\n")
    os.chmod(skill / "plain.md", 0o644)
    entry = build_manifest(loaded_project(project), "1").manifest.skills["tool"]
    runtime = to_source(skill)
    assert entry.files == dict(runtime.manifest)
    assert (
        list(entry.executable)
        == sorted(runtime.executable)
        == [
            "scripts/group.sh",
            "scripts/shebang.py",
        ]
    )


def test_link_loop_inside_a_skill_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    project = write_project(tmp_path, "[tool.agenttools.skills.loopy]\n")
    skill = project / "skills" / "loopy"
    (skill / "sub").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: loopy\ndescription: Loops.\n---\n")
    (skill / "sub" / "up").symlink_to("..", target_is_directory=True)
    (problem,) = validate_project(project)
    assert (problem.code, problem.path) == ("UnsafeLink", skill / "sub" / "up")
    assert "leads back to skills/loopy, which contains it" in problem.message


def test_a_cycle_of_links_inside_a_skill_is_a_broken_link_not_a_crash(tmp_path: Path) -> None:
    project = write_project(tmp_path, "[tool.agenttools.skills.cycle]\n")
    skill = project / "skills" / "cycle"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: cycle\ndescription: Cycles.\n---\n")
    (skill / "one").symlink_to("two")
    (skill / "two").symlink_to("one")
    problems = [(p.code, p.path) for p in validate_project(project)]
    assert problems == [("BrokenLink", skill / "one"), ("BrokenLink", skill / "two")]


def test_what_a_build_leaves_out_is_not_reported_as_left_out_of_the_sdist(tmp_path: Path) -> None:
    """Junk and version-control metadata never reach a wheel whatever .gitignore says: only
    the skill's own files ignored by it are problems."""
    import shutil

    project = tmp_path / "sdist-gap"
    shutil.copytree(BROKEN / "sdist-gap", project)
    (project / ".gitignore").write_text("*.log\n.DS_Store\n__pycache__/\nconfig\n")
    notes = project / "skills" / "notes"
    for rel in (".DS_Store", "scripts/__pycache__/x.pyc", ".git/config", "scripts/run.py"):
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text("x")
    ignored = [p.path for p in validate_project(project) if p.code == "SkillFileNotInWheel"]
    assert ignored == [notes / "debug.log"]


def test_gitignore_that_is_not_utf8_is_still_read(tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "sdist-gap"
    shutil.copytree(BROKEN / "sdist-gap", project)
    (project / ".gitignore").write_bytes(b"# caf\xe9 (Latin-1)\n*.log\n")
    codes = [p.code for p in validate_project(project)]
    assert codes == ["HookWheelOnly", "SkillFileNotInWheel"]  # as with a UTF-8 .gitignore


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ('project = "x"\n[tool.agenttools.mcp-servers.a]\nscript = "s"\n', None),
        ('[project]\nname = "p"\nscripts = "x"\n[tool.agenttools.mcp-servers.a]\nscript = "s"\n', None),
        ('[project]\nname = "p"\n[tool.agenttools.mcp-servers.a]\nurl = "http://[::1"\n', ["InvalidURL"]),
    ],
)  # fmt: skip
def test_odd_values_are_problems_not_crashes(
    tmp_path: Path, text: str, codes: list[str] | None
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.hatch.build.hooks.agenttools]\n" + text)
    found = [p.code for p in errors_of(validate_project(tmp_path))]
    assert set(codes or ["UnknownScript"]) <= set(found)


def test_a_file_of_too_many_values_is_not_called_too_deep(tmp_path: Path) -> None:
    """Bug: every value beyond ``limits.shape_problem`` was "nested more than 100 levels
    deep", so was a flat array of 100,000 values (a TOML file has no aliases to expand)."""
    (tmp_path / "pyproject.toml").write_text("a = [" + "1," * 100_000 + "]\n")
    assert [p.format(tmp_path) for p in validate_project(tmp_path)] == [
        "pyproject.toml: TooManyValues: pyproject.toml holds more than 100,000 values; "
        "agenttools reads no further"
    ]


# -- SKILL.md --------------------------------------------------------------------------------


def skill_problems(tmp_path: Path, text: str | bytes, directory: str = "my-skill") -> list[str]:
    skill = tmp_path / directory
    skill.mkdir(parents=True, exist_ok=True)
    path = skill / "SKILL.md"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8", newline="")
    else:
        path.write_bytes(text)
    problems: list = []
    check_skill_md(path, None, problems)
    return [p.message for p in problems]


def test_skills_ref_name_messages_all_at_once(tmp_path: Path) -> None:
    messages = skill_problems(
        tmp_path, "---\nname: Bad--Name-\ndescription: d\nextra: 1\n---\n", "Bad--Name-"
    )
    assert messages == [
        "Unexpected fields in frontmatter: extra. Only ['allowed-tools', 'compatibility', "
        "'description', 'license', 'metadata', 'name'] are allowed.",
        "Skill name 'Bad--Name-' must be lowercase",
        "Skill name cannot start or end with a hyphen",
        "Skill name cannot contain consecutive hyphens",
    ]


def test_crlf_skill_md_is_accepted(tmp_path: Path) -> None:
    text = "---\r\nname: my-skill\r\ndescription: CRLF line endings.\r\n---\r\nBody\r\n"
    assert skill_problems(tmp_path, text) == []


def test_description_limits(tmp_path: Path) -> None:
    long = "x" * 1025
    assert skill_problems(tmp_path, f"---\nname: my-skill\ndescription: {long}\n---\n") == [
        "Description exceeds 1024 character limit (1025 chars)"
    ]
    assert skill_problems(tmp_path, "---\nname: my-skill\n---\n") == [
        "Missing required field in frontmatter: description"
    ]


def test_lowercase_unicode_name_fails_the_ascii_rule(tmp_path: Path) -> None:
    messages = skill_problems(tmp_path, "---\nname: мой-навык\ndescription: d\n---\n", "мой-навык")
    assert messages == [
        "Skill name 'мой-навык' contains non-ASCII characters; the Agent Skills spec allows "
        "only a-z, 0-9 and hyphens, and several clients reject other letters"
    ]


@pytest.mark.parametrize("written", ["ｍｙ-ｓｋｉｌｌ", '" my-skill"'])
def test_name_must_be_written_as_the_spec_says(tmp_path: Path, written: str) -> None:
    """skills-ref strips and NFKC-normalizes before checking; clients and the runtime do not."""
    messages = skill_problems(tmp_path, f"---\nname: {written}\ndescription: d\n---\n")
    assert len(messages) == 1
    assert messages[0].endswith(
        "must be written exactly as 'my-skill' (no surrounding spaces, no full-width or "
        "other compatibility characters)"
    )


def test_every_invalid_skill_name_is_reported(tmp_path: Path) -> None:
    """A declared name the runtime refuses is never silently skipped."""
    from agenttools_runtime.names import is_skill_name, skill_name_problems

    names = ["ｆｏｏ", " foo", "foo ", "x²", "ǅa", "ß", "a_b", "-a", "a--b", "A", "a" * 65, "ok-1"]
    for name in names:
        assert bool(skill_name_problems(name)) == (not is_skill_name(name)), name
    project = write_project(
        tmp_path, '[tool.agenttools.skills."ｆｏｏ"]\ndescription = "d"\nbody = "b"\n'
    )
    (problem,) = validate_project(project)
    assert (problem.code, problem.line) == ("InvalidSkillName", 10)


def test_unquoted_colon_suggests_the_fix(tmp_path: Path) -> None:
    (message,) = skill_problems(
        tmp_path, "---\nname: my-skill\ndescription: Use when: always\n---\n"
    )
    assert message.startswith("Invalid YAML in frontmatter: mapping values are not allowed here")
    assert 'quote it (description: "...") or use a folded block (description: >-)' in message


def test_complex_yaml_key_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    text = "---\n? [a, b]\n: x\nname: my-skill\ndescription: d\n---\n"
    assert skill_problems(tmp_path, text) == [
        "Invalid YAML in frontmatter: a key that is not a string (['a', 'b'])"
    ]


def test_client_extension_keys_are_warnings(tmp_path: Path) -> None:
    skill = tmp_path / "my-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: my-skill\ndescription: d\nargument-hint: file\ndisable-model-invocation: true\n---\n"
    )
    problems: list = []
    check_skill_md(skill / "SKILL.md", "my-skill", problems)
    assert {p.severity for p in problems} == {"warning"}
    assert [p.line for p in problems] == [4, 5]


# -- TOML lines ------------------------------------------------------------------------------


def test_toml_lines() -> None:
    lines = TomlLines(
        '[tool.agenttools]\nroot = "s"\ndescription = """\nkey = 1\n"""\n'
        '[tool.agenttools.mcp-servers."a.b"]\ncommand = "x"\n'
        "[[tool.agenttools.bundles]]\nname = 'one'\n[[tool.agenttools.bundles]]\nname = 'two'\n"
        "[tool.other]\nagenttools.x = 1\n"
    )
    assert lines.line(("tool", "agenttools", "root")) == 2
    assert lines.line(("key",)) is None  # inside a multi-line string
    assert lines.line(("tool", "agenttools", "mcp-servers", "a.b", "command")) == 7
    assert lines.line(("tool", "agenttools", "mcp-servers", "a.b", "args")) == 6
    assert lines.line(("tool", "agenttools", "bundles", 1, "name")) == 11
    assert lines.line(("tool", "agenttools", "bundles", 0)) == 8
    assert lines.line(("tool", "other", "agenttools", "x")) == 13


def test_toml_lines_find_quoted_keys_as_parsed() -> None:
    """A quoted key's escapes are decoded, as the parsed data has them."""
    text = '[tool.agenttools.mcp-servers."w\\u0065ather"]\ncommand = "x"\n'
    lines = TomlLines(text)
    assert list(tomllib.loads(text)["tool"]["agenttools"]["mcp-servers"]) == ["weather"]
    assert lines.line(("tool", "agenttools", "mcp-servers", "weather", "command")) == 2


# -- the wrapping backend (agenttools_hook.backend) ------------------------------------------


@pytest.mark.parametrize(
    "key", ["setuptools", "uv-build", "poetry-core", "flit-core", "pdm-backend"]
)
def test_a_project_of_each_wrapped_backend_is_valid(key: str, tmp_path: Path) -> None:
    from tests.hook.backends import BACKENDS, make_project

    project = make_project(tmp_path / key, BACKENDS[key])
    assert validate_project(project) == []


def test_a_gitignored_skill_file_is_fine_with_the_wrapping_backend(tmp_path: Path) -> None:
    """The wrapper adds every skill file to the sdist itself, .gitignore or not."""
    from tests.hook.backends import BACKENDS, make_project

    project = make_project(tmp_path / "p", BACKENDS["flit-core"])
    (project / ".gitignore").write_text("*.sh\n")
    assert validate_project(project) == []


# -- project-relative paths: validation refuses what the manifest reader would ---------------

# a file name only POSIX can hold (on Windows a backslash separates, and "\x" is the drive's root)
POSIX_NAME = pytest.mark.skipif(sys.platform == "win32", reason="a file name with a backslash")
TINY_SKILL = "---\nname: tiny\ndescription: Tiny.\n---\n\nBody.\n"


@pytest.mark.parametrize(
    "root",
    [
        pytest.param("\\skills", marks=POSIX_NAME, id="backslash-leading"),
        pytest.param("skills\\..\\skills", marks=POSIX_NAME, id="backslash-dotdot"),
        pytest.param("/skills", id="slash-leading"),
        pytest.param("../skills", id="dotdot"),
    ],
)
def test_a_root_the_manifest_reader_refuses_fails_validate_at_the_root_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], root: str
) -> None:
    """Before, a root such as "\\skills" (on POSIX a directory of the project) passed: the
    wheel built, and every deploy of it failed reading the manifest (its skill's path)."""
    from agenttools_runtime.cli import main

    project = write_project(
        tmp_path / "p",
        f"""
        [tool.agenttools]
        root = '{root}'

        [tool.agenttools.skills.tiny]
        """,
    )
    if not os.path.isabs(root):  # (nothing is made outside the temporary directory)
        (project / root / "tiny").mkdir(parents=True)
        (project / root / "tiny" / "SKILL.md").write_text(TINY_SKILL)
    lines = (project / "pyproject.toml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith("root ="))
    expected = (
        f'pyproject.toml:{line}: PathOutsideProject: tool.agenttools.root: "{root}" must be a '
        "directory inside the project"
    )
    assert any(p.format(project).startswith(expected) for p in validate_project(project))
    assert main(["validate", str(project)]) == 1
    out = capsys.readouterr().out
    assert expected in out, out
    with pytest.raises(ProjectInvalid, match=re.escape(expected.split(": ", 1)[1])):
        build_manifest(loaded_project(project), "1.0")


@pytest.mark.parametrize(
    "root",
    [
        "skills",
        "./skills",
        "other/../skills",
        pytest.param("sk\\ills", marks=POSIX_NAME, id="inner-backslash"),
        "{project}/skills",
    ],
)
def test_a_root_validation_accepts_gives_a_manifest_the_reader_accepts(
    tmp_path: Path, root: str
) -> None:
    project = tmp_path / "p"
    root = root.format(project=project.as_posix())
    write_project(
        project,
        f"""
        [tool.agenttools]
        root = '{root}'

        [tool.agenttools.skills.tiny]
        """,
    )
    (project / "other").mkdir()
    (project / root / "tiny").mkdir(parents=True)
    (project / root / "tiny" / "SKILL.md").write_text(TINY_SKILL)
    assert validate_project(project) == []
    built = build_manifest(loaded_project(project), "1.0").manifest
    read = manifest.parse(built.to_bytes(), "demo")
    assert (
        read.skills["tiny"].path
        == Path(os.path.relpath(project / root / "tiny", project)).as_posix()
    )


@pytest.mark.parametrize(
    "name",
    [pytest.param("a\\b.md", id="backslash"), pytest.param("c:notes.md", id="drive")],
)
@POSIX_NAME
def test_a_skill_file_name_the_readers_refuse_is_a_problem_at_the_file(
    tmp_path: Path, name: str
) -> None:
    """Before, it validated and built; reading the wheel's manifest refused a backslash, and
    installing the skill refused a drive ("c:"): every deploy failed."""
    project = write_project(tmp_path / "p", "[tool.agenttools.skills.tiny]\n")
    (project / "skills" / "tiny").mkdir(parents=True)
    (project / "skills" / "tiny" / "SKILL.md").write_text(TINY_SKILL)
    (project / "skills" / "tiny" / name).write_text("Notes.\n")
    expected = (
        f"skills/tiny/{name}: SkillFileNotInWheel: skills/tiny/{name} cannot be put into a wheel: "
    )
    assert [p.format(project)[: len(expected)] for p in validate_project(project)] == [expected]
    with pytest.raises(ProjectInvalid, match=re.escape(expected)):
        build_manifest(loaded_project(project), "1.0")


# -- helpers ---------------------------------------------------------------------------------


def loaded_project(root: Path) -> Project:
    project = load_project(root)
    assert isinstance(project, Project), project
    return project


def write_project(directory: Path, agenttools: str) -> Path:
    import textwrap

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [build-system]
            requires = ["hatchling", "agenttools"]
            build-backend = "hatchling.build"

            [project]
            name = "demo"
            version = "1.0"

            [tool.hatch.build.hooks.agenttools]
            """
        )
        + textwrap.dedent(agenttools)
    )
    return directory
