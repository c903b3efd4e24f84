"""A script model for AgentCoder bench tests: the programmer's first program is
the canonical solution for humaneval/0 and a wrong one for every other problem;
a refinement writes the canonical solution; the test designer writes two of the
problem's evaluation asserts. So humaneval/0 is accepted at test_executor:1 and
the others are rejected there, refined, and accepted at test_executor:2."""

from qflow_tui.core.bench.datasets import find_problem_in


def _problem(request):
    text = request["system"] + "\n".join(m["content"] for m in request["messages"])
    bp = find_problem_in(text)
    if bp is None:
        raise ValueError(f"no benchmark problem in the {request['agent']} prompt")
    return bp


def respond(request):
    bp = _problem(request)
    if request["agent"] == "programmer":
        if request["epoch"] is None and bp.id != "humaneval/0":
            entry = bp.problem.entry_point
            return f"```python\ndef {entry}(*args, **kwargs):\n    return '__wrong__'\n```"
        return "```python\n" + bp.reference.strip() + "\n```"
    if request["agent"] == "test_designer":
        return "```python\n" + "\n".join(bp.eval_tests[:2]) + "\n```"
    raise ValueError(f"agentcoder_mixed has no answer for agent {request['agent']}")
