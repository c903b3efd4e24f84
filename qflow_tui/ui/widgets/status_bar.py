"""The status bar: elapsed time, LLM calls, the cost so far, tokens in (cached
apart) and out in total and per agent."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.llm.prices import Price, PriceError, agents_cost, is_free, run_price
from ...core.session.display import human_tokens
from ...core.summary import tokens_to_dict
from ..palette import palette
from ..state import RunState


def fmt_tokens(n: int) -> str:
    """A token count as every screen and ``qflow sessions`` show one (``4.2k``)."""
    return human_tokens(n)


def fmt_elapsed(seconds: float, precise: bool = False) -> str:
    """``m:ss``; with ``precise`` (a finished run or a replay) tenths below a
    minute, so a scripted run of 0.8 s does not read ``0:00``."""
    if precise and seconds < 60:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def fmt_cost(dollars: float) -> str:
    """US dollars: four decimals below a dollar (a call costs fractions of a cent)."""
    if 0 < dollars < 0.00005:
        return "<$0.0001"
    return f"${dollars:.4f}" if dollars < 1 else f"${dollars:,.2f}"


def cost_label(price: Price | None, state: RunState) -> str:
    """What the run has cost so far, as ``qflow solve --json`` prices it at the
    end; "no price" for a model the table lacks, "" for one that costs nothing."""
    if price is None:
        return "cost: no price"
    if is_free(price):
        return ""
    total = round(sum(agents_cost(price, tokens_to_dict(state.tokens)).values()), 6)
    # A cut call counted without the server's tokenizer (or a script's count) is an estimate.
    estimated = " (est.)" if state.total_tokens().estimated else ""
    return f"cost {fmt_cost(total)}{estimated}"


class StatusBar(Static):
    """One line; per-agent counts appear when the terminal is wide enough."""

    _shown: Text | None = None
    _priced: tuple[tuple[str, str], Price | None] | None = None
    """The run's model and server, with their price: read from the table once a run."""

    def _price(self, state: RunState) -> Price | None:
        key = (state.model, str(state.config.get("base_url") or ""))
        if self._priced is None or self._priced[0] != key:
            try:
                price = run_price(*key) if state.model else Price(0.0, 0.0, "")
            except PriceError:  # the config file's [prices] is broken: solve says so
                price = None
            self._priced = (key, price)
        return self._priced[1]

    def update_from(self, state: RunState, elapsed: float, precise: bool = False, recorded: bool = False) -> None:
        """``precise``: the time is final (tenths below a minute); ``recorded``:
        it comes from a session's events (a replay), not this app's clock."""
        colours = palette(self.app)
        total = state.total_tokens()
        text = Text()
        text.append(f"{'recorded' if recorded else 'elapsed'} {fmt_elapsed(elapsed, precise)}", style="bold")
        text.append(f"  {state.llm_calls} call{'' if state.llm_calls == 1 else 's'}  ")
        # Before the tokens: what a run costs is what a narrow terminal must still show.
        if cost := cost_label(self._price(state), state):
            text.append(cost, style="bold")
            text.append("  ")
        cached = ", ".join(
            f"{fmt_tokens(n)} {what}"
            for n, what in ((total.cache_read, "cached"), (total.cache_write, "to cache"))
            if n
        )
        # Cached prompt tokens cost a tenth (read) or 1.25x (written): shown apart.
        cached = f" ({cached})" if cached else ""
        # A reasoning model's thinking is billed as output but never shown: said apart.
        thought = f" ({fmt_tokens(total.thinking)} thinking)" if total.thinking else ""
        text.append(
            f"tokens {fmt_tokens(total.input)} in{cached} / {fmt_tokens(total.output)} out{thought}", style="bold"
        )
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
