"""Config file texts for the MCP tests: per format, a file with unrelated settings and another
server (with or without comments), and the broken variants that must never be rewritten."""

from __future__ import annotations

import json
from typing import Any

from agenttools_runtime.clients import Client
from agenttools_runtime.mcp.entries import container_for

OTHER_SERVER = {"command": "uvx", "args": ["other-mcp"], "env": {"TOKEN": "${TOKEN}"}}


def _nest(path: tuple[str, ...], leaf: Any) -> Any:
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


def existing_text(client: Client, comments: bool) -> str:
    """A realistic file: unrelated settings around a container holding another server."""
    container = container_for(client)
    fmt = client.config_format
    if fmt == "toml":
        head = "# Codex settings\n" if comments else ""
        note = "  # tuned by hand" if comments else ""
        return (
            f'{head}model = "o3"{note}\napproval_policy = "on-request"\n\n'
            '[mcp_servers.other]\ncommand = "uvx"\nargs = ["other-mcp"]\n'
            f"startup_timeout_sec = 30\n{'# keep this one' + chr(10) if comments else ''}\n"
            '[profiles.fast]\nmodel = "gpt-5"\n'
        )
    if fmt == "yaml":
        if container.list_key:  # Continue
            c = "  # the local model" if comments else ""
            return (
                "name: Local Config\nversion: 1.0.0\nschema: v1\n"
                f"{'# models first' + chr(10) if comments else ''}"
                f"models:\n  - name: llama{c}\n    provider: ollama\n"
                "mcpServers:\n  - name: other\n    command: uvx\n    args:\n      - other-mcp\n"
                "rules:\n  - Be concise.\n"
            )
        c = "   # provider" if comments else ""
        return (
            f"{'# Goose config' + chr(10) if comments else ''}"
            f"GOOSE_PROVIDER: openai{c}\nGOOSE_MODEL: 'gpt-4o'\nextensions:\n"
            "  developer:\n    bundled: true\n    enabled: true\n    name: developer\n"
            "    timeout: 300\n    type: builtin\n"
            f"{'  # memory server' + chr(10) if comments else ''}"
            "  other:\n    args:\n    - other-mcp\n    cmd: uvx\n    enabled: false\n"
            "    envs: {}\n    name: other\n    type: stdio\n"
            f"\n{'# more settings' + chr(10) if comments else ''}GOOSE_MODE: smart_approve\n"
        )
    if container.list_key:  # a JSON list root (Augment IDE)
        items = [{"name": "other", **OTHER_SERVER}, {"name": "docs", "url": "https://x"}]
        text = json.dumps(items, indent=2) + "\n"
        if comments:
            text = "// Augment servers\n" + text.replace('"docs"', '"docs" /* remote */')
        return text
    doc: dict[str, Any] = {"theme": "dark", "numStartups": 7}
    doc.update(_nest(container.path, {"other": OTHER_SERVER}))
    doc["projects"] = {"/home/me/app": {"history": [{"display": "fix it"}], "allowedTools": []}}
    text = json.dumps(doc, indent=2) + "\n"
    if comments:
        text = "// settings, edited by hand\n" + text.replace(
            '"theme": "dark",', '"theme": "dark", // dark mode\n  /* block\n     comment */'
        )
        text = text.replace('"allowedTools": []', '"allowedTools": [],')  # a trailing comma
    return text


BROKEN = {
    "json": ('{\n  "mcpServers": {\n    "a": {"command": "x",}\n  \n', (4, 3)),
    "toml": ('model = "o3"\n[mcp_servers.a\ncommand = "x"\n', None),
    "yaml": ("extensions:\n  a: [1, 2\nother: 1\n", None),
}


def only_insertions(before: str, after: str) -> bool:
    """Every character of *before* is still in *after*, in order and unchanged: *after* is
    *before* with text inserted (*before* is a subsequence of *after*)."""
    prefix = _common(before, after)
    suffix = _common(before[prefix:][::-1], after[prefix:][::-1])
    rest = iter(after[prefix : len(after) - suffix])
    return all(ch in rest for ch in before[prefix : len(before) - suffix])


def _common(a: str, b: str) -> int:
    """Length of the common prefix (binary search over slice comparisons: fast on MBs)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def load_jsonc(text: str) -> Any:
    """JSONC → data, independently of the code under test: drop comments and trailing
    commas (what VS Code's and Zed's readers accept), then ``json.loads``."""
    return json.loads(_strip_trailing_commas(text))


def _strip_trailing_commas(text: str) -> str:
    no_comments = _strip_comments(text)
    out: list[str] = []
    i, n = 0, len(no_comments)
    while i < n:
        ch = no_comments[i]
        if ch == '"':
            j = i + 1
            while no_comments[j] != '"':
                j += 2 if no_comments[j] == "\\" else 1
            out.append(no_comments[i : j + 1])
            i = j + 1
            continue
        if ch == "," and no_comments[i + 1 :].lstrip(" \t\r\n")[:1] in ("}", "]"):
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _strip_comments(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            i = text.index("*/", i + 2) + 2
            out.append(" ")
        else:
            out.append(ch)
            i += 1
    return "".join(out)
