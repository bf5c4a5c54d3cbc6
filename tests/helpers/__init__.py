"""Shared, session-scoped test set-ups: sample wheels (wheels.py) and venvs (venvs.py), built
once per run; the test cache kept across runs and the run-wide directory (cache.py)."""
