"""``replay/<session>`` as a model: the same config reproduces the run event for
event; another config reuses what still matches and names the first call it
has no recording for, or asks the fallback model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from qflow_tui.core.llm import LLMError, LLMRequest, make_client
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.session.replay import ReplayClient
from qflow_tui.core.workflow_run import RunError
from qflow_tui.data.demo import responder
from tests.sessions.support import comparable, flow, record_demo, responses


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    folder = tmp_path_factory.mktemp("original")
    outcome, rec = asyncio.run(record_demo(folder))
    return Path(outcome.session), rec.events, outcome


async def test_same_config_reproduces_the_run_event_for_event(original, tmp_path):
    path, events, outcome = original
    client = ReplayClient(path)
    again, rec = await record_demo(tmp_path, client=client)
    assert client.replayed == outcome.llm_calls and client.fell_back == 0
    assert comparable(rec.events) == comparable(events)
    assert flow(rec.events) == flow(events)
    assert responses(rec.events) == responses(events)
    assert (again.final_program, again.outcome, again.accepted_at, again.tokens) == (
        outcome.final_program,
        outcome.outcome,
        outcome.accepted_at,
        outcome.tokens,
    )


async def test_replayed_text_streams_in_chunks(original):
    path, events, _ = original
    client = ReplayClient(path)
    first = next(e for e in events if e.kind == "llm_call_started")
    request = LLMRequest(
        agent=first.agent,
        messages=first.messages,
        system=first.system,
        temperature=first.temperature,
        turn=first.turn,
        progression=first.progression,
        epoch=first.epoch,
        attempt=first.attempt,
        test=first.test,
    )
    chunks: list[str] = []
    completion = await client.complete(request, chunks.append)
    assert len(chunks) > 3 and "".join(chunks) == completion.text
    recorded = next(e for e in events if e.kind == "llm_call_finished" and e.call_id == first.call_id)
    assert completion.text == recorded.response and completion.output_tokens == recorded.output_tokens


async def test_another_config_names_the_first_call_it_has_no_recording_for(original, tmp_path):
    path, _, _ = original
    # Without the Test Quality Checker the debugger is fed the two wrong tests
    # too, so its prompt differs from every recorded one.
    with pytest.raises(RunError) as err:
        await record_demo(tmp_path, client=ReplayClient(path), tqc=False)
    message = str(err.value)
    assert "no recorded response for self_debugger (step self_debug:1, progression" in message
    assert "epoch 1" in message and "another prompt" in message and "--fallback-model" in message
    assert "\n" not in message


async def test_a_call_the_recording_never_made_is_named_too(original, tmp_path):
    path, _, _ = original
    with pytest.raises(RunError) as err:
        await record_demo(tmp_path, client=ReplayClient(path), prompts=3)
    assert "no recorded response for program_generator (step program_generator, progression 2, turn 1)" in str(
        err.value
    )
    assert "made no call at this place" in str(err.value)


async def test_another_config_reuses_every_response_that_still_matches(original, tmp_path):
    path, events, _ = original
    # The relaxed checker runs the visible tests instead of imagining them: the
    # generator, test designer, TQC and debugger see the very same prompts.
    client = ReplayClient(path)
    outcome, rec = await record_demo(tmp_path, client=client, checker="python")
    assert client.fell_back == 0
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "self_debug:1")
    assert not [e for e in rec.events if e.kind == "llm_call_started" and e.agent == "code_quality_checker"]
    recorded = {k: v for k, v in responses(events).items() if k[1] != "code_quality_checker"}
    assert responses(rec.events) == recorded


async def test_the_fallback_model_answers_what_the_recording_lacks(original, tmp_path):
    path, _, _ = original
    live: list[dict] = []

    def fallback(request: dict) -> str:
        live.append(request)
        return responder.respond(request)

    client = ReplayClient(path, fallback=ScriptClient.from_function(fallback, name="live"))
    outcome, _ = await record_demo(tmp_path, client=client, tqc=False)
    assert outcome.outcome == "accepted"
    assert client.fell_back == len(live) > 0 and client.replayed > 0
    # Only what changed was asked live: the debugger (new feedback) and the
    # checks of what it wrote; generation and test design came from the recording.
    assert {r["agent"] for r in live} <= {"self_debugger", "code_quality_checker"}


async def test_runner_builds_the_fallback_from_the_config(original, tmp_path, monkeypatch):
    from qflow_tui.core import workflow_run as runner

    path, _, _ = original
    built = {}
    real = runner.make_client

    def spy(model, **kw):
        built[model] = kw.get("fallback")
        if model.startswith("script/"):
            return ScriptClient.from_function(responder.respond, name="fallback")
        return real(model, **kw)

    monkeypatch.setattr(runner, "make_client", spy)
    client = runner.build_client(runner.RunConfig(model=f"replay/{path}", fallback_model="script/whatever.py"))
    assert isinstance(client, ReplayClient) and client.fallback is not None


def test_a_file_that_is_not_a_session_is_an_llm_error(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\n")
    with pytest.raises(LLMError, match=r"replay model: .*not a qflow session"):
        make_client(f"replay/{bad}")
    with pytest.raises(LLMError, match=r"no such (session )?file"):
        make_client(f"replay/{tmp_path / 'missing.jsonl'}")


async def test_the_bundled_demo_replays_as_a_model():
    """The demo session is a real recording: re-running its problem with it as
    the model reproduces its result (and flags prompt changes that call for
    re-recording it: `python -m qflow_tui.data.demo.record`)."""
    from qflow_tui.commands.demo import demo_session
    from qflow_tui.core.session import read_session

    data = read_session(demo_session())
    client = ReplayClient(demo_session())
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        outcome, _ = await record_demo(Path(folder), client=client)
    end = data.finished
    assert (outcome.outcome, outcome.accepted_at, outcome.final_program) == (
        end.outcome,
        end.accepted_at,
        end.final_program,
    )
