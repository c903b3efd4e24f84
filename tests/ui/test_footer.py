"""The footer is rebuilt when the keys it offers change, and only then: Textual
asks for a rebuild at every focus move, screen resume and binding refresh
(nineteen times in one run of MBPP 11), most of which offer the same keys. It
shows whole keys that fit its width, then ``…`` where some are left out, and the
palette hint only where it covers no key."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.geometry import Size
from ui_app import SIZE, WIDE, build_app, replay_app
from ui_fakes import FreezingClient, load_responder
from ui_steps import finish_run, run_the_example_streaming, start_run, wait_until

from qflow_tui.commands.demo import demo_session
from qflow_tui.ui.widgets.footer import AppFooter, fit, key_width


def shown(footer: AppFooter) -> list[str]:
    return [str(key.description) for key in footer.shown_keys()]


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


def footer_line(app: Any, width: int | None = None) -> str:
    """The footer's line as a user sees it (at ``width`` columns: the screen's
    last layout, when it differs from the app's size)."""
    width, height = (width or app.size[0]), app.size[1]
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False).splitlines()[-1].rstrip()


def test_the_fit_shows_every_key_then_the_hint_or_whole_keys_and_the_ellipsis():
    assert fit([5, 5], 4, 14) == (2, "hint")
    assert fit([5, 5], 4, 13) == (2, "more")  # the hint would sit over the last key: "…" stands for it
    assert fit([5, 5], 4, 11) == (1, "more")  # no room for "…" after both: a key gives way
    assert fit([5, 5], 0, 14) == (2, "")  # no palette, no hint
    assert fit([5, 5, 5], 4, 14) == (2, "more")  # two whole keys and the 2 cells of "…"
    assert fit([12], 4, 10) == (0, "more")
    assert key_width("^q", "Quit") == 8 and key_width("…", "") == 2


@pytest.mark.parametrize("width", [60, 80, 100, 120, 130, 160])
async def test_the_footer_shows_whole_keys_and_never_covers_one(width: int):
    app = replay_app(demo_session())
    async with app.run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.screen.query_one(AppFooter)
        bindings = {b.description: b for (_n, b, _e, _t) in app.screen.active_bindings.values() if b.show}
        line = footer_line(app)
        assert len(line) <= width
        on_show = footer.shown_keys()
        keys = [k for k in on_show if not (k.has_class("-more") or k.has_class("-hint"))]
        more = [k for k in on_show if k.has_class("-more")]
        hint = [k for k in on_show if k.has_class("-hint")]
        for key in keys:  # each shown key's label is on the line, whole
            assert f"{app.get_key_display(bindings[key.description])} {key.description}" in line, (key, line)
        # Keys or the hint left out: "…" stands for them; else the hint ends the line.
        assert bool(more) != bool(hint), line
        if more:
            assert line.endswith("…") and "▏" not in line, line
        if len(keys) < len({b.action for b in bindings.values()}):
            assert more, line
        if hint:
            # One blank cell at least between the last key's label and the hint's border.
            head, _, tail = line.rpartition("▏")
            assert head.endswith(" ") and tail.strip() == "^p palette", line
        if width >= 160:
            assert hint, line  # room for every key and the hint


async def test_a_resize_fits_the_footer_again():
    app = replay_app(demo_session())
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        assert "▏^p palette" in footer_line(app)
        await pilot.resize_terminal(90, 30)
        await pilot.pause()
        await pilot.pause()
        narrow = footer_line(app)
        assert narrow.endswith("…") and "▏" not in narrow, narrow
        await pilot.resize_terminal(160, 30)
        await pilot.pause()
        await pilot.pause()
        assert "▏^p palette" in footer_line(app)


def whole_keys_then_the_end(app: Any, line: str) -> None:
    """``line`` (the footer's) is whole keys of the screen, then ``…`` or the
    palette hint: no key cut at the edge or under the hint."""
    labels = {
        f"{app.get_key_display(b)} {b.description}" for (_n, b, _e, _t) in app.screen.active_bindings.values() if b.show
    }
    if line.endswith("…"):
        head = line[:-1].rstrip()
    else:
        head, bar, tail = line.rpartition("▏")
        assert bar and tail.strip() == "^p palette", f"neither … nor the palette hint ends the footer: {line!r}"
        head = head.rstrip()
    assert not head or any(head.endswith(label) for label in labels), f"a key is cut: {line!r}"


async def test_the_compose_footer_at_80_columns_ends_with_the_ellipsis_for_the_palette():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        line = footer_line(app)
        # Every key of the form fits at 80 columns, the palette hint does not: "…" stands for it.
        assert line.endswith("…") and "palette" not in line, line
        whole_keys_then_the_end(app, line)


async def test_the_first_layout_after_a_resize_fits_the_run_footer():
    client = FreezingClient(load_responder(), "program_generator")
    app = build_app(client, example=False)
    async with app.run_test(size=WIDE) as pilot:
        await run_the_example_streaming(pilot, client)
        await wait_until(pilot, lambda: "Zoom" in footer_line(app), "the run's keys in the footer")
        whole_keys_then_the_end(app, footer_line(app))
        # The frame a terminal shows right after it shrank: the screen laid out at
        # the new size, before any handler (a footer rebuild) had its turn.
        app.screen._refresh_layout(Size(80, 24))
        line = footer_line(app, 80)
        assert len(line) <= 80
        whole_keys_then_the_end(app, line)
        app.screen._refresh_layout(Size(*WIDE))
        whole_keys_then_the_end(app, footer_line(app))
