"""The bench screen's compare dialog: another bench folder of the same problems
beside this one, with the paired statistics ``qflow bench compare`` gives
(each pass@1 with its Wilson interval, the difference with its paired
bootstrap interval, the discordant problems and the exact McNemar p)."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from ...core.bench.bench_runner import BenchError
from ...core.bench.figures import bench_figures, compare_pairs
from ...core.bench.report import compare_problem, load_bench, p_text
from ...core.bench.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, interval_text
from ...core.safe_text import one_line
from .base import AppModal

_HINT = "A bench folder of the same problems; Enter compares, Escape closes"


def compare_words(this: Path, other: Path) -> str:
    """The comparison of bench ``this`` (A) with ``other`` (B) in a few lines.
    Raises :class:`BenchError` for a folder that is not a bench, or benches of
    different problems."""

    a, b = load_bench(this), load_bench(other)
    problem = compare_problem([a, b])
    if problem is not None:
        raise BenchError(problem)
    (c,) = compare_pairs([a, b])
    st = c.stats
    lines = []
    for name, data in (("A", a), ("B", b)):
        f = bench_figures(data)
        lines.append(f"{name}: {data.full_label}")
        lines.append(f"   pass@1 {f.pass1.text(1)}")
    if st.n == 0:
        lines.append("No problem finished in both benches: nothing to compare.")
        return "\n".join(lines)
    diff = st.difference or 0.0
    lines.append(
        f"On the {st.n} problems both finished: Δ (B − A) {100 * diff:+.1f} points, 95% CI "
        f"{interval_text(st.interval, lambda x: f'{100 * x:+.1f}')} (paired bootstrap, "
        f"{BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED})."
    )
    lines.append(
        f"Solved by A only: {st.a_only}; by B only: {st.b_only}; exact McNemar p = {_p(st.p_value)}"
        + (" (no problem differs)." if st.a_only + st.b_only == 0 else ".")
    )
    return "\n".join(lines)


def _p(p: float) -> str:

    return p_text(p)


class BenchCompareDialog(AppModal[None]):
    """Ask for another bench folder and show the two side by side, paired."""

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        """This bench (A)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="bench-compare"):
            yield Label("Compare with another bench", classes="dialog-title")
            yield Input(value=str(self.folder.parent) + "/", id="bench-compare-path")
            yield Static(_HINT, id="bench-compare-hint", classes="dialog-hint", markup=False)
            yield Static("", id="bench-compare-result", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#bench-compare-path")
    def _compare(self, event: Input.Submitted) -> None:
        hint = self.query_one("#bench-compare-hint", Static)
        result = self.query_one("#bench-compare-result", Static)
        raw = event.value.strip()
        try:
            if not raw:
                raise BenchError("give a bench folder (the --out of a qflow bench)")
            text = compare_words(self.folder, Path(raw).expanduser())
        except (BenchError, OSError, ValueError, TypeError, KeyError) as exc:
            hint.update(f"✗ {one_line(str(exc), 300)}")
            hint.set_class(True, "-error")
            result.update("")
            return
        hint.update(_HINT)
        hint.set_class(False, "-error")
        result.update("\n".join(one_line(line) for line in text.splitlines()))

    def action_close(self) -> None:
        self.dismiss(None)
