"""What ``agenttools show`` prints of a bundle: its details as data (``--json``) and as text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools_runtime.bundles import AgentTools


def bundle_details(bundle: AgentTools) -> dict[str, Any]:
    """Everything ``show`` prints: the bundle's data with ``mcp_servers`` and ``skills`` as
    objects, each server resolved (command line in its environment), each skill resolved and
    verified. An item that fails to resolve carries
    its ``problem`` instead of raising."""
    from agenttools_runtime import __version__
    from agenttools_runtime.errors import AgentToolsError
    from agenttools_runtime.skill_sources import skill_source

    data = bundle.to_json()
    if isinstance(data["location"], dict):
        data["version"] = data["location"]["version"]
    elif bundle.is_builtin:
        data["version"] = __version__
    servers: list[dict[str, Any]] = []
    for spec, name in zip(bundle.mcp_servers, bundle.server_names, strict=True):
        try:
            server = bundle.server(spec)
        except AgentToolsError as exc:
            servers.append({"name": name, "problem": str(exc)})
            continue
        entry: dict[str, Any] = {
            "name": name,
            "description": server.description,
            "kind": server.kind,
            "config_key": server.key,
        }
        if server.url is not None:
            entry.update(url=server.url, transport=server.transport, headers=dict(server.headers))
        else:
            entry["command"] = server.command_line()
        if server.env:
            entry["env"] = dict(server.env)
        if server.settings:
            entry["settings"] = [setting_json(s) for s in server.settings]
        servers.append(entry)
    skills: list[dict[str, Any]] = []
    for skill_spec, name in zip(bundle.skills, bundle.skill_names, strict=True):
        try:
            source = skill_source(bundle, skill_spec)
        except AgentToolsError as exc:
            skills.append({"name": name, "problem": str(exc)})
            continue
        skills.append(
            {
                "name": name,
                "skill": source.name,
                "description": source.description,
                "identifier": source.identifier,
                "version": source.version,
                "directory": str(source.directory) if source.directory else None,
                "files": list(source.files),
                "executable": sorted(source.executable),
            }
        )
    return {**data, "mcp_servers": servers, "skills": skills}


def render_show(d: dict[str, Any]) -> str:
    import shlex

    kind = "MCP server" if d["toolset_type"] == "MCPServer" else "bundle"
    location = d["location"]
    if isinstance(location, dict):
        editable = ", editable" if location["editable"] else ""
        where = f"{kind} of {location['distribution']} {location['version']}{editable}"
    elif location == "builtin":
        where = f"built-in {kind} of agenttools {d.get('version', '')}".rstrip()
    else:
        where = f"ad hoc {kind}"
    lines = [f"{d['qualified_name']}  ({where})"]
    if d["description"]:
        lines.append(f"  {d['description']}")
    if isinstance(location, dict):
        lines.append(f"  installed: {location['dist_info']}")
    if d["marker"]:
        lines.append(f"  marker: {d['marker']}")
    servers = d["mcp_servers"]
    lines += ["", f"MCP servers ({len(servers)}):" if servers else "MCP servers: none"]
    for s in servers:
        lines.append(f"  {s['name']}" + (f": {s['description']}" if s.get("description") else ""))
        if s.get("problem"):
            lines.append(f"    problem: {s['problem']}")
            continue
        if "command" in s:
            lines.append(f"    command: {shlex.join(s['command'])}")
        else:
            lines.append(f"    url: {s['url']} ({s['transport']})")
        for key, value in sorted(s.get("env", {}).items()):
            lines.append(f"    env: {key}={value}")
        for setting in s.get("settings", ()):
            lines.append(f"    setting: {render_setting(setting)}")
        lines.append(f"    config key: {s['config_key']}")
    lines += ["", f"Skills ({len(d['skills'])}):" if d["skills"] else "Skills: none"]
    for s in d["skills"]:
        lines.append(f"  {s['name']}")
        if s.get("problem"):
            lines.append(f"    problem: {s['problem']}")
            continue
        lines.append(f"    {s['description']}")
        version = f", version {s['version']}" if s["version"] else ""
        lines.append(f"    identity: {s['identifier'] or '(none)'}{version}")
        if s["directory"]:
            lines.append(f"    source: {s['directory']}")
        files = [f + (" (executable)" if f in s["executable"] else "") for f in s["files"]]
        lines.append(f"    files: {', '.join(files)}")
    return "\n".join(lines)


def setting_json(setting: Any) -> dict[str, Any]:
    """A declared setting as ``show --json`` gives it (never a value: it has none)."""
    return {
        "name": setting.name,
        "kind": setting.kind,
        "description": setting.description,
        "required": setting.required,
        "secret": setting.secret,
        "default": setting.default,
        "choices": list(setting.choices),
    }


def render_setting(s: dict[str, Any]) -> str:
    """``API_KEY (env, required, secret): the key``, ``UNITS (env): one of metric, imperial;
    default metric``."""
    traits = [{"env": "env", "header": "header"}.get(s["kind"], "argument")]
    traits += [t for t in ("required", "secret") if s[t]]
    text = f"{s['name']} ({', '.join(traits)})"
    if s["description"]:
        text += f": {s['description']}"
    hints = []
    if s["choices"]:
        hints.append(f"one of {', '.join(s['choices'])}")
    if s["default"] is not None:
        hints.append(f"default {s['default']}")
    return text + (f" [{'; '.join(hints)}]" if hints else "")


TOOLS_TIMEOUT = 30.0  # seconds for one server to start and list what it offers


def offered(bundle: AgentTools, given: Any) -> list[dict[str, Any]]:
    """What each server of *bundle* offers (``show --tools``): its tools, prompts and
    resources, listed by starting it (stdio servers; a remote one is not contacted), or the
    problem that stopped it. *given*: setting values by server name (a secret's is never
    printed)."""
    from agenttools_runtime.errors import AgentToolsError
    from agenttools_runtime.mcp.probe import ProbeFailed, probe
    from agenttools_runtime.settings.secrets import mask

    found: list[dict[str, Any]] = []
    for spec, name in zip(bundle.mcp_servers, bundle.server_names, strict=True):
        item: dict[str, Any] = {"name": name}
        found.append(item)
        try:
            server = bundle.server(spec)
        except AgentToolsError as exc:
            item["problem"] = str(exc)
            continue
        if server.is_remote:
            item["note"] = f"a remote server ({server.url}): not contacted"
            continue
        values = dict(given.get(server.name, {}))
        for setting in server.settings:
            if setting.name not in values and setting.default is not None:
                values[setting.name] = setting.default
        configured = server.configured(values)
        secrets = [values[s.name] for s in server.settings if s.secret and s.name in values]
        try:
            result = probe(
                configured.command_line(), dict(configured.env), TOOLS_TIMEOUT, listing=True
            )
        except ProbeFailed as exc:
            item["problem"] = str(mask(f"it did not start: {exc}", secrets))
            continue
        item["server_info"] = dict(result.server_info)
        for kind in ("tools", "prompts", "resources"):
            item[kind] = [dict(i) for i in result.listed.get(kind, [])]
    return found


def render_offered(offers: list[dict[str, Any]]) -> str:
    """``show --tools`` as text: per server, one line per tool, prompt and resource."""
    lines = []
    for item in offers:
        lines.append(item["name"])
        label = "problem" if item.get("problem") else "note"
        if item.get(label):
            lines.append(f"  {label}: {item[label]}")
            continue
        for kind, key in (("tools", "name"), ("prompts", "name"), ("resources", "uri")):
            entries = item.get(kind, [])
            lines.append(f"  {kind} ({len(entries)}):" if entries else f"  {kind}: none")
            for entry in entries:
                text = entry.get("description") or entry.get("name") or ""
                lines.append(
                    f"    {entry.get(key)}" + (f": {text}" if text != entry.get(key) else "")
                )
    return "\n".join(lines)
