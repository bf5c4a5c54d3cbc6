"""Validation of a project's ``[tool.agenttools]`` and its skills, and the manifest the build
hook writes into the wheel. One library for ``agenttools validate`` and ``agenttools_hook``.

Every problem is collected (never only the first), each with the file, the line where the
TOML or YAML gives one, a code (the spec's names where it has one: ``MissingDefinitionFile``,
``DuplicateBundleConfigKey`` …) and a sentence that starts with the key path it is about.
``SKILL.md`` checks use the reference validator's (``skills-ref``) rules and wording, plus the
portability checks it lacks.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from agenttools_runtime import limits, names, schema
from agenttools_runtime.errors import InvalidProject
from agenttools_runtime.skills import skill_md
from agenttools_runtime.skills.skill_md import SKILL_FILE
from agenttools_runtime.values import Value
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import BundleEntry, ServerEntry, SkillEntry, WheelManifest

# The build hook and the wrapping backend run this module in a new process for each build:
# what it needs of typing, dataclasses (with inspect) and difflib (suggestions only) is kept
# out of that start-up (benchmarks/hook.py).
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Literal

    from agenttools_runtime.skills.source import SkillSource

    Severity = Literal["error", "warning"]

KeyPath = tuple[str | int, ...]

PYPROJECT = "pyproject.toml"
DEFAULT_ROOT = "skills"
DEFAULT_BACKEND = "setuptools.build_meta:__legacy__"  # PEP 517's, without build-backend

# Keys clients read beyond the spec: accepted with a warning (peers.md §C.4).
CLIENT_EXTENSION_KEYS = schema.CLIENT_EXTENSION_KEYS
MISSING_CONFIG = (
    "the agenttools build hook is enabled but there is no [tool.agenttools] table, so nothing "
    "is bundled; add one declaring the skills and MCP servers to ship"
)


# Every problem code, its default severity and what it means (docs/reference.md lists them).
CODES: dict[str, tuple[Severity, str]] = {
    "NoProject": ("error", "no pyproject.toml at or above the path"),
    "UnreadableProject": ("error", "pyproject.toml cannot be read"),
    "InvalidTOML": ("error", "pyproject.toml is not valid TOML"),
    "NestingTooDeep": ("error", "pyproject.toml nests values more than 100 levels deep"),
    "MissingProjectName": ("error", "[project] has no name"),
    "MissingConfig": ("warning", "the hook is enabled but [tool.agenttools] is missing"),
    "HookNotEnabled": ("error", "[tool.agenttools] exists but the build hook is not enabled"),
    "HookWheelOnly": ("warning", "the hook is enabled for the wheel target only"),
    "BuildRequirementMissing": ("error", "build-system.requires lacks agenttools"),
    "UnsupportedBackend": ("error", "the build backend is not hatchling"),
    "MissingBackend": ("error", "agenttools_hook.backend without the backend it wraps"),
    "BackendDoesNotBundle": ("warning", "the build backend does not run agenttools"),
    "UnusedBackend": ("warning", "backend set while build-backend is not agenttools_hook.backend"),
    "UnknownKey": ("error", "a key the schema does not know (with a did-you-mean)"),
    "InvalidType": ("error", "a value of the wrong type"),
    "InvalidValue": ("error", "a value outside its choices"),
    "PathOutsideProject": ("error", "root or body-file leads outside the project"),
    "InvalidItemName": ("error", "a server, bundle or skill reference name that is not allowed"),
    "InvalidServer": ("error", "a server without exactly one launch key, or with keys that clash"),
    "InvalidModule": ("error", "module is not a dotted module path"),
    "UnknownModule": ("error", "module is not in the project's source tree"),
    "UnknownScript": ("error", "script is not a [project.scripts] entry"),
    "InvalidURL": ("error", "url is not http(s)"),
    "InvalidSkillName": ("error", "a skill name against the Agent Skills rules"),
    "InvalidSkillDefinition": ("error", "SKILL.md or an inline skill against the spec"),
    "SkillFrontmatterBOM": ("error", "SKILL.md starts with a byte order mark"),
    "SkillFrontmatterDashes": ("error", "a '---' inside the frontmatter"),
    "FlowStyle": ("warning", "YAML flow style, which skills-ref rejects"),
    "ClientExtensionKey": ("warning", "a client's frontmatter extension key"),
    "MissingDefinitionFile": ("error", "a declared skill with no SKILL.md and no inline form"),
    "DuplicateDefinitionFiles": ("error", "a skill defined inline and as a directory"),
    "MissingBodyFile": ("error", "body-file does not exist"),
    "UnsafeLink": ("error", "a symbolic link leaving its skill directory"),
    "BrokenLink": ("error", "a symbolic link to nothing"),
    "SkillFileNotInWheel": ("error", "a skill file that would not reach the wheel"),
    "UndeclaredSkill": ("warning", "a skill directory under root that nothing declares"),
    "UnknownServer": ("error", "a bundle lists a server that is not declared"),
    "DuplicateItem": ("warning", "a bundle lists an item twice"),
    "InvalidMarker": ("error", "a bundle marker that is not PEP 508"),
    "DuplicateBundleName": ("error", "two bundles of one name whose markers can both hold"),
    "AmbiguousBundleName": ("error", "a bundle named like a server it does not contain"),
    "DuplicateBundleConfigKey": ("error", "servers of one bundle with the same config key"),
    "EmptyBundle": ("warning", "a bundle with no servers and no skills"),
    "NothingDeclared": ("warning", "[tool.agenttools] declares nothing"),
}


class Problem(Value):
    """One finding. ``line`` is 1-based, or None when the file gives none."""

    __slots__ = ("code", "line", "message", "path", "severity")
    path: Path
    line: int | None
    code: str
    message: str
    severity: Severity

    def __init__(
        self, path: Path, line: int | None, code: str, message: str, severity: Severity = "error"
    ) -> None:
        super().__init__(path=path, line=line, code=code, message=message, severity=severity)

    def format(self, base: Path | None = None) -> str:
        """``path:line: code: message`` (warnings: ``path:line: warning: code: message``);
        *path* relative to *base* (default: the current directory) when it is inside it."""
        where = display_path(self.path, base)
        if self.line is not None:
            where += f":{self.line}"
        kind = "warning: " if self.severity == "warning" else ""
        return f"{where}: {kind}{self.code}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "line": self.line,
            "code": self.code,
            "message": self.message,
            "severity": self.severity,
        }


def display_path(path: Path, base: Path | None = None) -> str:
    base = Path.cwd() if base is None else base
    try:
        return Path(os.path.relpath(path, base)).as_posix() if _is_inside(path, base) else str(path)
    except ValueError:  # another drive on Windows
        return str(path)


def errors_of(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


class ProjectInvalid(InvalidProject):
    """The project has errors; ``str()`` lists every one, one per line."""

    message_tag = "InvalidProject"

    def __init__(self, problems: Sequence[Problem], base: Path | None = None) -> None:
        self.problems = list(problems)
        lines = [f"[tool.agenttools] has {len(errors_of(problems))} error(s):"]
        lines += [f"  {p.format(base)}" for p in problems]
        super().__init__(report="\n".join(lines), problems=[p.to_json() for p in problems])


# -- projects --------------------------------------------------------------------------------


class Project:
    """A project directory with its parsed ``pyproject.toml``."""

    def __init__(self, root: Path, data: dict[str, Any], lines: TomlLines) -> None:
        self.root = root
        self.data = data
        self.lines = lines

    @property
    def pyproject(self) -> Path:
        return self.root / PYPROJECT

    @property
    def name(self) -> str | None:
        name = _dig(self.data, "project", "name")
        return name if isinstance(name, str) else None

    @property
    def config(self) -> Any:
        """``[tool.agenttools]`` (None when absent)."""
        return _dig(self.data, "tool", "agenttools")


def find_project_root(path: Path) -> Path | None:
    """The nearest directory at or above *path* (a directory or any file) holding a
    ``pyproject.toml``."""
    current = path.resolve()
    if not current.is_dir():
        current = current.parent
    for candidate in (current, *current.parents):
        if (candidate / PYPROJECT).is_file():
            return candidate
    return None


def load_project(root: Path, data: Mapping[str, Any] | None = None) -> Project | Problem:
    """Read ``root/pyproject.toml`` (or use *data*, the already parsed file, e.g. hatchling's
    ``metadata.config``). A file that does not parse is returned as a Problem."""
    root = Path(os.path.abspath(root))
    path = root / PYPROJECT
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        if data is None:
            return Problem(path, None, "UnreadableProject", f"cannot read {PYPROJECT}: {exc}")
        text = ""
    if data is None:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            match = re.search(r"\(at line (\d+), column \d+\)", str(exc))
            line = int(match.group(1)) if match else None
            return Problem(path, line, "InvalidTOML", f"{PYPROJECT} is not valid TOML: {exc}")
        except RecursionError:  # arrays or inline tables nested beyond what tomllib recurses
            return _too_deep(path, text)
    if limits.shape_problem(data) is not None:  # dotted keys nest without recursing
        return _too_deep(path, text)
    return Project(root, dict(data), TomlLines(text))


def _too_deep(path: Path, text: str) -> Problem:
    return Problem(
        path,
        _deep_line(text),
        "NestingTooDeep",
        f"{PYPROJECT} has values {limits.too_deep()}; agenttools reads no deeper",
    )


def _deep_line(text: str) -> int | None:
    """The line where *text* (TOML) first nests beyond the limit, counting as the parsed data
    does: the document, each part of the table header and of the dotted key, then the arrays
    and inline tables of the value."""
    depth = 0  # brackets open in the value
    base = 1  # containers around the current value: the document, the table, dotted keys
    table = 1
    number = 1
    i, n = 0, len(text)
    line_start = True
    while i < n:
        if line_start and depth == 0:
            line_start = False
            end = text.find("\n", i)
            line = text[i : n if end < 0 else end]
            header = _HEADER_RE.match(line)
            keyline = None if header else _KEYLINE_RE.match(line)
            if header:
                table = 1 + len(_split_key(header.group(2))) + (header.group(1) == "[[")
                base = table
                if table > limits.MAX_NESTING:
                    return number
                i = n if end < 0 else end  # the header holds no value
                continue
            if keyline:
                base = table + len(_split_key(keyline.group(1))) - 1
                if base > limits.MAX_NESTING:
                    return number
                i += keyline.start(2)  # the value: a quoted key's brackets are no values
                continue
        ch = text[i]
        if ch == "\n":
            number += 1
            line_start = True
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch in "\"'":
            quote = text[i : i + 3] if text.startswith(ch * 3, i) else ch
            end = i + len(quote)
            while end < n and not text.startswith(quote, end):
                end += 2 if (ch == '"' and text[end] == "\\") else 1
            number += text.count("\n", i, end)
            i = end + len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if base + depth > limits.MAX_NESTING:
                return number
        elif ch in "]}" and depth:
            depth -= 1
        i += 1
    return None


def validate_project(path: Path | str) -> list[Problem]:
    """Validate the project holding *path* (its directory, its ``pyproject.toml`` or any file
    in it): every problem, errors and warnings, in file order."""
    root = find_project_root(Path(path))
    if root is None:
        where = Path(os.path.abspath(path))
        return [Problem(where, None, "NoProject", f"no {PYPROJECT} found at or above {where}")]
    project = load_project(root)
    if isinstance(project, Problem):
        return [project]
    return check_project(project).problems


# -- the checked declarations ----------------------------------------------------------------


class SkillDeclaration(Value):
    """A skill of this distribution, resolved through the runtime's own
    :func:`~agenttools_runtime.skills.source.to_source` (so the wheel carries exactly what
    ``agenttools skills install`` would write from the same definition): ``source.files`` maps
    ``/``-separated relative paths to source files or generated text, ``source.manifest``
    their hashes, ``source.executable`` the files made executable on install."""

    __slots__ = ("kind", "path", "source", "sources")
    kind: Literal["directory", "inline"]
    source: SkillSource
    path: str | None  # project-relative directory (directory kind)
    sources: tuple[Path, ...]  # project files it is built from (for the sdist)

    def __init__(
        self,
        kind: Literal["directory", "inline"],
        source: SkillSource,
        path: str | None = None,
        sources: tuple[Path, ...] = (),
    ) -> None:
        super().__init__(kind=kind, source=source, path=path, sources=sources)

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def description(self) -> str:
        return self.source.description

    @property
    def files(self) -> Mapping[str, Path | str]:
        return self.source.files


class CheckResult:
    """Problems found, and what was declared (complete only when there are no errors)."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.root = DEFAULT_ROOT
        self.servers: dict[str, dict[str, Any]] = {}
        self.skills: dict[str, SkillDeclaration] = {}
        self.bundles: list[BundleEntry] = []
        self.has_config = False
        self.checked: set[Path] = set()  # real skill directories whose SKILL.md was checked

    @property
    def errors(self) -> list[Problem]:
        return errors_of(self.problems)


