"""Adversarial tests of the day's changes (regression tests once they pass)."""
