"""Shared, session-scoped test set-ups: sample wheels (wheels.py) and venvs (venvs.py)."""