class BuildPlan(Value):
    """What the hook writes under ``.dist-info/extra_metadata/agenttools/``: the manifest and
    every skill file (``skills/<name>/<relpath>`` -> source file or generated text)."""

    __slots__ = ("files", "manifest", "sources", "warnings")
    manifest: WheelManifest
    files: Mapping[str, Path | str]
    warnings: tuple[Problem, ...]
    sources: tuple[Path, ...]  # project files the skills are built from

    def __init__(
        self,
        manifest: WheelManifest,
        files: Mapping[str, Path | str],
        warnings: tuple[Problem, ...] = (),
        sources: tuple[Path, ...] = (),
    ) -> None:
        super().__init__(manifest=manifest, files=files, warnings=warnings, sources=sources)

    def manifest_bytes(self) -> bytes:
        return self.manifest.to_bytes()


def build_manifest(
    project: Project,
    version: str,
    *,
    source_root: Path | None = None,
    build_setup: bool = True,
) -> BuildPlan:
    """Check *project* and compile its manifest and file list (the manifest's one writer).

    *source_root* is recorded for editable installs. ``build_setup=False`` skips the checks
    of the project's own build set-up (for ``agenttools bundle``). Raises
    :class:`ProjectInvalid` listing every error (warnings are in the plan).
    """
    result = check_project(project, build_setup=build_setup)
    if result.errors or not result.has_config or project.name is None:
        problems = result.errors or [
            Problem(project.pyproject, None, "MissingConfig", MISSING_CONFIG)
        ]
        raise ProjectInvalid(problems, project.root)
    files: dict[str, Path | str] = {}
    skills: dict[str, SkillEntry] = {}
    for name, skill in result.skills.items():
        skills[name] = SkillEntry(
            name=name,
            description=skill.description,
            kind=skill.kind,
            files=dict(skill.source.manifest),
            executable=tuple(sorted(skill.source.executable)),
            path=skill.path,
        )
        for rel, source in skill.files.items():
            files[layout.skill_file(name, rel)] = source
    manifest = WheelManifest(
        distribution=project.name,
        version=version,
        root=result.root,
        bundles=tuple(result.bundles),
        servers={n: ServerEntry(n, table) for n, table in result.servers.items()},
        skills=skills,
        source_root=None if source_root is None else str(source_root),
    )
    sources = tuple(dict.fromkeys(p for s in result.skills.values() for p in s.sources))
    return BuildPlan(manifest, files, tuple(result.problems), sources)


