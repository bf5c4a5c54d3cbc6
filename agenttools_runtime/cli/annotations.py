"""``--format github``: GitHub Actions workflow commands, one ``::error`` line per finding, on
its file (and line) when it has one — what the run's summary and a pull request's diff show."""

from __future__ import annotations

import os

TITLE = "agenttools verify"


def error(message: str, *, file: str | None = None, line: int | None = None) -> str:
    """One ``::error`` command; *file* relative to the current directory when it is inside
    it (the workspace GitHub resolves names against)."""
    properties = []
    if file is not None:
        properties.append(f"file={_property(_workspace_relative(file))}")
        if line is not None:
            properties.append(f"line={line}")
    properties.append(f"title={_property(TITLE)}")
    return f"::error {','.join(properties)}::{_data(message)}"


def _workspace_relative(path: str) -> str:
    if not os.path.isabs(path):
        return path
    here = os.getcwd()
    try:
        inside = os.path.commonpath([here, path]) == here
    except ValueError:  # (another drive)
        return path
    return os.path.relpath(path, here).replace(os.sep, "/") if inside else path


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
