"""QualityFlow on a stdin/stdout problem, end to end with a scripted model
and the real sandbox: the I/O prompts reach every agent, imagined execution
asks about the input and never shows the expected output, the Test Quality
Checker drops a wrong synthesized pair, and the self-debugger's fix passes."""

from __future__ import annotations

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_io_problem
from qflow_tui.core.workflow_run import run_workflow
from tests.helpers import Recorder

PROBLEM = make_io_problem("Read two integers a and b and print a + b.", [("1 2\n", "3\n"), ("5 5\n", "10\n")])
WRONG = "a, b = map(int, input().split())\nprint(a * b if a != 1 else 3)\n"
RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"


def _out(stdin: str) -> str:
    a, b = map(int, stdin.split())
    return f"{a + b}\n"


def respond(calls: list[dict]):
    def answer(request: dict) -> str:
        calls.append(request)
        agent, text = request["agent"], request["messages"][-1]["content"]
        if agent == "program_generator":
            return f"```python\n{WRONG}```"
        if agent == "self_debugger":
            return f"Fixed:\n```python\n{RIGHT}```"
        if agent == "test_designer":
            return "Input\n2 3\nOutput\n5\n\nInput\n4 4\nOutput\n9\n" if request["attempt"] == 1 else "nothing new"
        if agent == "test_quality_checker":
            stdin = text.split("<input>\n", 1)[1].split("\n</input>", 1)[0]
            return f"<test_case>\nInput\n{stdin}\nOutput\n{_out(stdin)}</test_case>"
        if agent == "code_quality_checker":
            if request["turn"] == 1:
                return "Tracing the program."
            first = request["messages"][0]["content"]
            program = first.split("```python\n", 1)[1].split("```", 1)[0]
            stdin = first.split("<input>\n", 1)[1].split("\n</input>", 1)[0]
            a, b = map(int, stdin.split())
            printed = (a * b if a != 1 else 3) if "a * b" in program else a + b
            return f"<test_case>\nInput\n{stdin}\nOutput\n{printed}\n</test_case>"
        raise ValueError(f"unexpected agent {agent}")

    return answer


async def test_qualityflow_on_an_io_problem(tmp_path):
    calls: list[dict] = []
    config = make_config({"model": "script/io", "prompts": 1})
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM, config, client=ScriptClient.from_function(respond(calls)), sinks=[rec], session_dir=tmp_path
    )
    assert outcome.final_program.strip() == RIGHT.strip(), [e.kind for e in rec.events]
    gen = next(c for c in calls if c["agent"] == "program_generator")
    assert "standard input" in gen["messages"][-1]["content"]
    assert "Input 1\n1 2\nOutput 1\n3" in gen["messages"][-1]["content"]
    for c in calls:
        if c["agent"] == "code_quality_checker" and c["turn"] == 1:
            # The imagined run is asked about the input only, never the expected output.
            assert "output '" not in c["messages"][-1]["content"]
            assert "<input>" in c["messages"][-1]["content"]
    debug = next(c for c in calls if c["agent"] == "self_debugger")
    feedback = debug["messages"][-1]["content"]
    # The right synthesized pair reached the debugger as input, expected and printed output.
    assert "Input:\n2 3\nExpected output:\n5\nThe program printed:\n6\n" in feedback
    assert "Expected output:\n9" not in feedback  # the wrong one did not: the TQC dropped it
