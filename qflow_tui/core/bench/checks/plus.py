# EvalPlus's check of one part (base or plus inputs): the program against the
# canonical solution, as EvalPlus 0.3.1's untrusted_check judges it, as
# _qf_check; and _qf_keep_truth, its ground-truth pass.
#
# The evaluator sends this file's text with the problem's values in its
# parameter block (evaluate.plus_check_source), and the sandbox's oracle runs
# it as a trusted check (see checks/__init__.py for how mypy reads it).
#
# Not for ruff: UP029 (the builtins are bound again on purpose, see below),
# UP031 and B905 (the messages and zips as EvalPlus and this check had them).
# ruff: noqa: UP029, UP031, B905
from __future__ import annotations

import copy as _qf_copy
import json as _qf_json
import math as _qf_math
import time as _qf_time

# The program's functions are proxies in this namespace (MBPP+ 126 defines
# sum): the builtins this check uses are bound again to the real ones.
from builtins import (
    abs,
    all,
    bool,
    dict,
    enumerate,
    float,
    int,
    isinstance,
    len,
    list,
    max,
    min,
    repr,
    round,
    set,
    str,
    sum,
    tuple,
    type,
    zip,
)

if __name__ == "qflow_tui.core.bench.checks.<type check>":  # never true where it runs
    from collections.abc import Callable
    from typing import Any

    from ._oracle import __qf_calls__, __qf_decode__, __qf_keep__, __qf_loaded__, __qf_size__, __qf_truth__

# -- parameters: the evaluator writes the problem's values here --
_QF_ENTRY = ""
_QF_DATASET = ""
_QF_ATOL = 0.0
_QF_FACTOR = 4.0
_QF_MIN_LIMIT = 1.0
_QF_TASK_CAP = 60.0
_QF_CAP_SLACK = 2.0
_QF_CAP_MESSAGE = ""
_QF_SET_EQ: list[str] = []
_QF_NOT_NONE: list[str] = []
_QF_REFERENCE = ""
_QF_INPUTS_JSON = "[]"
_QF_WINDOW = 32
_QF_WINDOW_BYTES = 4 << 20
# -- end of parameters --

# Each input in the sandbox's value encoding (the app's encoder wrote them,
# ``sandbox.codec.value_text``), decoded by the oracle's own decoder when used.
_QF_INPUTS: list[object] = _qf_json.loads(_QF_INPUTS_JSON)
# The program's own time at its import: EvalPlus's part runs it in the process
# its cap times, so it counts against the cap.
_QF_LOADED = __qf_loaded__
__qf_charged__: list[list[float]] | None = None


def _qf_is_floats(x: object) -> bool:
    if isinstance(x, float):
        return True
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(i, float) for i in x)


def _qf_close(out: object, exp: object, atol: float) -> bool:
    # numpy.allclose(out, exp, rtol=1e-07, atol=atol) on nested sequences of
    # numbers: NaN is close to nothing, an infinity only to itself.
    if isinstance(exp, (list, tuple)) or isinstance(out, (list, tuple)):
        if not isinstance(exp, (list, tuple)) or not isinstance(out, (list, tuple)) or len(out) != len(exp):
            return False
        return all(_qf_close(o, e, atol) for o, e in zip(out, exp))
    if not isinstance(out, (int, float)) or not isinstance(exp, (int, float)):
        raise TypeError("not numbers")
    if _qf_math.isnan(out) or _qf_math.isnan(exp):
        return False
    if _qf_math.isinf(out) or _qf_math.isinf(exp):
        return out == exp
    return abs(out - exp) <= atol + 1e-07 * abs(exp)


def _qf_repr(x: object) -> str:
    # An integer past Python's decimal digit limit has no repr (HumanEval+ 139).
    try:
        return repr(x)
    except ValueError:
        return "<%s too large to print>" % type(x).__name__


def _qf_poly(xs: list[float], x: float) -> float:
    return sum(c * _qf_math.pow(x, i) for i, c in enumerate(xs))


def _qf_surface_area(base_edge: float, height: float) -> int:
    # Mbpp/581: "height" is the pyramid's perpendicular height.
    slant = _qf_math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant) / 2)


def _qf_digit_distance(n1: int, n2: int) -> int:
    # Mbpp/558: the shorter number is padded with leading zeros.
    a, b = str(n1), str(n2)
    width = max(len(a), len(b))
    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(width), b.zfill(width)))


class _QfState:
    # EvalPlus enforces a float tolerance once an expected float is seen, and
    # keeps it for the rest of the part.
    atol = _QF_ATOL


def _qf_same(out: Any, exp: Any, inp: Any) -> bool:
    if _QF_DATASET == "humaneval" and _QF_ENTRY == "find_zero":
        # find_zero takes one argument, xs
        return abs(_qf_poly(inp[0], out)) <= _QfState.atol
    exact = out == exp
    if _QF_DATASET == "mbpp":
        if _QF_ENTRY == "are_equivalent":  # Mbpp/164: any answer
            exact = True
        elif _QF_ENTRY == "sum_div":  # Mbpp/295
            exact = exact or out == 0
        elif _QF_ENTRY == "surface_Area":  # Mbpp/581
            exact = exact or abs(out - _qf_surface_area(*inp)) <= _QfState.atol
        elif _QF_ENTRY == "digit_distance_nums":  # Mbpp/558
            exact = exact or out == _qf_digit_distance(*inp)
        elif _QF_ENTRY in _QF_SET_EQ:
            exact = set(out) == set(exp)
        elif _QF_ENTRY in _QF_NOT_NONE:
            # The original tests only asked for "a match or None".
            exact = out == exp if isinstance(out, bool) else exp == (out is not None)
    if _QfState.atol == 0 and _qf_is_floats(exp):
        _QfState.atol = 1e-6
    if not exact and _QfState.atol != 0:
        if type(out) is not type(exp):
            return False
        return _qf_close(out, exp, _QfState.atol)
    return bool(exact)