def check_project(project: Project, *, build_setup: bool = True) -> CheckResult:
    """Run every check on a loaded project (``build_setup=False``: all but those of how the
    project's build runs agenttools, which do not concern a wheel built by anything else)."""
    return _Checker(project, build_setup=build_setup).run()


# -- the checker -----------------------------------------------------------------------------


class _Checker:
    def __init__(self, project: Project, *, build_setup: bool = True) -> None:
        self.project = project
        self.build_setup = build_setup
        self.result = CheckResult()
        self.base: KeyPath = ("tool", "agenttools")
        self.root_ok = True  # skills are looked up under root only when it is usable

    # reporting
    def add(
        self,
        key: KeyPath | None,
        code: str,
        message: str,
        severity: Severity = "error",
        *,
        path: Path | None = None,
        line: int | None = None,
    ) -> None:
        assert code in CODES, code
        if path is None:
            path = self.project.pyproject
            if line is None and key is not None:
                line = self.project.lines.line(key)
        if key is not None:
            message = f"{format_key(key)}: {message}"
        self.result.problems.append(Problem(path, line, code, message, severity))

    def run(self) -> CheckResult:
        config = self.project.config
        if self.build_setup:
            self._check_build_setup(config is not None)
        if config is None:
            return self.result
        self.result.has_config = True
        if not isinstance(config, dict):
            self.add(self.base, "InvalidType", "must be a table")
            return self.result
        self._check_keys(schema.AGENTTOOLS, config, self.base)
        if not self.project.name:
            self.add(("project", "name"), "MissingProjectName", "the project needs a name")
        self.result.root = self._check_root(config)
        servers = config.get("mcp-servers", {})
        if isinstance(servers, dict):
            for name, table in servers.items():
                self._check_server(name, table)
        skills = config.get("skills", {})
        declared = list(skills) if isinstance(skills, dict) else []
        bundles = config.get("bundles", [])
        if isinstance(bundles, list):
            declared += self._check_bundles(bundles)
        for name in dict.fromkeys(declared if self.root_ok else ()):
            if name not in self.result.skills and names.is_skill_name(name):
                table = skills.get(name) if isinstance(skills, dict) else None
                self._check_skill(name, table)
        for name in skills if isinstance(skills, dict) else ():
            if not names.is_skill_name(name):
                self._report_name((*self.base, "skills", name), name)
        self._check_undeclared_skills(declared)
        self._finish_bundles(bundles if isinstance(bundles, list) else [])
        self.result.problems.sort(key=_problem_order)
        return self.result

    # the build set-up -----------------------------------------------------------------------
    def _check_build_setup(self, has_config: bool) -> None:
        data = self.project.data
        system = data.get("build-system", {})
        system = system if isinstance(system, dict) else {}
        backend = system.get("build-backend")
        config = self.project.config if has_config else None
        if backend == schema.WRAPPING_BACKEND:
            self._check_wrapping_backend(system, config)
            return
        if isinstance(config, dict) and "backend" in config:
            self.add(
                (*self.base, "backend"),
                "UnusedBackend",
                f'is read only by build-backend = "{schema.WRAPPING_BACKEND}"; this project '
                f'builds with "{backend or DEFAULT_BACKEND}"',
                "warning",
            )
        hatch = _dig(data, "tool", "hatch")
        build = hatch.get("build", {}) if isinstance(hatch, dict) else {}
        global_hook = _dig(build, "hooks", "agenttools")
        wheel_hook = _dig(build, "targets", "wheel", "hooks", "agenttools")
        hook_enabled = global_hook is not None or wheel_hook is not None
        for table, key in (
            (global_hook, ("tool", "hatch", "build", "hooks", "agenttools")),
            (wheel_hook, ("tool", "hatch", "build", "targets", "wheel", "hooks", "agenttools")),
        ):
            if isinstance(table, dict):
                own = {
                    k: v for k, v in table.items() if k not in schema.HATCHLING_RESERVED_HOOK_KEYS
                }
                self._check_keys(schema.HOOK_TABLE, own, key)
        if not has_config:
            if hook_enabled:
                self.add(
                    ("tool", "hatch", "build", "hooks", "agenttools"),
                    "MissingConfig",
                    MISSING_CONFIG,
                    "warning",
                )
            return
        if not hook_enabled and backend != "hatchling.build":
            wrapped = backend or DEFAULT_BACKEND
            self.add(
                ("build-system", "build-backend") if backend is not None else self.base,
                "BackendDoesNotBundle",
                f'the build backend "{wrapped}" does not bundle [tool.agenttools]; wrap it '
                f'(build-backend = "{schema.WRAPPING_BACKEND}", and backend = "{wrapped}" in '
                "[tool.agenttools]) or run `agenttools bundle` on every wheel it builds",
                "warning",
            )
        elif not hook_enabled:
            self.add(
                self.base,
                "HookNotEnabled",
                "the build hook is not enabled, so wheels would ship without these skills and "
                "servers; add an empty [tool.hatch.build.hooks.agenttools] table",
            )
        elif global_hook is None:
            self.add(
                ("tool", "hatch", "build", "targets", "wheel", "hooks", "agenttools"),
                "HookWheelOnly",
                "the hook runs for the wheel only, so the sdist may lack the skill sources and "
                "a wheel built from it would differ; use [tool.hatch.build.hooks.agenttools]",
                "warning",
            )
        self._check_sources(build)
        requires = _items(system.get("requires"))
        if hook_enabled and not any(_requirement_name(r) == "agenttools" for r in requires):
            self.add(
                ("build-system", "requires"),
                "BuildRequirementMissing",
                'the build requirements must include "agenttools" (the hook lives there)',
            )
        if hook_enabled and backend != "hatchling.build":
            self.add(
                ("build-system", "build-backend"),
                "UnsupportedBackend",
                f'the agenttools hook runs under hatchling; set build-backend = "hatchling.build" '
                f"(found {backend!r}); for any other backend, set build-backend = "
                f'"{schema.WRAPPING_BACKEND}" and backend = "{backend}" in [tool.agenttools]',
            )

    def _check_wrapping_backend(self, system: Mapping[str, Any], config: Any) -> None:
        """``build-backend = "agenttools_hook.backend"``: it needs ``backend`` (the backend it
        wraps) and both distributions in the build requirements."""
        requires = system.get("requires", [])
        required = {_requirement_name(r) for r in requires if isinstance(requires, list)}
        if "agenttools" not in required:
            self.add(
                ("build-system", "requires"),
                "BuildRequirementMissing",
                'the build requirements must include "agenttools" (the build backend lives there)',
            )
        if not isinstance(config, dict):
            if config is None:
                self.add(
                    ("build-system", "build-backend"),
                    "MissingBackend",
                    f'"{schema.WRAPPING_BACKEND}" needs [tool.agenttools] with backend = the '
                    'backend that builds the project (e.g. backend = "setuptools.build_meta")',
                )
            return  # not a table: reported by run()
        inner = config.get("backend")
        if "backend" not in config:
            self.add(
                self.base,
                "MissingBackend",
                f'build-backend is "{schema.WRAPPING_BACKEND}", so backend must name the '
                'backend that builds the project (e.g. backend = "setuptools.build_meta")',
            )
        elif isinstance(inner, str):
            key = (*self.base, "backend")
            if not _BACKEND_RE.match(inner):
                self.add(
                    key, "InvalidValue", f'"{inner}" is not a backend ("module" or "module:object")'
                )
            elif inner.split(":")[0].split(".")[0] == schema.WRAPPING_BACKEND.split(".")[0]:
                self.add(
                    key,
                    "InvalidValue",
                    f'"{inner}" is agenttools itself; name the backend it wraps',
                )
            else:
                distribution = schema.KNOWN_BACKENDS.get(inner.split(".")[0].split(":")[0])
                if (
                    distribution is not None
                    and not config.get("backend-path")
                    and names.canonical_dist_name(distribution) not in required
                ):
                    self.add(
                        ("build-system", "requires"),
                        "BuildRequirementMissing",
                        f'the build requirements must include "{distribution}" (backend '
                        f'"{inner}" lives there)',
                    )
        paths = config.get("backend-path", [])
        for index, entry in enumerate(paths if isinstance(paths, list) else []):
            if isinstance(entry, str) and not self._inside_project(self.project.root / entry):
                self.add(
                    (*self.base, "backend-path", index),
                    "PathOutsideProject",
                    f'"{entry}" must be a directory inside the project',
                )

    def _check_sources(self, build: Any) -> None:
        """hatchling applies the wheel's ``sources`` to extra-metadata targets too: a mapping
        of ``""`` (or of a directory named ``agenttools``) moves the manifest and skill files
        away from ``.dist-info/extra_metadata/agenttools/``, where the runtime looks. The build
        hook refuses such a build; say so before."""
        wheel = _dig(build, "targets", "wheel")
        for table, key in (
            (wheel, ("tool", "hatch", "build", "targets", "wheel", "sources")),
            (build, ("tool", "hatch", "build", "sources")),
        ):
            if not isinstance(table, dict) or "sources" not in table:
                continue
            moved = _moved_by_sources(table["sources"], "agenttools/manifest.json")
            if moved is not None:
                self.add(
                    key,
                    "SkillFileNotInWheel",
                    f"would move the agenttools files inside the wheel's extra_metadata "
                    f"(agenttools/manifest.json -> {moved}), where nothing finds them; map a "
                    'named directory instead (e.g. sources = {"src" = ""})',
                )
            return  # the wheel's own sources replace the global ones

    # generic schema checks ------------------------------------------------------------------
    def _check_keys(self, table: schema.Table, value: Mapping[str, Any], key: KeyPath) -> None:
        for name, item in value.items():
            spec = table.key(name)
            if spec is None:
                if table is schema.SKILL and name in CLIENT_EXTENSION_KEYS:
                    self.add(
                        (*key, name),
                        "ClientExtensionKey",
                        f"'{name}' is a {CLIENT_EXTENSION_KEYS[name]} extension, not part of "
                        "the Agent Skills spec; other clients ignore it and skills-ref rejects it",
                        "warning",
                    )
                    continue
                hint = _did_you_mean(name, table.names)
                self.add((*key, name), "UnknownKey", f'unknown key "{name}"{hint}')
                continue
            problem = _type_problem(spec, item)
            if problem:
                self.add((*key, name), "InvalidType", problem)
            elif spec.choices and item not in spec.choices:
                choices = ", ".join(f'"{c}"' for c in spec.choices)
                self.add((*key, name), "InvalidValue", f'"{item}" is not one of {choices}')
            elif spec.kind == "table-map" and spec.item is not None:
                for sub, subvalue in item.items():
                    if isinstance(subvalue, dict):
                        self._check_keys(spec.item, subvalue, (*key, name, sub))
                    else:
                        self.add((*key, name, sub), "InvalidType", "must be a table")
            elif spec.kind == "table-list" and spec.item is not None:
                for index, subvalue in enumerate(item):
                    if isinstance(subvalue, dict):
                        self._check_keys(spec.item, subvalue, (*key, name, index))
                    else:
                        self.add((*key, name, index), "InvalidType", "must be a table")

    def _check_root(self, config: Mapping[str, Any]) -> str:
        root = config.get("root", DEFAULT_ROOT)
        if not isinstance(root, str):
            return DEFAULT_ROOT
        if "\x00" in root:
            self.root_ok = False
            self.add((*self.base, "root"), "InvalidValue", _NUL_MESSAGE)
            return root
        if not root.strip() or not self._inside_project(self.project.root / root):
            self.root_ok = False
            self.add(
                (*self.base, "root"),
                "PathOutsideProject",
                f'"{root}" must be a directory inside the project, so that the sdist carries it',
            )
        return root

    # servers --------------------------------------------------------------------------------
    def _check_server(self, name: str, table: Any) -> None:
        key = (*self.base, "mcp-servers", name)
        if not self._check_item_name(key, name, "server"):
            return
        if not isinstance(table, dict):
            return  # reported by _check_keys
        launch = [k for k in schema.LAUNCH_KEYS if k in table]
        if len(launch) != 1:
            self.add(
                key,
                "InvalidServer",
                "needs exactly one of module, script, command, url "
                f"(has {', '.join(launch) or 'none'})",
            )
        if not all(isinstance(table.get(k), str) for k in launch):
            return  # types reported by _check_keys
        module, script, url = table.get("module"), table.get("script"), table.get("url")
        if isinstance(module, str):
            self._check_module((*key, "module"), module)
        if isinstance(script, str):
            self._check_script((*key, "script"), script)
        if isinstance(url, str):
            self._check_url((*key, "url"), url)
            for stdio_only in ("args", "env"):
                if stdio_only in table:
                    self.add(
                        (*key, stdio_only),
                        "InvalidServer",
                        f"{stdio_only} has no meaning for a url server",
                    )
            if table.get("transport") == "stdio":
                self.add((*key, "transport"), "InvalidServer", 'a url server uses "http" or "sse"')
        else:
            if table.get("transport") in ("http", "sse"):  # other values: InvalidValue
                self.add(
                    (*key, "transport"),
                    "InvalidServer",
                    f'"{table["transport"]}" needs a url; module, script and command servers '
                    'use "stdio"',
                )
            if "headers" in table:
                self.add((*key, "headers"), "InvalidServer", "headers need a url server")
        self.result.servers[name] = dict(table)

    def _check_module(self, key: KeyPath, module: str) -> None:
        parts = module.split(".")
        if not all(part.isidentifier() for part in parts):
            self.add(key, "InvalidModule", f'"{module}" is not a dotted module path')
            return
        bases = self._source_bases()
        rel = Path(*parts)
        for base in bases:
            if _is_file((base / rel).with_suffix(".py")) or _is_file(base / rel / "__main__.py"):
                return
        where = ", ".join(display_path(b, self.project.root) for b in bases)
        self.add(
            key,
            "UnknownModule",
            f'module "{module}" is not in the project\'s source tree '
            f"(looked for {rel.as_posix()}.py and {rel.as_posix()}/__main__.py under {where})",
        )

    def _source_bases(self) -> list[Path]:
        root = self.project.root
        bases = [root, root / "src"]
        wheel = _dig(self.project.data, "tool", "hatch", "build", "targets", "wheel") or {}
        for package in wheel.get("packages", []) if isinstance(wheel, dict) else []:
            if isinstance(package, str):
                bases.append((root / package).parent)
        return list(dict.fromkeys(b for b in bases if _is_dir(b)))

    def _check_script(self, key: KeyPath, script: str) -> None:
        dynamic = _dig(self.project.data, "project", "dynamic")
        if isinstance(dynamic, list) and "scripts" in dynamic:
            return  # cannot be known before the build
        scripts = _dig(self.project.data, "project", "scripts")
        scripts = scripts if isinstance(scripts, dict) else {}
        if script not in scripts:
            known = ", ".join(sorted(scripts)) or "none"
            self.add(
                key,
                "UnknownScript",
                f'"{script}" is not a [project.scripts] entry of this project (entries: {known})',
            )

    def _check_url(self, key: KeyPath, url: str) -> None:
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(url)
            valid = parts.scheme in ("http", "https") and bool(parts.netloc)
        except ValueError:  # e.g. an unclosed IPv6 bracket
            valid = False
        if not valid:
            self.add(key, "InvalidURL", f'"{url}" is not an http:// or https:// URL')

    def _check_item_name(self, key: KeyPath, name: object, what: str) -> bool:
        problem = names.item_name_problem(name, what)
        if problem is not None:
            self.add(key, "InvalidItemName", problem)
        return problem is None

    # skills ---------------------------------------------------------------------------------
    def _report_name(self, key: KeyPath, name: str) -> None:
        for message in names.skill_name_problems(name):
            self.add(key, "InvalidSkillName", message)

    def _check_skill(self, name: str, table: Any) -> None:
        key = (*self.base, "skills", name)
        directory = self.project.root / self.result.root / name
        skill_md = directory / SKILL_FILE
        has_dir = _is_file(skill_md)
        inline = isinstance(table, dict) and any(
            k in table for k in ("description", "body", "body-file")
        )
        if inline and has_dir:
            self.add(
                key,
                "DuplicateDefinitionFiles",
                f'the skill "{name}" is defined twice: inline here and by '
                f"{display_path(skill_md, self.project.root)}; keep one",
            )
            return
        if inline:
            assert isinstance(table, dict)
            self._check_inline_skill(name, table, key)
        elif has_dir:
            self._check_directory_skill(name, directory, key if table is not None else None)
        else:
            where = display_path(skill_md, self.project.root)
            hint = (
                f"{display_path(directory, self.project.root)} has no {SKILL_FILE}"
                if _is_dir(directory)
                else f"there is no {where}"
            )
            self.add(
                key if table is not None else self._bundle_reference(name),
                "MissingDefinitionFile",
                f'the skill "{name}" has no definition: {hint} and no inline description',
            )

    def _check_inline_skill(self, name: str, table: Mapping[str, Any], key: KeyPath) -> None:
        before = len(self.result.errors)
        description = table.get("description")
        if "description" not in table:
            self.add(key, "InvalidSkillDefinition", "Missing required field: description")
        elif isinstance(description, str):
            for message in names.description_problems(description):
                self.add((*key, "description"), "InvalidSkillDefinition", message)
        compatibility = table.get("compatibility")
        if isinstance(compatibility, str):
            for message in names.compatibility_problems(compatibility):
                self.add((*key, "compatibility"), "InvalidSkillDefinition", message)
        body: str | None = table.get("body") if isinstance(table.get("body"), str) else None
        body_file = table.get("body-file")
        if ("body" in table) == ("body-file" in table):
            self.add(key, "InvalidSkillDefinition", "needs exactly one of body and body-file")
        elif isinstance(body_file, str):
            body = self._read_body_file((*key, "body-file"), body_file)
        if len(self.result.errors) > before or body is None or not isinstance(description, str):
            return
        # The inline definition as the runtime takes one (``Skill.from_mapping``): one
        # generator of SKILL.md for wheels, ``skills install`` and deploys.
        frontmatter: dict[str, Any] = {"name": name, "description": description, "body": body}
        for k, v in table.items():
            spec = schema.SKILL.key(k)
            if spec is not None and _type_problem(spec, v):
                return  # reported by _check_keys
            if k in CLIENT_EXTENSION_KEYS or (spec is not None and k not in frontmatter):
                frontmatter.setdefault(k, v)
        frontmatter.pop("body-file", None)
        dashed = [k for k, v in frontmatter.items() if k != "body" and "---" in json.dumps(v)]
        for k in dashed:  # the generated frontmatter would carry it
            self.add((*key, k), "SkillFrontmatterDashes", skill_md.DASHES_MESSAGE)
        if dashed:
            return
        source = self._to_source(key, frontmatter)
        if source is None:
            return
        sources = (self.project.root / body_file,) if isinstance(body_file, str) else ()
        self.result.skills[name] = SkillDeclaration("inline", source, sources=sources)

    def _to_source(self, key: KeyPath | None, spec: Any, *, path: Path | None = None) -> Any:
        """The runtime's normalized source of a checked skill; anything it still refuses
        is reported (the checks above should have caught it: this keeps them honest)."""
        from agenttools_runtime.errors import AgentToolsError
        from agenttools_runtime.skills.source import to_source

        try:
            return to_source(spec)
        except AgentToolsError as exc:
            self.add(key, "InvalidSkillDefinition", str(exc), path=path)
            return None

    def _read_body_file(self, key: KeyPath, body_file: str) -> str | None:
        if "\x00" in body_file:
            self.add(key, "InvalidValue", _NUL_MESSAGE)
            return None
        path = self.project.root / body_file
        if not self._inside_project(path):
            self.add(key, "PathOutsideProject", f'"{body_file}" must be a file inside the project')
            return None
        try:
            return path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            self.add(key, "MissingBodyFile", f'"{body_file}" does not exist')
        except UnicodeDecodeError:
            self.add(key, "InvalidSkillDefinition", f'"{body_file}" is not UTF-8 text')
        except OSError as exc:
            self.add(key, "MissingBodyFile", f'"{body_file}" cannot be read ({exc.strerror})')
        return None

    def _check_directory_skill(self, name: str, directory: Path, key: KeyPath | None) -> None:
        before = len(self.result.errors)
        if not self._inside_project(directory):
            self.add(
                key or self._bundle_reference(name),
                "PathOutsideProject",
                f"{display_path(directory, self.project.root)} leads outside the project",
            )
            return
        frontmatter = check_skill_md(directory / SKILL_FILE, name, self.result.problems)
        self.result.checked.add(Path(os.path.realpath(directory)))
        self._check_skill_files(directory)
        if len(self.result.errors) > before or frontmatter is None:
            return
        source = self._to_source(None, directory, path=directory / SKILL_FILE)
        if source is None:
            return
        rel_dir = Path(os.path.relpath(directory, self.project.root)).as_posix()
        sources = tuple(p for p in source.files.values() if isinstance(p, Path))
        self.result.skills[name] = SkillDeclaration("directory", source, rel_dir, sources)

    def _check_skill_files(self, directory: Path) -> None:
        """Links that leave the skill, and files that cannot reach the wheel."""
        from agenttools_runtime.skills.hashing import JUNK_DIRS, VCS_NAMES

        root_real = Path(os.path.realpath(directory))
        seen: dict[str, Path] = {}
        for current, dirs, files in os.walk(directory):
            dirs[:] = sorted(d for d in dirs if d not in VCS_NAMES and d not in JUNK_DIRS)
            for entry in sorted(dirs + files):
                path = Path(current) / entry
                where = display_path(path, self.project.root)
                if path.is_symlink():
                    target = Path(os.path.realpath(path))
                    if not _is_inside(target, root_real):
                        self.add(
                            None,
                            "UnsafeLink",
                            f"the symbolic link {where} points outside its skill directory "
                            f"(to {display_path(target, self.project.root)}); skills may only "
                            "link to files inside themselves",
                            path=path,
                        )
                        dirs[:] = [d for d in dirs if d != entry]
                        continue
                    if not target.exists():
                        self.add(None, "BrokenLink", f"{where} is a broken link", path=path)
                        continue
                    if target.is_dir() and _is_inside(Path(current), target):
                        self.add(
                            None,
                            "UnsafeLink",
                            f"the symbolic link {where} leads back to "
                            f"{display_path(target, self.project.root)}, which contains it; "
                            "copying the skill would never end",
                            path=path,
                        )
                        continue
                if entry in files and not path.is_file():
                    self.add(
                        None,
                        "SkillFileNotInWheel",
                        f"{where} is not a regular file and cannot be put into a wheel",
                        path=path,
                    )
                folded = path.relative_to(directory).as_posix().casefold()
                if folded in seen:
                    self.add(
                        None,
                        "SkillFileNotInWheel",
                        f"{where} and {display_path(seen[folded], self.project.root)} differ only "
                        "in case; on Windows and macOS one would overwrite the other",
                        path=path,
                    )
                seen.setdefault(folded, path)
        self._check_sdist_reach(directory)

    def _check_sdist_reach(self, directory: Path) -> None:
        """With the hook off for the sdist, ``.gitignore``d skill files never reach it, nor a
        wheel built from it."""
        hooks = _dig(self.project.data, "tool", "hatch", "build", "hooks", "agenttools")
        backend = _dig(self.project.data, "build-system", "build-backend")
        if hooks is not None or backend == schema.WRAPPING_BACKEND or not self.build_setup:
            return  # the hook or the wrapping backend adds every skill file to the sdist
        gitignore = self.project.root / ".gitignore"
        if not gitignore.is_file():
            return
        try:
            import pathspec
        except ImportError:
            return
        try:  # git reads .gitignore as bytes; a Latin-1 one is still a valid file
            lines = gitignore.read_bytes().decode("utf-8", "surrogateescape").splitlines()
        except OSError:
            return
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        for current, _dirs, files in os.walk(directory):
            for name in files:
                path = Path(current) / name
                rel = Path(os.path.relpath(path, self.project.root)).as_posix()
                if spec.match_file(rel):
                    self.add(
                        None,
                        "SkillFileNotInWheel",
                        f"{rel} is ignored by .gitignore, so the sdist leaves it out and a "
                        "wheel built from the sdist would lack it; enable the hook for every "
                        "target with [tool.hatch.build.hooks.agenttools]",
                        path=path,
                    )

    def _check_undeclared_skills(self, declared: Sequence[str]) -> None:
        root = self.project.root / self.result.root
        if not self.root_ok or not _is_dir(root):
            return
        for child in sorted(root.iterdir()):
            if (child / SKILL_FILE).is_file() and child.name not in declared:
                self.add(
                    None,
                    "UndeclaredSkill",
                    f"{display_path(child, self.project.root)} holds a {SKILL_FILE} but is not "
                    "declared in [tool.agenttools.skills] or a bundle, so it is not bundled",
                    "warning",
                    path=child / SKILL_FILE,
                    line=1,
                )

    # bundles --------------------------------------------------------------------------------
    def _bundle_reference(self, skill: str) -> KeyPath:
        """The key of the first bundle listing a skill (where to point a missing one)."""
        for index, bundle in enumerate(_items(self.project.config.get("bundles"))):
            if isinstance(bundle, dict) and skill in _strings(bundle.get("skills")):
                return (*self.base, "bundles", index, "skills")
        return (*self.base, "skills", skill)

    def _check_bundles(self, bundles: list[Any]) -> list[str]:
        """Item references of every bundle; returns the local skill names they declare."""
        local: list[str] = []
        for index, bundle in enumerate(bundles):
            if not isinstance(bundle, dict):
                continue
            key = (*self.base, "bundles", index)
            name = bundle.get("name")
            if "name" not in bundle:
                self.add(key, "InvalidItemName", "a bundle needs a name")
            elif isinstance(name, str):
                self._check_item_name((*key, "name"), name, "bundle")
            marker = bundle.get("marker")
            if isinstance(marker, str):
                self._check_marker((*key, "marker"), marker)
            servers = bundle.get("mcp-servers", [])
            for server in servers if isinstance(servers, list) else []:
                if not isinstance(server, str):
                    continue
                if self._check_item_name((*key, "mcp-servers"), server, "server") and (
                    server not in _table(self.project.config.get("mcp-servers"))
                ):
                    self.add(
                        (*key, "mcp-servers"),
                        "UnknownServer",
                        f'"{server}" is not declared in [tool.agenttools.mcp-servers]',
                    )
            skills = bundle.get("skills", [])
            for skill in skills if isinstance(skills, list) else []:
                if isinstance(skill, str):
                    own = self._check_skill_reference((*key, "skills"), skill)
                    if own is not None and own not in local:
                        local.append(own)
            for field_name in ("mcp-servers", "skills"):
                items = bundle.get(field_name, [])
                if isinstance(items, list):
                    for item in sorted(
                        {i for i in items if isinstance(i, str) and items.count(i) > 1}
                    ):
                        self.add(
                            (*key, field_name),
                            "DuplicateItem",
                            f'"{item}" is listed more than once',
                            "warning",
                        )
        return local

    def _check_skill_reference(self, key: KeyPath, reference: str) -> str | None:
        """Check a bundle's skill name; return it when it is this distribution's."""
        if "/" not in reference:
            if not names.is_skill_name(reference):
                self.add(
                    key,
                    "InvalidSkillName",
                    f'"{reference}": ' + "; ".join(names.skill_name_problems(reference)),
                )
                return None
            return reference
        dist, _, skill = reference.partition("/")
        if not names.is_skill_reference(reference):
            self.add(
                key,
                "InvalidItemName",
                f'"{reference}" must be a skill name or "distribution/skill-name"',
            )
            return None
        if self.project.name and names.canonical_dist_name(dist) == names.canonical_dist_name(
            self.project.name
        ):
            return skill
        return None

    def _check_marker(self, key: KeyPath, marker: str) -> None:
        from packaging.markers import (
            InvalidMarker,
            Marker,
            UndefinedComparison,
            UndefinedEnvironmentName,
        )

        try:
            parsed = Marker(marker)
        except InvalidMarker as exc:
            first = str(exc).splitlines()[0]
            self.add(key, "InvalidMarker", f'"{marker}" is not a PEP 508 marker: {first}')
            return
        try:
            parsed.evaluate(_marker_environments()[0])
        except UndefinedEnvironmentName as exc:  # e.g. dependency_groups: lock files only
            self.add(
                key,
                "InvalidMarker",
                f'"{marker}" uses {exc}, which an installed environment does not define; '
                "the bundle would never be offered",
            )
        except UndefinedComparison as exc:
            self.add(
                key,
                "InvalidMarker",
                f'"{marker}" cannot be evaluated ({exc}); the bundle would never be offered',
            )

    def _finish_bundles(self, bundles: list[Any]) -> None:
        """Bundle-level checks, and the bundle list of the manifest."""
        servers = self.result.servers
        if not bundles:
            skills = tuple(self.result.skills)
            if servers or skills or self.result.errors:
                implicit = names.canonical_dist_name(self.project.name or "unnamed")
                self.result.bundles.append(BundleEntry(implicit, True, tuple(servers), skills))
                self._check_config_keys((*self.base, "mcp-servers"), implicit, tuple(servers))
            else:
                self.add(
                    self.base,
                    "NothingDeclared",
                    "declares no MCP servers and no skills",
                    "warning",
                )
            return
        seen: list[tuple[int, str, str | None]] = []
        for index, bundle in enumerate(bundles):
            if not isinstance(bundle, dict) or not isinstance(bundle.get("name"), str):
                continue
            key = (*self.base, "bundles", index)
            name = str(bundle["name"])
            marker = bundle.get("marker") if isinstance(bundle.get("marker"), str) else None
            for other_index, other_name, other_marker in seen:
                if other_name == name and _markers_overlap(marker, other_marker):
                    self.add(
                        (*key, "name"),
                        "DuplicateBundleName",
                        f'the bundle name "{name}" is also used by bundles[{other_index}], and '
                        "their markers can hold on the same system",
                    )
            seen.append((index, name, marker))
            listed = tuple(_strings(bundle.get("mcp-servers")))
            if name in servers and name not in listed:
                self.add(
                    (*key, "name"),
                    "AmbiguousBundleName",
                    f'the bundle "{name}" is named like the MCP server "{name}" but does not '
                    "contain it; rename the bundle or add the server to it",
                )
            self._check_config_keys((*key, "mcp-servers"), name, listed)
            skills = tuple(_strings(bundle.get("skills")))
            if not listed and not skills:
                self.add(key, "EmptyBundle", "lists no MCP servers and no skills", "warning")
            description = bundle.get("description")
            self.result.bundles.append(
                BundleEntry(
                    name,
                    False,
                    tuple(dict.fromkeys(listed)),
                    tuple(dict.fromkeys(skills)),
                    description if isinstance(description, str) else None,
                    marker,
                )
            )

    def _check_config_keys(self, key: KeyPath, bundle: str, listed: Sequence[str]) -> None:
        by_key: dict[str, list[str]] = {}
        for server in dict.fromkeys(listed):
            table = self.result.servers.get(server)
            if table is None:
                continue
            config_key = table.get("config-key", server)
            by_key.setdefault(str(config_key), []).append(server)
        for config_key, sharing in by_key.items():
            if len(sharing) > 1:
                self.add(
                    key,
                    "DuplicateBundleConfigKey",
                    f'The MCP servers {", ".join(sharing)} of "{bundle}" would all be installed '
                    f'with the configuration key "{config_key}".',
                )

    # helpers ---------------------------------------------------------------------------------
    def _inside_project(self, path: Path) -> bool:
        return _is_inside(Path(os.path.realpath(path)), Path(os.path.realpath(self.project.root)))


