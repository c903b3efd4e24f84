"""The reference model as a script model, for older commands and sessions:
``--model script/bench/canonical_model.py`` answers as ``--model reference``
(qflow's built-in, in the wheel) does, each problem with its dataset's
reference solution (HumanEval+'s corrected ones for ``humaneval-plus/N``).

Use ``--model reference``; this file stays so that a session recorded with it
can be forked or re-run.
"""

from qflow_tui.core.bench.reference import reference_answer
from qflow_tui.core.running import running_problem


def respond(request):
    problem = running_problem.get()
    if problem is None:
        raise ValueError("the canonical model answers only within a run of a dataset's problem")
    return reference_answer(problem, request.get("test"))
