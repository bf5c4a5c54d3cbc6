"""The build hook: ``[tool.agenttools]`` validated and bundled into the wheel's ``.dist-info``.

Wheel target: validate (any error fails the build with one exception listing every problem),
then hand hatchling, through ``build_data["extra_metadata"]``, ``agenttools/manifest.json`` and
``agenttools/skills/<name>/…`` (generated files staged in a temporary directory, never in the
source tree or the output directory). Each file is mapped on its own, which hatchling never
filters (a mapped directory would be walked through the exclude and ``.gitignore`` patterns,
and dropped entirely in exclude-all mode). ``finalize()`` opens the finished wheel and fails
the build if any expected file is missing or differs.

Sdist target: force-include every skill file and ``body-file`` so that a wheel built from the
sdist carries the same manifest, and the MCP registry's ``server.json`` of a server that
declares ``registry`` (:mod:`agenttools_runtime.export.server_json`). Other targets: nothing.

The files come from :func:`agenttools_runtime.wheel.contents.members` (as for the wrapping
backend and ``agenttools bundle``); this module only talks to hatchling.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from agenttools_hook.errors import AgentToolsBuildError
from agenttools_runtime.wheel import layout

if TYPE_CHECKING:  # imported when a build runs: hatchling loads this module for every build
    from agenttools_runtime.project import BuildPlan, Project

__all__ = ["AgentToolsBuildError", "AgentToolsBuildHook"]

MANIFEST = f"{layout.AGENTTOOLS}/{layout.MANIFEST}"  # its extra_metadata target


class AgentToolsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Hatchling build hook ``agenttools`` (``[tool.hatch.build.hooks.agenttools]``)."""

    PLUGIN_NAME = "agenttools"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._staging: Path | None = None
        # extra_metadata-relative path -> (size, CRC-32) of the bytes checked and hashed
        self._expected: dict[str, tuple[int, int]] = {}

    # hatchling's interface -------------------------------------------------------------------
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        # hatchling runs one hook instance for every version of a target (standard, editable)
        self._cleanup()
        self._expected = {}
        if self.target_name not in ("wheel", "sdist"):
            return
        try:
            if self.target_name == "sdist":
                self._initialize_sdist(build_data)
            else:
                self._initialize_wheel(version, build_data)
        except AgentToolsBuildError as exc:
            self._cleanup()
            # what pip users read is the end of the traceback: keep our frames out of it
            raise exc.with_traceback(None) from None
        except BaseException:
            self._cleanup()
            raise

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        try:
            if self.target_name == "wheel" and self._expected:
                self._verify_wheel(Path(artifact_path))
        finally:
            self._cleanup()

    # wheel -----------------------------------------------------------------------------------
    def _initialize_wheel(self, version: str, build_data: dict[str, Any]) -> None:
        from agenttools_runtime.wheel.contents import members

        project = self._project()
        if project is None:
            return
        editable = version == "editable"
        plan = self._plan(project, source_root=project.root if editable else None)
        mapping: dict[str, str] = {}
        for member in members(plan):
            # a project file is handed over as itself (hatchling's API takes paths: it reads
            # the file once more, to copy it); generated files are staged
            source = member.source
            if source is None or str(source) in mapping:
                source = self._stage(member.target, member.data, member.mode)
            mapping[str(source)] = member.target
            self._expected[member.target] = (len(member.data), zlib.crc32(member.data))
        config: Any = self.build_config  # None for a hook constructed directly (tests)
        moved = MANIFEST if config is None else config.get_distribution_path(MANIFEST)
        if moved != MANIFEST:
            # hatchling applies `sources` to extra-metadata (and force-included) targets too,
            # so no mapping can put the files where installers and the runtime look
            raise AgentToolsBuildError(
                f"{project.pyproject}: the wheel's `sources` option would move the agenttools "
                f"files inside .dist-info/extra_metadata/ ({MANIFEST} -> {moved}), where "
                'nothing finds them; map a named directory instead of "" '
                '(e.g. sources = {"src" = ""}) or list the packages with `packages`'
            )
        if "extra_metadata" in build_data:
            build_data["extra_metadata"].update(mapping)
        else:  # hatchling < 1.12: place the files under .dist-info ourselves
            dist_info = f"{self.build_config.builder.artifact_project_id}.dist-info"
            for staged, target in mapping.items():
                build_data["force_include"][staged] = f"{dist_info}/extra_metadata/{target}"

    def _stage(self, target: str, data: bytes, mode: int) -> Path:
        if self._staging is None:
            self._staging = Path(tempfile.mkdtemp(prefix="agenttools-build-"))
        path = self._staging.joinpath(*target.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)
        return path

    def _verify_wheel(self, wheel: Path) -> None:
        """Every file the manifest describes is in *wheel* with the bytes checked: the size
        and CRC-32 of each member, from the archive's directory (no member is read)."""
        with zipfile.ZipFile(wheel) as archive:
            entries = {entry.filename: entry for entry in archive.infolist()}
        dist_info = next(
            (n.rsplit("/", 1)[0] for n in entries if n.endswith(".dist-info/RECORD")), None
        )
        prefix = f"{dist_info}/extra_metadata/"
        problems = []
        for target, (size, crc) in sorted(self._expected.items()):
            entry = entries.get(prefix + target)
            if entry is None:
                problems.append(f"  {prefix + target}: missing")
            elif (entry.file_size, entry.CRC) != (size, crc):
                problems.append(f"  {prefix + target}: content differs from the manifest")
        if problems:
            raise AgentToolsBuildError(
                f"The wheel {wheel.name} lacks agenttools files it must carry (a hatchling "
                "option such as exclude, only-include or sources may have dropped them):\n"
                + "\n".join(problems)
            )

    # sdist -----------------------------------------------------------------------------------
    def _initialize_sdist(self, build_data: dict[str, Any]) -> None:
        project = self._project()
        if project is None:
            return
        plan = self._plan(project, source_root=None)
        root = project.root
        force_include = build_data.setdefault("force_include", {})
        # (hatchling pre-fills pyproject.toml; kept even if a future version does not)
        for source in (root / "pyproject.toml", *plan.sources):
            rel = Path(os.path.relpath(source, root)).as_posix()
            force_include.setdefault(str(source), rel)
        self._include_server_json(plan, project, force_include)

    def _include_server_json(
        self, plan: BuildPlan, project: Project, force_include: dict[str, str]
    ) -> None:
        """The MCP registry's server.json of a server that declares a registry entry."""
        if not plan.registries:
            return
        from agenttools_runtime.export.server_json import FILE_NAME, server_json_bytes

        data = server_json_bytes(plan, project.data.get("project") or {})
        if data is None:
            return
        force_include[str(self._stage(FILE_NAME, data, 0o644))] = FILE_NAME

    # shared ----------------------------------------------------------------------------------
    def _project(self) -> Project | None:
        """The loaded project, or None (with a message) when ``[tool.agenttools]`` is absent."""
        from agenttools_runtime.project import MISSING_CONFIG, Problem, load_project

        config = getattr(self.metadata, "config", None)  # (no metadata: a hook made by a test)
        project = load_project(Path(self.root), config)
        if isinstance(project, Problem):
            raise AgentToolsBuildError(project.format(Path(self.root))) from None
        if project.config is None:
            self._warn(f"agenttools: {MISSING_CONFIG}")
            return None
        return project

    def _plan(self, project: Project, source_root: Path | None) -> BuildPlan:
        from agenttools_runtime.project import ProjectInvalid, build_manifest

        metadata: Any = self.metadata  # (None for a hook constructed directly: tests)
        version = "0" if metadata is None else str(metadata.version)
        try:
            plan = build_manifest(project, version, source_root=source_root)
        except ProjectInvalid as exc:
            raise AgentToolsBuildError(str(exc)) from None
        for problem in plan.warnings:
            self._warn(problem.format(project.root))
        return plan

    def _warn(self, message: str) -> None:
        app = getattr(self, "app", None)
        if app is not None:
            app.display_warning(message)

    def _cleanup(self) -> None:
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None
