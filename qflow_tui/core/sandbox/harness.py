"""The child side of the sandbox: a stdlib-only script that runs inside the
limited process, evaluates test sub-expressions and the program's values, and
reports them as plain data on a private pipe. It never decides a verdict for an
untrusted program; the parent does (see ``verdict.py``).

The parent imports this module only for the value codec and the strict
comparison (so both sides share one definition); the child receives its source
text via ``python -c``. Keep it importable without side effects, stdlib only,
and valid Python 3.8+ (the child interpreter may be the system one).
"""

# Bind every builtin the harness uses as a global of this module *before* any
# untrusted code runs, so a program that replaces ``builtins.repr``/``type``/
# ``__import__`` cannot change how the harness encodes or reports values.
from builtins import (  # noqa: F401  (rebinding is the point)
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
import ast
import base64
import builtins
import errno
import json
import marshal
import math
import os
import signal
import sys
import time
import traceback

from json.encoder import encode_basestring_ascii as _json_str  # C function

_marshal_dumps = marshal.dumps
_os_write = os.write
_os_exit = os._exit
_monotonic = time.monotonic
_setitimer = getattr(signal, "setitimer", None)
_b64encode = base64.b64encode
_b64decode = base64.b64decode
_float_hex = float.hex
_float_fromhex = float.fromhex
_int_to_hex = int.__format__
_isnan = math.isnan
_int_repr = int.__repr__
_float_repr = float.__repr__
_str_join = str.join
_ITIMER_REAL = getattr(signal, "ITIMER_REAL", 0)


def _dumps_json(obj):
    """JSON for the channel, built only from names bound above: the json
    module's own encoder looks up builtins at call time, which a program may
    have replaced."""
    t = type(obj)
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


# --------------------------------------------------------------------------- codec
class NotPlain(Exception):
    """A value that is not made only of exact built-in types."""


def encode_value(value, depth=0):
    """Plain value -> JSON-able tagged tree. Exact types only (no subclasses);
    runs no user code for plain values (no __eq__/__hash__/__repr__ calls)."""
    if depth > MAX_DEPTH:
        raise NotPlain("nested deeper than %d levels" % MAX_DEPTH)
    t = type(value)
    if value is None:
        return ["n"]
    if t is bool:
        return ["b", value is True]
    if t is int:
        return ["i", _int_to_hex(value, "x")]
    if t is float:
        return ["f", _float_hex(value)]
    if t is complex:
        return ["c", _float_hex(value.real), _float_hex(value.imag)]
    if t is str:
        return ["s", value]
    if t is bytes:
        return ["y", _b64encode(value).decode("ascii")]
    if t is list:
        return ["l", [encode_value(v, depth + 1) for v in value]]
    if t is tuple:
        return ["t", [encode_value(v, depth + 1) for v in value]]
    if t is set:
        return ["S", [encode_value(v, depth + 1) for v in value]]
    if t is frozenset:
        return ["F", [encode_value(v, depth + 1) for v in value]]
    if t is dict:
        return ["d", [[encode_value(k, depth + 1), encode_value(v, depth + 1)] for k, v in value.items()]]
    raise NotPlain("a value of type %s is not a plain built-in value" % _type_name(value))


def decode_value(tree, depth=0):
    """Tagged tree -> plain value. Validates everything: the tree may come from
    a compromised child, so anything unexpected raises ValueError."""
    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply")
    if type(tree) is not list or not tree or type(tree[0]) is not str:
        raise ValueError("malformed value")
    tag = tree[0]
    n = len(tree)
    if tag == "n" and n == 1:
        return None
    if tag == "b" and n == 2 and type(tree[1]) is bool:
        return tree[1]
    if tag == "i" and n == 2 and type(tree[1]) is str and len(tree[1]) <= 100_000:
        return int(tree[1], 16)
    if tag == "f" and n == 2 and type(tree[1]) is str and len(tree[1]) <= 40:
        return _float_fromhex(tree[1])
    if tag == "c" and n == 3 and type(tree[1]) is str and type(tree[2]) is str:
        return complex(_float_fromhex(tree[1]), _float_fromhex(tree[2]))
    if tag == "s" and n == 2 and type(tree[1]) is str:
        return tree[1]
    if tag == "y" and n == 2 and type(tree[1]) is str:
        return _b64decode(tree[1].encode("ascii"), validate=True)
    if tag in ("l", "t", "S", "F") and n == 2 and type(tree[1]) is list:
        items = [decode_value(v, depth + 1) for v in tree[1]]
        if tag == "l":
            return items
        if tag == "t":
            return tuple(items)
        try:
            return set(items) if tag == "S" else frozenset(items)
        except TypeError:
            raise ValueError("unhashable set element") from None
    if tag == "d" and n == 2 and type(tree[1]) is list:
        out = {}
        for pair in tree[1]:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("malformed dict item")
            try:
                out[decode_value(pair[0], depth + 1)] = decode_value(pair[1], depth + 1)
            except TypeError:
                raise ValueError("unhashable dict key") from None
        return out
    raise ValueError("malformed value")


def _type_name(value):
    try:
        t = type(value)
        return str(type.__getattribute__(t, "__module__")) + "." + str(type.__getattribute__(t, "__qualname__"))
    except BaseException:
        return "?"


# ------------------------------------------------------------- strict comparison
_NUMBERS = (bool, int, float, complex)
_SETS = (set, frozenset)


def strict_eq(a, b, depth=0):
    """Equality that a test means: same exact type at every level, NaN never
    equal (not even inside containers, where Python's identity shortcut would
    say equal), floats exact (tolerances are asked for with isclose/abs).

    Numbers compare by value across bool/int/float/complex, and set with
    frozenset, as Python's == does: both sides are verified plain built-ins, so
    this cannot be faked, and tests written by people rely on it (22 MBPP
    reference solutions return 240.0 where the test says 240, or 0 for False).
    Only ever called on plain values, so it runs no user code."""
    if depth > MAX_DEPTH + 2:
        return False
    ta = type(a)
    tb = type(b)
    if ta in _NUMBERS and tb in _NUMBERS:
        return a == b  # nan != nan
    if ta in _SETS and tb in _SETS:
        tb = ta
    if ta is not tb:
        return False
    if ta is float:
        return a == b  # nan != nan already
    if ta is complex:
        return a == b
    if ta in (list, tuple):
        return len(a) == len(b) and all(strict_eq(x, y, depth + 1) for x, y in zip(a, b))
    if ta in (set, frozenset):
        if len(a) != len(b):
            return False
        partners = {x: x for x in b}
        for x in a:
            if x not in partners:
                return False
            if not strict_eq(x, partners[x], depth + 1):
                return False
        return True
    if ta is dict:
        if len(a) != len(b):
            return False
        partners = {k: k for k in b}
        for k, v in a.items():
            if k not in partners:
                return False
            k2 = partners[k]
            if not strict_eq(k, k2, depth + 1) or not strict_eq(v, b[k2], depth + 1):
                return False
        return True
    if ta in (bool, int, str, bytes) or a is None:
        return a == b
    return False  # not a plain value: never equal


def strict_in(item, container):
    """``item in container`` with strict element equality (substrings for str/bytes)."""
    tc = type(container)
    if tc in (str, bytes):
        if type(item) is not tc:
            raise TypeError("'in <%s>' requires %s as left operand" % (tc.__name__, tc.__name__))
        return item in container
    if tc is dict:
        container = list(container.keys())
    elif tc not in (list, tuple, set, frozenset):
        raise TypeError("argument of type %r is not iterable" % tc.__name__)
    return any(strict_eq(item, x) for x in container)


# ------------------------------------------------------------------------ child
class _Timeout(BaseException):
    """Raised by the soft per-test alarm. BaseException so ``except Exception``
    in the program does not swallow it (the parent's hard kill covers the rest)."""


_LAZY_MODULES = (
    "math",
    "cmath",
    "sys",
    "re",
    "string",
    "collections",
    "itertools",
    "functools",
    "operator",
    "heapq",
    "bisect",
    "fractions",
    "decimal",
    "statistics",
)


class _LazyNames(dict):
    """Locals for evaluating test expressions: common stdlib modules resolve
    even when the setup did not import them (tests in the reference harnesses
    share the program's namespace and its imports)."""

    def __missing__(self, key):
        if key in _LAZY_MODULES:
            mod = __import__(key)  # the harness's own binding, not builtins'
            self[key] = mod
            return mod
        raise KeyError(key)


class _Channel:
    def __init__(self, fd):
        self.fd = fd

    def send(self, obj):
        data = str.encode(_dumps_json(obj) + "\n", "ascii")
        view = memoryview(data)
        while view:
            n = _os_write(self.fd, view)
            view = view[n:]


def _short_error(exc, tb_limit=3):
    name = _type_name(exc).replace("builtins.", "")
    try:
        msg = str(exc)
    except BaseException:
        msg = "?"
    if len(msg) > 500:
        msg = msg[:500] + "..."
    head = name + (": " + msg if msg else "")
    try:
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-tb_limit)
        tb = "".join(lines[1:-1]).rstrip() if len(lines) > 2 else ""
    except BaseException:
        tb = ""
    if len(tb) > 1500:
        tb = "..." + tb[-1500:]
    return head + ("\n" + tb if tb else "")


