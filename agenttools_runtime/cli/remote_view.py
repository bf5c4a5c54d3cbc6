"""``show DIST --index`` and ``list --index``: what a package index offers, read from its wheels'
manifests (``agenttools_runtime/envs/remote.py``); nothing is installed."""

from __future__ import annotations

import argparse
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.cli.common import UsageError, emit
from agenttools_runtime.cli.index_options import options_from_args, split_tools


def run_show_index(args: argparse.Namespace) -> int:
    from packaging.requirements import Requirement

    from agenttools_runtime.envs import http, remote
    from agenttools_runtime.envs.requirement import parse_request

    text, bundle = split_tools(args.name)
    request = parse_request(text)
    timeout = http.timeout_from_environment()
    options = options_from_args(args)
    if request.kind == "directory":
        raise UsageError("show --index reads a wheel: give a distribution or a wheel file")
    if request.kind == "wheel" and request.path is not None:
        from packaging.version import Version

        from agenttools_runtime.envs.simple import IndexFile

        item = IndexFile(
            request.path.name, request.path.as_uri(), None, False, str(request.path.parent)
        )
        wheel = remote.RemoteWheel(request.name, Version(request.pinned_version or "0"), item)
    else:
        wheel = remote.find_wheel(
            request.requirement or Requirement(request.name), options, timeout=timeout
        )
    found = remote.read_distribution(wheel, timeout=timeout)
    data = _remote_json(found, bundle)
    if found.manifest is None:
        emit(args, {"ok": False, **data}, f"{wheel.name} {wheel.version} ships no agent tools.")
        return 1
    emit(args, {"ok": True, **data}, lambda: _render_remote(data))
    return 0


def _remote_json(found: Any, bundle: str | None) -> dict[str, Any]:
    from agenttools_runtime.envs.index import redact

    wheel = found.wheel
    data: dict[str, Any] = {
        "distribution": wheel.name,
        "version": str(wheel.version),
        "wheel": wheel.file.filename,
        "sha256": wheel.file.sha256,
        "index": redact(wheel.file.source),
        "bundles": [],
        "mcp_servers": {},
        "skills": {},
    }
    manifest = found.manifest
    if manifest is None:
        return data
    bundles = manifest.declared_bundles(wheel.name)
    if bundle is not None:
        bundles = [b for b in bundles if b.name == bundle]
        if not bundles:
            raise errors.AgentToolsNotFound(
                name=f"{wheel.name}/{bundle}", environment=f"the wheel {wheel.file.filename}"
            )
    data["bundles"] = [b.to_json() for b in bundles]
    data["mcp_servers"] = {n: s.to_json() for n, s in manifest.servers.items()}
    data["skills"] = {
        n: {"description": s.description, "files": len(s.files)} for n, s in manifest.skills.items()
    }
    return data


def _render_remote(data: dict[str, Any]) -> str:
    lines = [
        f"{data['distribution']} {data['version']} ({data['wheel']} on {data['index']}; not installed)"
    ]
    for b in data["bundles"]:
        lines.append(
            f"bundle {data['distribution']}/{b['name']}"
            + (f": {b['description']}" if b.get("description") else "")
        )
        for server in b["mcp-servers"]:
            declaration = data["mcp_servers"].get(server.rpartition("/")[2], {})
            runs = [k for k in ("module", "script", "command", "url") if k in declaration]
            how = f"{runs[0]} {declaration[runs[0]]}" if runs else ""
            lines.append(f"  MCP server {server}: {how}".rstrip())
        for skill in b["skills"]:
            about = data["skills"].get(skill.rpartition("/")[2], {})
            lines.append(f"  skill {skill}: {about.get('description', '')}".rstrip())
    return "\n".join(lines)


def run_list_index(args: argparse.Namespace) -> int:
    from agenttools_runtime.envs import http, remote

    options = options_from_args(args)
    found, failed = remote.list_index(options, timeout=http.timeout_from_environment())
    rows = [_remote_json(f, None) for f in found]
    problems = [{"distribution": name, "problem": str(exc)} for name, exc in failed]

    def text() -> str:
        if not rows and not problems:
            return f"No distribution on {options.describe()} ships agent tools."
        lines = ["BUNDLE  VERSION  MCP SERVERS  SKILLS"]
        for row in rows:
            for b in row["bundles"]:
                lines.append(
                    f"{row['distribution']}/{b['name']}  {row['version']}  "
                    f"{', '.join(b['mcp-servers']) or '-'}  {', '.join(b['skills']) or '-'}"
                )
        if problems:
            lines += ["", "Distributions with problems:"]
            lines += [f"  {p['distribution']}: {p['problem']}" for p in problems]
        return "\n".join(lines)

    data = {"ok": True, "index": options.describe(), "distributions": rows, "problems": problems}
    emit(args, data, text)
    return 0
