"""A script model for the bench tests: the program generator writes a wrong
program; the test designer writes two of the problem's evaluation asserts
(correct tests) and one wrong test; the Test Quality Checker keeps the correct
ones and rejects the wrong one; the self-debugger answers with the canonical
solution. With ``--checker python --prompts 1 --epochs 1 --clarify 0`` every
problem is accepted at self_debug:1."""

import ast

from qflow_tui.core.bench.datasets import find_problem_in

WRONG = "__qflow_wrong__"


def _problem(request):
    text = request["system"] + "\n".join(m["content"] for m in request["messages"])
    bp = find_problem_in(text)
    if bp is None:
        raise ValueError(f"no benchmark problem in the {request['agent']} prompt")
    return bp


def respond(request):
    agent = request["agent"]
    if agent == "program_generator":
        entry = _problem(request).problem.entry_point
        return f"```python\ndef {entry}(*args, **kwargs):\n    return {WRONG!r}\n```"
    if agent == "test_designer":
        bp = _problem(request)
        visible = set(bp.problem.test_sources)
        good = [t for t in bp.eval_tests if t not in visible][:2]
        entry = bp.problem.entry_point
        call = next(
            ast.unparse(node)
            for t in [*good, *bp.problem.test_sources]
            for node in ast.walk(ast.parse(t))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == entry
        )
        return "```python\n" + "\n".join([*good, f"assert {call} == 'not the answer'"]) + "\n```"
    if agent == "test_quality_checker":
        test = request["test"]
        if "'not the answer'" in test:
            return "<test_case>" + test.replace("'not the answer'", "None") + "</test_case>"
        return "<test_case>" + test + "</test_case>"
    if agent == "self_debugger":
        return "```python\n" + _problem(request).reference.strip() + "\n```"
    raise ValueError(f"late_fix has no answer for agent {agent}")