# -- SKILL.md --------------------------------------------------------------------------------


def check_skill_md(
    path: Path, expected_name: str | None, problems: list[Problem]
) -> dict[str, Any] | None:
    """Check one ``SKILL.md`` strictly (:func:`agenttools_runtime.skills.skill_md.check`:
    skills-ref's rules and wording, portability, line numbers). Appends to *problems*; returns
    the frontmatter when it parsed, else None."""
    frontmatter, findings = skill_md.check(path, expected_name)
    for finding in findings:
        assert finding.code in CODES, finding.code
        problems.append(
            Problem(path, finding.line, finding.code, finding.message, finding.severity)
        )
    return frontmatter


# -- TOML lines ------------------------------------------------------------------------------

_BACKEND_RE = re.compile(schema.BACKEND_REFERENCE)
_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_KEYLINE_RE = re.compile(rf"^\s*({_DOTTED})\s*=(.*)$")
_KEYPART_RE = re.compile(_KEY)


class TomlLines:
    """Where each key of a TOML document is: a light scanner over the text (headers, array
    of tables, dotted keys, multi-line strings) that maps key paths to 1-based lines."""

    def __init__(self, text: str) -> None:
        self._lines: dict[KeyPath, int] = {}
        counters: dict[KeyPath, int] = {}
        table: KeyPath = ()
        in_string: str | None = None
        # TOML ends lines at "\n" only (str.splitlines also breaks at U+0085, U+2028 …)
        for number, line in enumerate(text.split("\n"), start=1):
            if in_string is not None:
                if in_string in line:
                    in_string = None
                continue
            header = _HEADER_RE.match(line)
            if header:
                parts = _split_key(header.group(2))
                table = self._with_indexes(parts, counters)
                if header.group(1) == "[[":
                    index = counters.get(parts, -1) + 1
                    counters[parts] = index
                    table = (*table, index)
                self._lines.setdefault(table, number)
                continue
            keyline = _KEYLINE_RE.match(line)
            if keyline:
                self._lines.setdefault((*table, *_split_key(keyline.group(1))), number)
                in_string = _open_multiline_string(keyline.group(2))

    def items(self) -> Iterable[tuple[KeyPath, int]]:
        """Every key path found, with its line."""
        return self._lines.items()

    @staticmethod
    def _with_indexes(parts: KeyPath, counters: Mapping[KeyPath, int]) -> KeyPath:
        out: list[str | int] = []
        for i, part in enumerate(parts):
            out.append(part)
            prefix = parts[: i + 1]
            if prefix in counters and i + 1 < len(parts):
                out.append(counters[prefix])
        return tuple(out)

    def line(self, key: KeyPath) -> int | None:
        """The line of *key*; else the first line of a key inside it (``[a.b.c]`` for ``a.b``
        without its own header); else the line of its nearest ancestor that has one."""
        key = tuple(key)
        for end in range(len(key), 0, -1):
            prefix = key[:end]
            found = self._lines.get(prefix)
            if found is not None:
                return found
            # "[[a]]" is stored as a.0: a key of "a" found inside it
            inside = [n for k, n in self._lines.items() if k[:end] == prefix]
            if inside:
                return min(inside)
        return None


