"""What names a PEP 517 backend in ``[tool.agenttools] backend``: a reference as
``build-backend`` takes it, and not agenttools' own wrapping backend. Apart from the schema
because the wrapping backend's ``get_requires_for_build_*`` processes check it and need
nothing else of the schema."""

from __future__ import annotations

import re

# ``build-backend`` of a project built through agenttools' wrapping PEP 517 backend, which
# reads the backend it wraps from ``backend`` (and ``backend-path``).
WRAPPING_BACKEND = "agenttools_hook.backend"
# A PEP 517 backend reference, as build-backend takes it: "module.path" or "module:object".
BACKEND_REFERENCE = r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)?$"


def wrapped_backend_problem(backend: str) -> str | None:
    """Why *backend* (``[tool.agenttools] backend``) cannot be what the wrapping backend builds
    with, else None: it must be a backend reference, and not agenttools itself."""
    if not re.fullmatch(BACKEND_REFERENCE, backend):
        return f'"{backend}" is not a backend ("module" or "module:object")'
    if backend.split(":")[0].split(".")[0] == WRAPPING_BACKEND.split(".")[0]:
        return f'"{backend}" is agenttools itself; name the backend it wraps'
    return None