# The canonical solution's time sets each input's limit. EvalPlus takes its
# wall time, once, usually on a machine at rest; this takes its CPU time in
# this (trusted) process, which a busy machine does not stretch.


def _qf_check(candidate: Callable[..., object]) -> None:
    namespace: dict[str, Any] = {"__name__": "__qf_reference__"}
    exec(_QF_REFERENCE, namespace)
    reference = namespace[_QF_ENTRY]
    # Each input: the expected output and its time (EvalPlus's ground truth),
    # then the program. The part's cap is min(cap, sum of every input's limit)
    # + slack, known only at the end: past the largest cap it can be, the part
    # is over at once; otherwise it is judged once every input has run.
    # The program is called on a window of inputs at once (each call with its
    # own limit, ended as EvalPlus's time_limit ends it, the answers judged in
    # order, so the verdict is the one input by input gives); one round trip
    # a window instead of one an input.
    # The ground truth may come from the app, kept by _qf_keep_truth before
    # (EvalPlus reads its own from its cache after its first run).
    truth = "__qf_truth__" in globals()
    global __qf_charged__
    limits_sum = 0.0
    spent = _QF_LOADED
    worst = [0.0, 1.0]  # the input whose time came nearest its limit: (its time, its limit)
    __qf_charged__ = [worst, [spent, _QF_TASK_CAP + _QF_CAP_SLACK]]
    n = len(_QF_INPUTS)
    i = 0
    while i < n:
        window: list[tuple[int, Any, Any, float]] = []
        held = 0
        size = _QF_WINDOW
        kept = __qf_truth__(i, min(size, n - i), _QF_WINDOW_BYTES) if truth else None
        for expected, took in kept or ():
            limit = max(_QF_MIN_LIMIT, _QF_FACTOR * took)
            limits_sum += limit
            window.append((i, __qf_decode__(_QF_INPUTS[i]), expected, limit))
            i += 1
        while not kept and i < n and len(window) < size and held <= _QF_WINDOW_BYTES:
            inp = __qf_decode__(_QF_INPUTS[i])
            start = _qf_time.process_time()
            expected = reference(*_qf_copy.deepcopy(inp))
            took = _qf_time.process_time() - start
            limit = max(_QF_MIN_LIMIT, _QF_FACTOR * took)
            limits_sum += limit
            if _QF_ENTRY in _QF_NOT_NONE and _QF_DATASET == "mbpp":
                expected = expected is not None
            window.append((i, inp, expected, limit))
            i += 1
            held += __qf_size__(expected)  # a window of large right answers is cut short
        answers = __qf_calls__(candidate, [(_qf_copy.deepcopy(w[1]), w[3], w[2]) for w in window])
        for k, (j, inp, expected, limit) in enumerate(window):
            answer = answers[k]
            if answer[0] != "ok":
                answer[1]()  # raises what the call alone raised
            out, took = answer[1], answer[2]
            spent += took
            if took * worst[1] >= worst[0] * limit:
                worst[0], worst[1] = took, limit
            __qf_charged__[1][0] = spent
            if spent > _QF_TASK_CAP + _QF_CAP_SLACK:
                raise AssertionError(
                    "%s: %.1f s over its import (%.2f s) and %d of %d inputs, over its %.1f s"
                    % (_QF_CAP_MESSAGE, spent, _QF_LOADED, j + 1, n, _QF_TASK_CAP + _QF_CAP_SLACK)
                )
            if took > limit:  # the oracle ends such a call itself (a timeout)
                raise AssertionError("input %d: took %.2f s, over its limit of %.2f s" % (j, took, limit))
            try:
                same = _qf_same(out, expected, inp)
            except Exception:
                same = False
            if not same:
                raise AssertionError(
                    "input %d: %s(%s) returned %s, expected %s"
                    % (j, _QF_ENTRY, _qf_repr(inp)[1:-1][:200], _qf_repr(out)[:200], _qf_repr(expected)[:200])
                )
    cap = min(_QF_TASK_CAP, limits_sum) + _QF_CAP_SLACK
    __qf_charged__[1][1] = cap
    if spent > cap:
        raise AssertionError(
            "%s: %.1f s over its import (%.2f s) and %d inputs, over its %.1f s"
            % (_QF_CAP_MESSAGE, spent, _QF_LOADED, len(_QF_INPUTS), cap)
        )


def _qf_keep_truth(candidate: Callable[..., object]) -> None:
    # EvalPlus's ground-truth pass, run alone before any program is judged:
    # every input's expected output and the reference's time, handed to the
    # app to keep (the candidate is an empty program's, never called).
    namespace: dict[str, Any] = {"__name__": "__qf_reference__"}
    exec(_QF_REFERENCE, namespace)
    reference = namespace[_QF_ENTRY]
    n = len(_QF_INPUTS)
    i = 0
    while i < n:
        first = i
        window: list[tuple[Any, float]] = []
        held = 0
        while i < n and len(window) < _QF_WINDOW and held <= _QF_WINDOW_BYTES:
            inp = __qf_decode__(_QF_INPUTS[i])
            start = _qf_time.process_time()
            expected = reference(*_qf_copy.deepcopy(inp))
            took = _qf_time.process_time() - start
            if _QF_ENTRY in _QF_NOT_NONE and _QF_DATASET == "mbpp":
                expected = expected is not None
            window.append((expected, took))
            held += __qf_size__(expected)
            i += 1
        if not __qf_keep__(first, window):
            raise AssertionError("a right answer that cannot be kept")
