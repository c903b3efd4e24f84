"""Zero-shot, the baseline: one program from one prompt, whose prompt is the
baseline of the paper the ``baseline`` setting names."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.core.workflows.zeroshot import BASELINES
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder


async def prompt_of(tmp_path, **cfg) -> dict:
    calls: list[dict] = []

    def respond(request: dict) -> str:
        calls.append(request)
        return f"```python\n{CORRECT}```"

    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/zs", "workflow": "zeroshot", **cfg}),
        client=ScriptClient.from_function(respond),
        sinks=[Recorder()],
        session_dir=tmp_path,
    )
    assert outcome.outcome == "unchecked" and outcome.final_program.strip() == CORRECT.strip()
    (call,) = calls
    return call


async def test_each_papers_baseline_has_its_own_prompt(tmp_path):
    prompts = {}
    for baseline in BASELINES:
        call = await prompt_of(tmp_path, baseline=baseline)
        prompts[baseline] = (call["system"], call["messages"][-1]["content"])
        assert PROBLEM.statement in prompts[baseline][1] and "`add_one`" in prompts[baseline][1]
    assert len(set(prompts.values())) == len(BASELINES)
    # The default is QualityFlow's Zero-shot, its first generator prompt.
    default = await prompt_of(tmp_path)
    assert (default["system"], default["messages"][-1]["content"]) == prompts["qualityflow"]


@pytest.mark.parametrize("baseline,shows_tests", [("qualityflow", True), ("codetree", True), ("adacoder", False)])
async def test_a_baseline_shows_the_visible_tests_as_its_paper_does(tmp_path, baseline, shows_tests):
    """CodeTree's Direct works "from the input problem" (its root holds the
    visible tests); AdaCoder's Direct, like its Phase 1, from the task description alone."""
    user = (await prompt_of(tmp_path, baseline=baseline))["messages"][-1]["content"]
    assert all(t in user for t in PROBLEM.test_sources) is shows_tests
    assert any(t in user for t in PROBLEM.test_sources) is shows_tests
