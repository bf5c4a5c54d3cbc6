"""Project state: a consumer project's ``agenttools.toml`` (what it wants) and
``agenttools.lock`` (what that resolved to, and every file and entry a sync writes), and the
commands that act on them — ``add``/``drop`` (editing.py), ``lock`` and ``sync`` (locking.py,
syncing.py), ``verify`` (verifying.py). ``schema.py`` is the file's one typed schema,
``lockfile.py`` the lock's format, ``sources.py`` where the locked wheels come from,
``machine.py`` what this machine records of a project's syncs (outside the project).
"""
