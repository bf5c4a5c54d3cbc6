"""``agenttools clients``: the client table, what each client supports, where its files are."""

from __future__ import annotations

import argparse
from typing import Any

from agenttools_runtime.cli.common import add_command, columns, emit, examples


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "clients",
        run,
        help="list supported AI clients, their files, and which are detected here",
        description=(
            "List every supported AI client: its id (use it as TARGET), what it supports "
            "(MCP servers, skills, project scope), where its MCP config file and skills "
            "directory are, and whether it is detected on this machine, and why: its "
            "executable on PATH, its own folder, its MCP config file or its skills folder "
            "(one no other client shares). Paths that only agenttools created (a deploy made "
            "~/.codex/config.toml) do not count."
        ),
        epilog=examples("agenttools clients", "agenttools clients --os windows --json"),
    )
    parser.add_argument(
        "--os",
        metavar="OS",
        choices=["macos", "windows", "unix", "linux", "darwin", "win32"],
        help="show the locations for another OS (macos, windows, unix)",
    )


def run(args: argparse.Namespace) -> int:
    from agenttools_runtime.clients import all_clients
    from agenttools_runtime.detection import detect_all

    detections = {d.client.id: d for d in detect_all()}
    rows = [
        {**client.to_json(args.os), **detections[client.id].to_json()}
        for client in all_clients().values()
    ]
    emit(args, {"ok": True, "clients": rows}, lambda: _render(rows))
    return 0


def _render(rows: list[dict[str, Any]]) -> str:
    def mark(flag: bool) -> str:
        return "yes" if flag else "-"

    table = [("CLIENT", "NAME", "MCP", "SKILLS", "PROJECT", "DETECTED")]
    for r in rows:
        mcp = r["config_format"] if r["supports_mcp"] and r["mcp_config"] else "-"
        scopes = [("mcp", r["supports_project"]), ("skills", r["supports_project_skills"])]
        project = "+".join(part for part, flag in scopes if flag) or "-"
        skills, detected = mark(bool(r["skills"])), mark(r["detected"])
        table.append((r["id"], r["display_name"], mcp, skills, project, detected))
    lines = [*columns(table), ""]
    for r in rows:
        lines.append(f"{r['id']}:")
        lines.append(f"  mcp config:   {r['mcp_config'] or '(none on this OS)'}")
        lines.append(f"  skills:       {r['skills'] or '(no skills support)'}")
        if r["project_mcp_config"] or r["project_skills"]:
            lines.append(
                f"  project:      mcp {r['project_mcp_config'] or '-'}, "
                f"skills {r['project_skills'] or '-'}"
            )
        lines.append(f"  detected:     {'yes' if r['detected'] else 'no'} ({r['reason']})")
    return "\n".join(lines)
