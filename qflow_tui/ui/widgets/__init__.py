"""Widgets of the app, one concept per module."""
