"""The status bar: elapsed time, LLM calls, tokens in (cached apart) and out in total and per agent."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..palette import palette
from ..state import RunState


def fmt_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else str(n)


def fmt_elapsed(seconds: float, precise: bool = False) -> str:
    """``m:ss``; with ``precise`` (a finished run or a replay) tenths below a
    minute, so a scripted run of 0.8 s does not read ``0:00``."""
    if precise and seconds < 60:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


class StatusBar(Static):
    """One line; per-agent counts appear when the terminal is wide enough."""

    _shown: Text | None = None

    def update_from(self, state: RunState, elapsed: float, precise: bool = False, recorded: bool = False) -> None:
        """``precise``: the time is final (tenths below a minute); ``recorded``:
        it comes from a session's events (a replay), not this app's clock."""
        colours = palette(self.app)
        total = state.total_tokens()
        text = Text()
        text.append(f"{'recorded' if recorded else 'elapsed'} {fmt_elapsed(elapsed, precise)}", style="bold")
        text.append(f"  {state.llm_calls} call{'' if state.llm_calls == 1 else 's'}  ")
        cached = ", ".join(
            f"{fmt_tokens(n)} {what}"
            for n, what in ((total.cache_read, "cached"), (total.cache_write, "to cache"))
            if n
        )
        # Cached prompt tokens cost a tenth (read) or 1.25x (written): shown apart.
        cached = f" ({cached})" if cached else ""
        text.append(f"tokens {fmt_tokens(total.input)} in{cached} / {fmt_tokens(total.output)} out", style="bold")
        if state.isolation:
            # How generated code is contained matters as much as what it costs.
            text.append("  │ ", style=colours.muted)
            text.append(f"sandbox {state.isolation}", style=colours.muted)
        for agent, t in sorted(state.tokens.items()):
            text.append("  │ ", style=colours.muted)
            text.append(f"{state.short(agent)} ", style=f"bold {colours.primary}")
            text.append(f"{fmt_tokens(t.input)}/{fmt_tokens(t.output)}")
        text.no_wrap = True
        text.overflow = "ellipsis"
        if text == self._shown:
            return
        self._shown = text
        self.update(text, layout=False)  # one line, always: no reflow of the screen