def _open_multiline_string(value: str) -> str | None:
    """The quotes of a multi-line string that *value* (a line's rest after ``=``) opens and
    does not close, else None. Quotes inside other strings and comments do not count."""
    i, n = 0, len(value)
    while i < n:
        if value.startswith(('"""', "'''"), i):
            quote = value[i : i + 3]
            close = value.find(quote, i + 3)
            while quote == '"""' and close > 0 and _escaped(value, close):
                close = value.find(quote, close + 1)
            if close < 0:
                return quote
            i = close + 3
        elif value[i] == '"':
            i += 1
            while i < n and value[i] != '"':
                i += 2 if value[i] == "\\" else 1
            i += 1
        elif value[i] == "'":
            close = value.find("'", i + 1)
            i = n if close < 0 else close + 1
        elif value[i] == "#":
            return None
        else:
            i += 1
    return None


def _escaped(text: str, pos: int) -> bool:
    """Whether the character at *pos* follows an odd number of backslashes."""
    backslashes = 0
    while pos - backslashes - 1 >= 0 and text[pos - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _split_key(dotted: str) -> tuple[str, ...]:
    parts = []
    for match in _KEYPART_RE.finditer(dotted):
        part = match.group(0)
        if part[0] in "\"'":
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def format_key(key: KeyPath) -> str:
    """``tool.agenttools.bundles[0].skills``; names that are not bare keys are quoted."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = (
                part
                if re.fullmatch(r"[A-Za-z0-9_-]+", part)
                else json.dumps(part, ensure_ascii=False)
            )
            out += f".{text}" if out else text
    return out


# -- small helpers ---------------------------------------------------------------------------

_NUL_MESSAGE = "contains a NUL character, which no file name can hold"


def _type_problem(spec: schema.Key, value: Any) -> str | None:
    def strings(items: Iterable[Any]) -> bool:
        return all(isinstance(i, str) for i in items)

    checks: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "string-list": lambda v: isinstance(v, list) and strings(v),
        "string-map": lambda v: isinstance(v, dict) and strings(v.values()),
        "string-or-list": lambda v: isinstance(v, str) or (isinstance(v, list) and strings(v)),
        "scalar-map": lambda v: (
            isinstance(v, dict) and all(isinstance(i, (str, int, float, bool)) for i in v.values())
        ),
        "table-map": lambda v: isinstance(v, dict),
        "table-list": lambda v: isinstance(v, list),
    }
    if checks[spec.kind](value):
        return None
    kind = schema.KIND_TEXT[spec.kind]
    article = "an" if kind[0] in "aeiou" else "a"
    return f"must be {article} {kind} (got {_toml_type(value)})"


def _toml_type(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "float"), (str, "string")):
        if isinstance(value, kind):
            return name
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _did_you_mean(name: str, candidates: Sequence[str]) -> str:
    import difflib  # only when a name is wrong

    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.8)
    if not close:
        # a prefix or a different separator is a typo too ("body_file", "mcp_servers")
        close = [c for c in candidates if c.replace("-", "_") == name.replace("-", "_")]
    if close:
        return f'; did you mean "{close[0]}"?'
    return (
        f" (known keys: {', '.join(candidates)})" if candidates else " (this table takes no keys)"
    )


def _moved_by_sources(sources: Any, target: str) -> str | None:
    """Where hatchling's ``sources`` option (the TOML value) puts *target*, or None when it
    stays (hatchling: ``BuildConfig.get_distribution_path``; a list maps each to ``""``)."""

    def directory(path: str) -> str:
        path = path.replace("\\", "/").strip("/")
        return "" if path in ("", ".") else path + "/"

    if isinstance(sources, list):
        mapping = {directory(s): "" for s in sources if isinstance(s, str) and s}
    elif isinstance(sources, dict):
        mapping = {
            (directory(k) if k else ""): directory(v)
            for k, v in sources.items()
            if isinstance(v, str)
        }
    else:
        return None
    for source, replacement in sorted(mapping.items()):
        if not source:
            moved = replacement + target
        elif target.startswith(source):
            moved = target.replace(source, replacement, 1)
        else:
            continue
        return moved if moved != target else None
    return None


# The distribution name a PEP 508 requirement starts with (what follows is not needed here;
# packaging's parser would cost a build through agenttools_hook.backend a tenth of its time).
_REQUIREMENT_NAME_RE = re.compile(
    r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:$|[\[(;@<>=!~])"
)


def _requirement_name(requirement: object) -> str | None:
    if not isinstance(requirement, str):
        return None
    match = _REQUIREMENT_NAME_RE.match(requirement)
    return names.canonical_dist_name(match.group(1)) if match else None


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _items(value: Any) -> list[Any]:
    """The items of a TOML array; nothing for a value of another type (reported on its own
    where the schema defines the key)."""
    return value if isinstance(value, list) else []


def _table(value: Any) -> dict[str, Any]:
    """A TOML table; empty for a value of another type (reported on its own)."""
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    """The string items of a TOML array (a bundle's ``skills``, ``mcp-servers``)."""
    return [item for item in _items(value) if isinstance(item, str)]


def _is_file(path: Path) -> bool:
    """``Path.is_file``, and False for a path the system cannot look up at all (a name too
    long, a NUL: values of the file being checked)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    """``Path.is_dir``, and False for a path the system cannot look up at all."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _is_inside(path: Path, root: Path) -> bool:
    path, root = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    return path == root or root in path.parents


def _problem_order(problem: Problem) -> tuple[str, int, str]:
    return (str(problem.path), problem.line or 0, problem.code)


# Environments over which two bundle markers are tested for overlap: every combination of
# the platforms, interpreters and versions a wheel realistically meets.
def _marker_environments() -> list[dict[str, str]]:
    platforms = [
        {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"},
        {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"},
        {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt"},
    ]
    machines = ["x86_64", "aarch64", "arm64", "AMD64", "ARM64"]
    implementations = [("cpython", "CPython"), ("pypy", "PyPy")]
    envs = []
    for platform in platforms:
        for machine in machines:
            for impl, impl_name in implementations:
                for minor in range(8, 16):
                    version = f"3.{minor}"
                    envs.append(
                        {
                            **platform,
                            "platform_machine": machine,
                            "implementation_name": impl,
                            "platform_python_implementation": impl_name,
                            "python_version": version,
                            "python_full_version": f"{version}.0",
                            "implementation_version": f"{version}.0",
                            "platform_release": "",
                            "platform_version": "",
                            "extra": "",
                        }
                    )
    return envs


def _markers_overlap(first: str | None, second: str | None) -> bool:
    """Whether two bundle markers (None: always) can both hold on one system."""
    from packaging.markers import InvalidMarker, Marker

    try:
        markers = [Marker(m) if m else None for m in (first, second)]
    except InvalidMarker:
        return False  # reported on its own
    return any(all(_holds(m, env) for m in markers) for env in _marker_environments())


def _holds(marker: Any, environment: dict[str, str]) -> bool:
    """Whether *marker* (None: always) holds in *environment*; one that cannot be evaluated
    is false, as at run time (and reported on its own)."""
    from packaging.markers import UndefinedComparison, UndefinedEnvironmentName

    try:
        return marker is None or bool(marker.evaluate(environment))
    except (UndefinedComparison, UndefinedEnvironmentName):
        return False
