"""Steering fixtures. The recorded run lives in ``steer_recorded`` (a plain
module, so another folder's ``conftest`` can never shadow it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from steer_recorded import Recorded


@pytest.fixture
def recorded(tmp_path: Path) -> Recorded:
    return Recorded(tmp_path)
