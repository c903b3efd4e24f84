"""A script model for the pass@5 tests: QualityFlow with one progression, three
self-debug epochs and three clarifier attempts writes seven programs, all wrong
but one: on mbpp/11 the first clarified program (the fifth written, so one of
the last five), on mbpp/12 the first debugged one (the second written, so not).
The test designer writes one test no program passes, so every epoch debugs; the
yes/no critic never says yes, so every run reverts to its wrong first program."""

import ast

from qflow_tui.core.bench.datasets import find_problem_in

#: The program each problem gets right: (agent, epoch or attempt).
RIGHT = {"mbpp/11": ("clarified", 1), "mbpp/12": ("self_debugger", 1)}


def _problem(request):
    text = request["system"] + "\n".join(m["content"] for m in request["messages"])
    bp = find_problem_in(text)
    if bp is None:
        raise ValueError(f"no benchmark problem in the {request['agent']} prompt")
    return bp


def _program(bp, which):
    if RIGHT.get(bp.id) == which:
        return "```python\n" + bp.reference.strip() + "\n```"
    return f"```python\ndef {bp.problem.entry_point}(*args, **kwargs):\n    return {str(which)!r}\n```"


def respond(request):
    agent = request["agent"]
    if agent == "program_generator":
        bp = _problem(request)
        attempt = request.get("attempt")
        return _program(bp, ("clarified", attempt) if attempt else ("generated", 0))
    if agent == "self_debugger":
        return _program(_problem(request), ("self_debugger", request["epoch"]))
    if agent == "test_designer":
        bp = _problem(request)
        entry = bp.problem.entry_point
        call = next(
            ast.unparse(node)
            for t in bp.problem.test_sources
            for node in ast.walk(ast.parse(t))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == entry
        )
        return f"```python\nassert {call} == 'not the answer'\n```"
    if agent == "clarifier":
        return "<clarified_problem>The statement, said again.</clarified_problem>"
    if agent == "yesno_checker":
        return "No"
    raise ValueError(f"last_five has no answer for agent {agent}")
