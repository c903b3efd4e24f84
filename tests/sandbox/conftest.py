"""Fixtures for the sandbox tests (helpers live in sbhelpers.py)."""

from __future__ import annotations

import pytest
from sbhelpers import LEVELS, make


@pytest.fixture(params=LEVELS)
def sb(request):
    return make(request.param)
