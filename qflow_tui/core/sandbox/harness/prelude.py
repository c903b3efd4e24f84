"""The child side of the sandbox: a stdlib-only script that runs inside the
limited process, evaluates test sub-expressions and the program's values, and
reports them as plain data on a private pipe. It never decides a verdict for an
untrusted program; the parent does (see ``verdict.py``).

This is its first part (see ``harness/__init__.py``): the parts joined are the
script the child receives, compiled by its own interpreter once per app process,
from a sealed memory file (or its source text via ``python -c`` where that could
not be made; see ``launch.py``). Keep it importable without side effects, stdlib
only, and valid Python 3.8+ (the child interpreter may be the system one). Its
imports serve the parts after it too (so ruff's F401 is off here).
"""

# Bind every builtin the harness uses as a global of this module *before* any
# untrusted code runs, so a program that replaces ``builtins.repr``/``type``/
# ``__import__`` cannot change how the harness encodes or reports values.
from builtins import (  # rebinding is the point
    BaseException,
    Exception,
    KeyError,
    TypeError,
    ValueError,
    RecursionError,
    MemoryError,
    OverflowError,
    NameError,
    SystemExit,
    KeyboardInterrupt,
    bool,
    bytes,
    complex,
    dict,
    float,
    frozenset,
    int,
    len,
    list,
    set,
    str,
    tuple,
    type,
    repr,
    isinstance,
    getattr,
    hasattr,
    iter,
    next,
    range,
    sorted,
    any,
    all,
    enumerate,
    compile,
    eval,
    exec,
    abs,
    min,
    max,
    zip,
    object,
    hex,
    print,
    memoryview,
    __import__,
)
import binascii
import builtins
import errno
import functools as _functools
import gc
import marshal
import math
import operator as _operator
import os
import signal
import sys
import time
import collections as _collections

# The json package's C parts, not the package (nor base64): importing them
# (and the re module they pull in) was a third of a child's start, which each program pays
# again (every program runs in a fresh child). ``ast`` and ``traceback`` are
# imported where they are needed, for the same reason.
import _json

_json_str = _json.encode_basestring_ascii  # C function

_marshal_dumps = marshal.dumps
_marshal_loads = marshal.loads
_os_write = os.write
_os_read = os.read
_os_exit = os._exit
_monotonic = time.monotonic
_process_time = time.process_time
_setitimer = getattr(signal, "setitimer", None)
_b2a_base64 = binascii.b2a_base64
_a2b_base64 = binascii.a2b_base64


def _b64encode(data):
    return _b2a_base64(data, newline=False)


try:
    _a2b_base64(b"", strict_mode=True)  # Python 3.11+: base64.b64decode(validate=True) without base64's re

    def _b64decode(data):
        return _a2b_base64(data, strict_mode=True)

except TypeError:
    import base64

    def _b64decode(data):
        return base64.b64decode(data, validate=True)


_map = map
_float_hex = float.hex
_float_fromhex = float.fromhex
_int_to_hex = int.__format__
_isnan = math.isnan
_int_repr = int.__repr__
_float_repr = float.__repr__
_repr = repr
_str_join = str.join
_ITIMER_REAL = getattr(signal, "ITIMER_REAL", 0)


class _ScanContext:
    """What ``_json.make_scanner`` reads: the settings of ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo = None

    @staticmethod
    def parse_constant(name):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_scan_once = _json.make_scanner(_ScanContext())  # type: ignore[arg-type]


def _json_loads(text):
    """``json.loads`` of one JSON text (surrounding whitespace allowed), with
    the C scanner json.loads itself uses; ValueError for anything else."""
    text = text.strip(" \t\n\r")
    try:
        obj, end = _scan_once(text, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return obj


class _RawJSON(str):
    """JSON text already written (an encoded value's, see ``_plain_text``),
    which ``_dumps_json`` puts in as it is."""


def _dumps_json(obj):
    """JSON for the channel, built only from names bound above: the json
    module's own encoder looks up builtins at call time, which a program may
    have replaced."""
    t = type(obj)
    if t is _RawJSON:
        return obj
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if t is str:
        return _json_str(obj)
    if t is int:
        return _int_repr(obj)
    if t is float:
        return _float_repr(obj) if obj == obj and obj not in (float("inf"), float("-inf")) else "null"
    if t is list or t is tuple:
        return "[" + _str_join(",", [_dumps_json(v) for v in obj]) + "]"
    if t is dict:
        return "{" + _str_join(",", [_json_str(k) + ":" + _dumps_json(v) for k, v in obj.items()]) + "}"
    raise TypeError("cannot serialise %s" % t)


MAX_DEPTH = 100
"""Deepest nesting of containers a reported value may have."""

MAX_INT_HEX = 1 << 26
"""Most hex digits of one reported integer. Reading hex is linear in its
length (unlike decimal), so the bound is the value's size cap, not time:
HumanEval+ 139's right answers have hundreds of thousands of digits."""

BIG_VALUE_MAX = 64 << 20
"""Largest encoded value a call may report when the trusted side allows more
than the usual cap for it (``_Oracle.value_cap``); the app clamps to it too."""

KEEP_CHUNK = 8 << 20
"""Bytes of base64 records after which a ``keep`` message is sent (see
``_Oracle.keep`` and ``sandbox.truth``)."""
