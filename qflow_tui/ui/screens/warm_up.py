"""The first Run made quick: what it needs that the compose form does not,
imported on a thread once the form is painted."""

from __future__ import annotations

import importlib
import sys
import threading

from ...core.llm import client_module
from ...core.prompts import snapshot
from ...core.workflows import WORKFLOWS
from ...locations import prompts_dir

#: What the first Run needs that the form does not: imported in the loop at the
#: first Ctrl+R, it stalled the app about 0.1 s on top of building the screen.
RUN_MODULE = "qflow_tui.ui.screens.run_screen"


def warm_up_the_run_screen(model: str = "", base_url: str | None = None) -> None:
    """Import the run screen's code, the workflows' implementations and the
    model's client (its SDK takes one to three seconds; only when its key is set,
    so the Run will need it) on a thread once the form is painted, while the user
    reads or types. Python's import lock makes a Run pressed meanwhile wait for
    the same import, never import twice."""

    wanted = [RUN_MODULE, client_module(model, base_url=base_url) or ""]
    missing = [name for name in wanted if name and name not in sys.modules]
    # qflow's prompts are read now, once (see core.prompts.snapshot): a package
    # reinstalled while the app is open cannot take them from a later run.
    threading.Thread(target=snapshot, args=(prompts_dir(),), name="read prompts", daemon=True).start()
    if missing:
        threading.Thread(target=_import_quietly, args=(missing,), name="warm up", daemon=True).start()


def _import_quietly(modules: list[str]) -> None:

    for name in modules:
        try:
            importlib.import_module(name)
            if name == RUN_MODULE:
                for spec in WORKFLOWS.values():
                    spec.run  # noqa: B018 - imports the implementation
        except Exception:  # the Run key imports it again and says what failed
            pass
