"""UI test fixtures. The shared set-up lives in ``ui_app`` (a plain module, so
that another folder's ``conftest`` can never shadow it when folders run together)."""

from __future__ import annotations

import pytest
from ui_app import build_app


@pytest.fixture
def app_factory():
    return build_app
