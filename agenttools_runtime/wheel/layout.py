"""Where agenttools' files live inside a wheel's (and an installed distribution's)
``.dist-info``: everything under ``extra_metadata/agenttools/``, which the build hook fills
through hatchling's ``extra_metadata`` build data and installers copy and list in ``RECORD``::

    <name>-<version>.dist-info/extra_metadata/agenttools/
        manifest.json                       wheel/manifest.py
        skills/<skill>/<relative path>      every file of every skill of the distribution
"""

from __future__ import annotations

import os

EXTRA_METADATA = "extra_metadata"  # hatchling's directory inside .dist-info
AGENTTOOLS = "agenttools"  # ours, inside it

# relative to the agenttools directory
MANIFEST = "manifest.json"
SKILLS = "skills"

# relative to the .dist-info directory
AGENTTOOLS_DIR = f"{EXTRA_METADATA}/{AGENTTOOLS}"
MANIFEST_FILE = f"{AGENTTOOLS_DIR}/{MANIFEST}"
SKILLS_DIR = f"{AGENTTOOLS_DIR}/{SKILLS}"

# appended to a dist-info path by the scan of every distribution (os.path.join there is a
# third of its time, so the suffix is joined once)
MANIFEST_SUFFIX = os.sep + os.path.join(EXTRA_METADATA, AGENTTOOLS, MANIFEST)


def skill_file(skill: str, rel: str) -> str:
    """One file of a skill, relative to the agenttools directory: ``skills/<skill>/<rel>``
    (*rel* is ``/``-separated)."""
    return f"{SKILLS}/{skill}/{rel}"
