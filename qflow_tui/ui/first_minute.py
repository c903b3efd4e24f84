"""What the app opens on when the model it would use cannot answer: the
built-in default needs a provider key, and a newcomer has none.

Read once when the app is built, from the environment it is given (tests
give their own; nothing here imports a model's SDK). What a model lacks is
its provider's word (:func:`~qflow_tui.core.llm.model_need`), whatever the
provider."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..core.config import RunConfig
from ..core.llm import Need, model_need

#: The script model that ships: it plays every agent of the paper's example (MBPP 11).
SCRIPT_MODEL = "script/qflow_tui/data/demo/responder.py"
#: The small model that runs on this machine, when its packages are installed.
LOCAL_MODEL = "local/smollm2"


@dataclass(frozen=True)
class FirstMinute:
    """The app's start when its default model cannot answer."""

    model: str
    """What the form opens on instead: the local model, or the script model."""
    missing: Need
    """What the default model lacks (its key)."""
    wanted: str
    """The default model."""

    @property
    def local(self) -> bool:
        """The form holds a model that runs on this machine."""
        return self.model == LOCAL_MODEL


def local_model_ready() -> bool:
    """Whether ``local/smollm2`` can run here (llama.cpp's wheel and the model's
    package, as its provider says)."""
    return model_need(LOCAL_MODEL) is None


def first_minute(config: RunConfig, env: Mapping[str, str], *, named: bool = False) -> FirstMinute | None:
    """Where to start when the built-in default model cannot answer (None: as configured).

    Only the built-in default is replaced: a model a person named (``named``:
    a flag, the config file, QFLOW_MODEL) stays theirs, even the default's own
    name, and Run says what it lacks."""
    if named or config.model != RunConfig.model:
        return None
    missing = model_need(config.model, base_url=config.base_url, env=dict(env))
    if missing is None:
        return None
    return FirstMinute(LOCAL_MODEL if local_model_ready() else SCRIPT_MODEL, missing, config.model)
