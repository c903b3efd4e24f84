"""Screens of the app: compose, run, and (from the sessions side) sessions and replay."""