def _alarm_handler(signum, frame):
    raise _Timeout()


def _arm(seconds):
    if _setitimer is not None and seconds:
        _setitimer(_ITIMER_REAL, seconds)


def _disarm():
    if _setitimer is not None:
        _setitimer(_ITIMER_REAL, 0)


def _set_limits(limits):
    try:
        import resource
    except ImportError:  # not POSIX: nothing to apply
        return
    names = {
        "as": "RLIMIT_AS",
        "cpu": "RLIMIT_CPU",
        "nproc": "RLIMIT_NPROC",
        "fsize": "RLIMIT_FSIZE",
        "core": "RLIMIT_CORE",
    }
    for key, value in limits.items():
        res = getattr(resource, names[key], None)
        if res is None or value is None:
            continue
        value = int(value)
        try:
            soft, hard = resource.getrlimit(res)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def _install_seccomp(spec):
    """Deny-list filter: no network sockets, no signals to other processes, no
    new sessions/process groups (so the parent's group kill reaches every
    descendant), no ptrace/mount/namespaces/kernel interfaces."""
    for p in spec.get("path", []):
        if p not in sys.path:
            sys.path.append(p)
    import seccomp  # Debian python3-seccomp
    import socket

    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    for name in (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "unshare",
        "setns",
        "keyctl",
        "add_key",
        "request_key",
        "bpf",
        "perf_event_open",
        "setsid",
        "setpgid",
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "reboot",
        "swapon",
        "swapoff",
        "iopl",
        "ioperm",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "pidfd_send_signal",
        "pidfd_getfd",
        "tkill",
        "acct",
        "settimeofday",
        "clock_settime",
        "syslog",
        "quotactl",
        "open_by_handle_at",
        "name_to_handle_at",
        "fanotify_init",
        "vhangup",
    ):
        try:
            f.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):
            pass  # syscall unknown on this architecture
    me = os.getpid()
    f.add_rule(deny, "kill", seccomp.Arg(0, seccomp.NE, me))
    f.add_rule(deny, "tgkill", seccomp.Arg(0, seccomp.NE, me))
    f.add_rule(seccomp.ERRNO(errno.EACCES), "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    f.load()


import collections as _collections

#: Standard-library dict subclasses that Python compares equal to a dict
#: (``Counter({1: 2}) == {1: 2}``). Exactly these classes (captured before the
#: program loads; subclasses of them do not count) are copied into plain dicts.
_DICT_LIKE = (_collections.Counter, _collections.OrderedDict, _collections.defaultdict)
_dict_items = dict.items


def _normalize(value, depth=0):
    if depth > MAX_DEPTH:
        raise NotPlain("nested deeper than %d levels" % MAX_DEPTH)
    t = type(value)
    if t in _DICT_LIKE:
        return {k: _normalize(v, depth + 1) for k, v in _dict_items(value)}
    if t is dict:
        return {k: _normalize(v, depth + 1) for k, v in _dict_items(value)}
    if t is list:
        return [_normalize(v, depth + 1) for v in value]
    if t is tuple:
        return tuple([_normalize(v, depth + 1) for v in value])
    return value


def _plain(value, max_bytes):
    try:
        raw = _marshal_dumps(value)  # rejects anything but exact builtins, runs no user code
    except ValueError:
        original = value
        value = _normalize(value)
        try:
            raw = _marshal_dumps(value)
        except ValueError:
            raise NotPlain(
                "a value of type %s is not a plain built-in value (or contains one)" % _type_name(original)
            ) from None
    if len(raw) > max_bytes:  # cheap pre-check before the slower encoding
        raise NotPlain("value too large to report (%d bytes marshalled, limit %d)" % (len(raw), max_bytes))
    enc = encode_value(value)
    size = len(_dumps_json(enc))
    if size > max_bytes:
        raise NotPlain("value too large to report (%d bytes encoded, limit %d)" % (size, max_bytes))
    return enc


def _eval_expr(src, globals_, locals_):
    return eval(compile(src, "<test>", "eval"), globals_, locals_)


class _StrictCompare(ast.NodeTransformer):
    """For judge mode: ``a == b``/``a != b`` become strict comparisons."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            call = ast.Call(
                func=ast.Name(id="__qf_strict_eq__", ctx=ast.Load()), args=[node.left, node.comparators[0]], keywords=[]
            )
            new = call if isinstance(node.ops[0], ast.Eq) else ast.UnaryOp(op=ast.Not(), operand=call)
            return ast.copy_location(new, node)
        return node


def main():
    chan = _Channel(int(sys.argv[1]))
    raw = sys.stdin.buffer.read()
    job = json.loads(raw.decode("utf-8"))
    # The program must not read the job (or anything) from stdin.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    _set_limits(job.get("limits", {}))
    signal.signal(signal.SIGALRM, _alarm_handler)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG
    sec = job.get("seccomp")
    sec_status = None
    if sec is not None:
        try:
            _install_seccomp(sec)
            sec_status = "ok"
        except BaseException as exc:  # reported; the parent decides whether it is fatal
            sec_status = "failed: " + _short_error(exc, 0)
    chan.send(
        {"k": "hello", "pid": os.getpid(), "uid": os.getuid(), "seccomp": sec_status, "python": sys.version.split()[0]}
    )
    mode = job["mode"]
    if mode == "probe":
        chan.send({"k": "done"})
        _flush_and_exit()
    timeout = float(job.get("timeout", 3.0))
    max_value = int(job.get("max_value", 1 << 20))

    module = type(sys)("solution")
    sys.modules["solution"] = module
    g = module.__dict__
    g["__builtins__"] = builtins
    names = _LazyNames()

    # 1. trusted setup + the expected-value sub-expressions, before any untrusted code.
    chan.send({"k": "phase", "p": "setup"})
    setup_error = None
    setup_deferred = False
    _arm(timeout)
    try:
        if job.get("setup"):
            exec(compile(job["setup"], "<setup>", "exec"), g)
    except _Timeout:
        setup_error = "timeout: the setup code did not finish within %.3gs" % timeout
    except NameError as exc:
        # The setup uses something the program defines (MBPP builds trees from
        # the solution's Node class): run it again after the program loads.
        setup_deferred = mode == "run" and bool(job.get("program"))
        setup_error = "setup failed: " + _short_error(exc)
    except BaseException as exc:
        setup_error = "setup failed: " + _short_error(exc)
    finally:
        _disarm()
    if mode == "judge":
        _judge(chan, job, g, names, setup_error, timeout)
        _flush_and_exit()
    leaves = []
    if not job.get("skip_leaves"):
        for src in job.get("leaves", []):
            if setup_error is not None and not setup_deferred:
                leaves.append({"e": setup_error, "t": "setup"})
                continue
            _arm(timeout)
            try:
                leaves.append({"v": _plain(_eval_expr(src, g, names), max_value)})
            except _Timeout:
                leaves.append({"e": "timeout evaluating %s" % src, "t": "timeout"})
            except NotPlain as exc:
                leaves.append({"e": str(exc), "t": "notplain"})
            except BaseException as exc:
                leaves.append({"e": _short_error(exc, 1), "t": _type_name(exc)})
            finally:
                _disarm()
        chan.send({"k": "leaves", "v": leaves})

    # 2. the untrusted program. From here on nothing the child says is trusted
    # beyond "this plain value came out".
    chan.send({"k": "phase", "p": "load"})
    load_error = None if setup_deferred else setup_error
    if load_error is None:
        _arm(timeout)
        try:
            if job.get("program"):
                exec(compile(job["program"], "<program>", "exec"), g)
            if setup_deferred:
                load_error = setup_error  # if the setup fails again, this is why
                exec(compile(job["setup"], "<setup>", "exec"), g)
                load_error = None
        except _Timeout:
            load_error = "timeout: the program did not finish loading within %.3gs" % timeout
        except SystemExit as exc:
            load_error = "the program called exit (%r) while loading" % (exc.code,)
        except BaseException as exc:
            load_error = _short_error(exc)
        finally:
            _disarm()
    if load_error is not None:
        chan.send({"k": "load_error", "e": load_error})
        _flush_and_exit()
    chan.send({"k": "loaded"})

    # 3. the call under test of each test, one at a time under the soft alarm.
    for test in job["tests"]:
        i = test["i"]
        chan.send({"k": "start", "i": i})
        values = []
        msg = {"k": "res", "i": i}
        t0 = _monotonic()
        _arm(timeout)
        try:
            for src in test["subjects"]:
                values.append(_eval_expr(src, g, names))
            msg["v"] = [_plain(v, max_value) for v in values]
        except _Timeout:
            msg["st"] = "timeout"
            msg["e"] = "timeout: no result within %.3gs" % timeout
        except NotPlain as exc:
            msg["st"] = "fail"
            msg["e"] = str(exc)
        except SystemExit as exc:
            msg["st"] = "error"
            msg["e"] = "SystemExit: the program called exit (%r) during the test" % (exc.code,)
        except BaseException as exc:
            msg["st"] = "error"
            msg["e"] = _short_error(exc)
        finally:
            _disarm()
        msg["d"] = _monotonic() - t0
        chan.send(msg)
    chan.send({"k": "done"})
    _flush_and_exit()


def _judge(chan, job, g, names, setup_error, timeout):
    """Evaluate whole asserts whose shape the parent's evaluator does not know,
    with the program's values (already plain, decoded here) in place of the
    calls. No untrusted program is loaded in this process."""
    g["__qf_strict_eq__"] = strict_eq
    chan.send({"k": "phase", "p": "judge"})
    for item in job["items"]:
        i = item["i"]
        chan.send({"k": "start", "i": i})
        msg = {"k": "res", "i": i}
        if setup_error is not None:
            msg["st"] = "error"
            msg["e"] = setup_error
            chan.send(msg)
            continue
        _arm(timeout)
        try:
            local = _LazyNames()
            for k, enc in enumerate(item["subjects"]):
                local["__qf_s%d" % k] = decode_value(enc)
            tree = ast.parse(item["expr"], mode="eval")
            tree = ast.fix_missing_locations(_StrictCompare().visit(tree))
            ok = eval(compile(tree, "<test>", "eval"), g, local)
            msg["ok"] = bool(ok)
        except _Timeout:
            msg["st"] = "timeout"
            msg["e"] = "timeout: the assert did not finish within %.3gs" % timeout
        except BaseException as exc:
            msg["st"] = "error"
            msg["e"] = _short_error(exc, 1)
        finally:
            _disarm()
        chan.send(msg)
    chan.send({"k": "done"})


def _flush_and_exit():
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    _os_exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        # A broken job or harness: say so on stderr; the parent reports it.
        try:
            traceback.print_exc()
        finally:
            _os_exit(3)
