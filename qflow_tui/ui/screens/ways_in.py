"""The three ways in when no model key is set: the demo, the example with a
model that answers here (SmolLM2 when it is installed, else the script model
that ships), or a key or a local server."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from ...core.llm.local import INSTALL, MODEL_INSTALL
from ..first_minute import LOCAL_MODEL, SCRIPT_MODEL
from .base import AppModal


def ways_text(variable: str, model: str, form_model: str = SCRIPT_MODEL, own_problem: bool = False) -> Text:
    """The dialog's text. ``own_problem``: the form holds the problem the user
    gave (``qflow --problem``), which Enter would run, not the example."""
    text = Text()
    text.append("d    Watch the demo", style="bold")
    text.append(": a recorded QualityFlow run on MBPP 11; no model is called.\n")
    if own_problem:
        text.append("⏎    Run your problem", style="bold")
        if form_model == LOCAL_MODEL:
            text.append(f" with SmolLM2 on this machine ({LOCAL_MODEL}, tiny: small settings).\n")
        else:
            text.append(
                f" with the script model that ships ({SCRIPT_MODEL}): it knows only MBPP 11, so it shows "
                "how a run looks, not a solution of yours.\n"
            )
    elif form_model == LOCAL_MODEL:
        text.append("⏎    Run the example with SmolLM2 on this machine", style="bold")
        text.append(
            f" ({LOCAL_MODEL}, tiny: the form holds small settings, 1 prompt, 1 epoch, no clarifying, "
            "256 tokens): MBPP 11, which the form now holds.\n"
        )
    else:
        text.append("⏎    Run the example with the script model that ships", style="bold")
        text.append(f" ({SCRIPT_MODEL}): it plays every agent of MBPP 11, which the form now holds.\n")
    text.append("esc  Your own model", style="bold")
    text.append(
        f": set {variable} (for {model}) or OPENAI_API_KEY and start qflow again. A local server needs "
        "no key: openai/<model> in Model, with OPENAI_BASE_URL=http://localhost:11434/v1 (Ollama). "
        + (
            ""
            if form_model == LOCAL_MODEL
            else f"{LOCAL_MODEL} runs on this machine after {INSTALL} and {MODEL_INSTALL}."
        )
    )
    return text


class FirstMinuteScreen(AppModal[str]):
    """Dismisses with ``demo``, ``run``, ``form`` or ``never`` (to the form,
    and the app remembers not to show it again)."""

    BINDINGS = [
        Binding("d", "choose('demo')", "Demo", tooltip="Replay the demo session that ships with qflow"),
        Binding("enter", "choose('run')", "Run the example", tooltip="Run MBPP 11 with the model the form holds"),
        Binding("escape", "choose('form')", "To the form", tooltip="Close this; the form holds MBPP 11"),
        Binding(
            "x",
            "choose('never')",
            "Don't show again",
            tooltip="Close this and never show it again (F5 Settings brings it back)",
        ),
    ]

    def __init__(self, variable: str, model: str, form_model: str = SCRIPT_MODEL, *, own_problem: bool = False) -> None:
        super().__init__()
        self.variable = variable
        self.model = model
        self.form_model = form_model
        self.own_problem = own_problem
        """The form holds the user's problem: Enter runs that, and says so."""

    def compose(self) -> ComposeResult:
        with Vertical(id="first-minute", classes="dialog"):
            yield Label("No model key is set: three ways in", classes="dialog-title")
            ways = ways_text(self.variable, self.model, self.form_model, self.own_problem)
            yield Static(ways, id="first-minute-ways")
            run = "run your problem" if self.own_problem else "run the example"
            yield Static(f"d demo · Enter {run} · Escape the form · x don't show again", classes="dialog-hint")

    def action_choose(self, way: str) -> None:
        self.dismiss(way)
