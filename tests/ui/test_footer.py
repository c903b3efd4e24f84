"""The footer is rebuilt when the keys it offers change, and only then: Textual
asks for a rebuild at every focus move, screen resume and binding refresh
(nineteen times in one run of MBPP 11), most of which offer the same keys."""

from __future__ import annotations

from typing import Any

import pytest
from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run

from qflow_tui.ui.widgets.footer import AppFooter


def shown(footer: AppFooter) -> list[str]:
    return [str(key.description) for key in footer.query("FooterKey")]


async def test_a_run_rebuilds_the_footer_only_for_new_keys(monkeypatch: pytest.MonkeyPatch):
    builds: list[tuple[Any, ...]] = []
    compose = AppFooter.compose

    def recorded(self: AppFooter):
        yield from compose(self)
        if self._built is not None:
            builds.append(self._built)

    monkeypatch.setattr(AppFooter, "compose", recorded)
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.pause()
        footer = app.screen.query_one(AppFooter)
        # The keys a finished run offers are on show: the rebuilds that matter happened.
        assert "Copy" in shown(footer), shown(footer)
        assert footer._built == footer._offer()
    assert len(builds) >= 3  # the compose form, the run screen, the finished run
    repeats = [i for i in range(1, len(builds)) if builds[i] == builds[i - 1]]
    assert not repeats, f"{len(repeats)} of {len(builds)} rebuilds offered the keys already on show"
