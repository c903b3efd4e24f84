"""Issue 57: y said "Program copied" where the terminal drops OSC 52 (tmux
without set-clipboard on, GNU screen, macOS Terminal, the Linux console). It
says so there, and where to get the program instead."""

from __future__ import annotations

from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run

from qflow_tui.ui import clipboard
from qflow_tui.ui.clipboard import clipboard_blocked


def test_where_a_copy_cannot_reach_the_clipboard():
    assert clipboard_blocked({"TERM": "xterm-256color"}) == ""
    assert "set-clipboard on" in clipboard_blocked({"TMUX": "/tmp/tmux-0/default,1,0"}, lambda: "external")
    assert "set-clipboard on" in clipboard_blocked({"TMUX": "/tmp/x,1,0"}, lambda: None)  # cannot ask: not said
    assert clipboard_blocked({"TMUX": "/tmp/x,1,0"}, lambda: "on") == ""
    assert "screen" in clipboard_blocked({"STY": "1234.pts-0.host"})
    assert "macOS Terminal" in clipboard_blocked({"TERM_PROGRAM": "Apple_Terminal"})
    assert "Linux console" in clipboard_blocked({"TERM": "linux"})


async def test_y_says_the_program_was_not_copied_inside_tmux_without_set_clipboard(monkeypatch):
    monkeypatch.setenv("TMUX", "/tmp/tmux-test/default,1,0")
    monkeypatch.setattr(clipboard, "tmux_clipboard_setting", lambda: "external")
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("y")
        await pilot.pause()
        said = app.message_log[-1].message
        assert said.startswith("Not copied to the clipboard: tmux passes a copy on only with"), said
        assert "s saves the program" in said and "Program copied" not in said


async def test_y_says_copied_where_nothing_blocks_it(monkeypatch):
    for name in ("TMUX", "STY", "TERM_PROGRAM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("y")
        await pilot.pause()
        assert app.message_log[-1].message.startswith("Program copied ("), app.message_log[-1].message
        assert app.clipboard.startswith("def remove_Occ")
