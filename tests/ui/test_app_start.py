"""The app as the CLI runs it (`run`, which sets `settle_memory`): once the first screen is painted
it collects once, freezes what lives on (later full collections no longer walk
every module and class: they stalled a run's loop 60-80 ms each) and turns the
collector on again; an app built for a test process leaves the collector alone."""

from __future__ import annotations

import gc

from ui_app import SIZE, build_app


async def test_the_cli_app_freezes_what_lives_on_once_painted():
    frozen = gc.get_freeze_count()
    gc.disable()  # as qflow's main() leaves it
    try:
        app = build_app()
        app.settle_memory = True  # as QFlowApp.run sets it
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert gc.isenabled()
            assert gc.get_freeze_count() > frozen + 10_000  # modules, classes, the app and its form
            assert not app.settle_memory  # once
    finally:
        gc.unfreeze()
        gc.enable()


def test_run_is_the_way_in_that_settles_memory(monkeypatch):
    from textual.app import App

    seen = []
    monkeypatch.setattr(App, "run", lambda app, *a, **k: seen.append(app.settle_memory))
    app = build_app()
    assert not app.settle_memory
    app.run()
    assert seen == [True]


async def test_an_app_for_tests_leaves_the_collector_alone(monkeypatch):
    # Spied on, not counted: the frozen count also falls as frozen objects die.
    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("freeze"))
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert frozen == []
        assert gc.isenabled()


async def test_the_tests_editor_is_highlighted_once_the_form_is_up():
    # Its grammar is loaded one frame after the first paint, not before it.
    from textual.widgets import TextArea

    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tests = app.screen.query_one("#tests", TextArea)
        assert tests.language == "python" and tests.is_syntax_aware
        assert app.screen.query_one("#statement", TextArea).language is None  # prose stays plain


async def test_the_app_starts_in_its_dark_theme_with_the_stylesheet_parsed_once(monkeypatch):
    # Setting App.theme at start-up made Textual parse every stylesheet again before
    # the first paint (13 ms of the launch); the first theme is chosen without it.
    from textual.color import Color
    from textual.css.stylesheet import Stylesheet

    reparsed: list[str] = []
    reparse = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda sheet: (reparsed.append("reparse"), reparse(sheet))[1])
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert reparsed == []
        theme = app.current_theme
        assert theme.name == "qflow-dark" and app.has_class("-theme-qflow-dark", "-dark-mode")
        assert app.screen.styles.background == Color.parse(theme.background)  # its colours, not Textual's default
        await pilot.press("f3")  # and switching still restyles
        await pilot.pause()
        assert app.theme == "qflow-light" and app.has_class("-light-mode") and not app.has_class("-dark-mode")
        assert app.screen.styles.background == Color.parse(app.current_theme.background)


async def test_a_light_theme_from_the_settings_is_the_first_screens_theme():
    from textual.color import Color

    from qflow_tui.core.config import RunConfig

    app = build_app(config=RunConfig(theme="qflow-light"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "qflow-light" and app.has_class("-light-mode")
        assert app.screen.styles.background == Color.parse(app.current_theme.background)
