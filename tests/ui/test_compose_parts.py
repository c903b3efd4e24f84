"""The compose form's parts that hold no widget: the lines said above the
form (compose_notices.py)."""

from __future__ import annotations

import pytest

from qflow_tui.ui.screens import compose_notices
from qflow_tui.ui.screens.compose_notices import MAX_NOTICES, notice_lines


@pytest.fixture
def refused(monkeypatch):
    def plugins(workflows: int, providers: int) -> None:
        monkeypatch.setattr(compose_notices, "broken_plugins", lambda: [f"wf{i}: broke" for i in range(workflows)])
        monkeypatch.setattr(compose_notices, "broken_providers", lambda: [f"pr{i}: broke" for i in range(providers)])

    return plugins


def test_the_sandbox_comes_first_and_the_plugins_are_counted_past_the_room(refused):
    refused(3, 2)
    sandbox = ["✗ weak sandbox: at rlimits only"]
    lines, whole = notice_lines(sandbox)
    assert len(lines) == MAX_NOTICES and lines[0] == sandbox[0]
    assert lines[1:3] == ["✗ workflow plugin not loaded: wf0: broke", "✗ workflow plugin not loaded: wf1: broke"]
    assert lines[-1] == "✗ 3 more plugins not loaded: `qflow doctor` says why"
    # The tooltip has every line whole.
    assert whole.splitlines() == [*sandbox, *(f"✗ workflow plugin not loaded: wf{i}: broke" for i in range(3))] + [
        f"✗ provider plugin not loaded: pr{i}: broke" for i in range(2)
    ]


def test_plugins_that_fit_are_all_named(refused):
    refused(1, 1)
    lines, whole = notice_lines([])
    assert lines == ["✗ workflow plugin not loaded: wf0: broke", "✗ provider plugin not loaded: pr0: broke"]
    assert whole == "\n".join(lines)
    refused(0, 0)
    assert notice_lines([]) == ([], "")
