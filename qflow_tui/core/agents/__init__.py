"""Agents and helpers more than one workflow uses (a workflow's own agents live in its package)."""
