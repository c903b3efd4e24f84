"""A script model that answers every program request with the benchmark's
canonical solution: ``qflow bench --model script/bench/canonical_model.py``.

A HumanEval statement reads the same in HumanEval+: set
``QFLOW_CANONICAL_DATASET=humaneval-plus`` to answer with HumanEval+'s
corrected solutions instead of HumanEval's.

It proves the harness (a perfect model must score 100%) and measures the
bench's own speed. It plays the program generator (and AgentCoder's
programmer); the Code Quality Checker needs no model with ``--checker python``.
"""

import os

from qflow_tui.core.bench.datasets import find_problem_in

PROGRAM_AGENTS = ("program_generator", "programmer", "self_debugger")


def respond(request):
    if request["agent"] not in PROGRAM_AGENTS:
        raise ValueError(
            f"the canonical model only writes programs, not {request['agent']}: "
            "use --workflow zeroshot, or qualityflow with --checker python --epochs 0 --clarify 0"
        )
    text = "\n".join(m["content"] for m in request["messages"])
    bp = find_problem_in(text, os.environ.get("QFLOW_CANONICAL_DATASET"))
    if bp is None:
        raise ValueError("the canonical model found no benchmark problem in the prompt")
    return "```python\n" + bp.reference.strip() + "\n```"
