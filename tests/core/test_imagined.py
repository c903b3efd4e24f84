"""The four Imagined Execution examples of QualityFlow Appendix G, with a script
model that answers what the paper's model answered; the verdicts must be the
paper's."""

from __future__ import annotations

import ast

import pytest

from qflow_tui.core.problem import make_problem
from qflow_tui.core.workflows.qualityflow.imagined import imagined_execution, parse_value
from tests.helpers import make_ctx

EXAMPLES = {
    # Example 1: correct code, correctly accepted; the model forgot the tags.
    "first_Digit": {
        "statement": "Write a python function to find the first digit of a given number.",
        "test": "assert first_Digit(123) == 1",
        "program": "def first_Digit(n):\n    # Convert number to string and get first character\n    return int(str(n)[0])\n",
        "turn1": "Let me solve this step by step:\n1) ...\n3) Therefore:\n* first_Digit(123) returns 1\nThe output is: 1",
        "turn2": "assert first_Digit(123) == 1",
        "verdict": "pass",
        "value": "1",
    },
    # Example 2: correct code, incorrectly rejected: the model's value is wrong.
    # (The paper's text lost its quote marks in extraction; the model's answer was
    # the string 'polgon', and the check must fail on that value, not on a NameError.)
    "replace_char": {
        "statement": "Write a function to replace characters in a string.",
        "test": "assert replace_char(\"polygon\",'y','l')==(\"pollgon\")",
        "program": "def replace_char(string, old_char, new_char):\n    return string.replace(old_char, new_char)\n",
        "turn1": "Let me solve this step by step: ... polygon -> polgon\nTherefore, the output will be: 'polgon'",
        "turn2": "<test_case>assert replace_char('polygon', 'y', 'l') == 'polgon'</test_case>",
        "verdict": "fail",
        "value": "'polgon'",
        "detail": "the imagined value 'polgon' does not satisfy the assert",
    },
    # Example 3: incorrect code, incorrectly accepted: math.pi / 2 is close to
    # 1.5707963267948966 under rel_tol, so the check passes.
    "angle_complex": {
        "statement": "Write a function to get the angle of a complex number.",
        "test": "assert math.isclose(angle_complex(0,1j), 1.5707963267948966, rel_tol=0.001)",
        "program": (
            "import math\nimport cmath\ndef angle_complex(real, imag):\n    z = complex(real, imag)\n"
            "    angle = cmath.phase(z)\n    if angle < 0:\n        angle += 2 * math.pi\n    return angle\n"
        ),
        "turn1": (
            "Lets think through this step-by-step: ... 8) The function returns pi/2.\n"
            "```python\nassert math.isclose(angle_complex(0, 1j), math.pi / 2, rel_tol=0.001)\n```"
        ),
        "turn2": "<test_case>assert math.isclose(angle_complex(0, 1j), math.pi / 2, rel_tol=0.001)</test_case>",
        "verdict": "pass",
        "value": "math.pi / 2",
    },
    # Example 4: incorrect code, correctly rejected ('B' ends as 'Blue', the test wants 'Black').
    "merge_dictionaries_three": {
        "statement": "Write a function to merge three dictionaries into a single dictionary.",
        "test": (
            'assert merge_dictionaries_three({ "R": "Red", "B": "Black", "P": "Pink" }, '
            '{ "G": "Green", "W": "White" },{ "L":"lavender","B":"Blue"})=='
            "{'W': 'White', 'P': 'Pink', 'B': 'Black', 'R': 'Red', 'G': 'Green', 'L': 'lavender'}"
        ),
        "program": (
            "def merge_dictionaries_three(dict1, dict2, dict3):\n    merged_dict = dict1.copy()\n"
            "    merged_dict.update(dict2)\n    merged_dict.update(dict3)\n    return merged_dict\n"
        ),
        "turn1": "Lets think through this step-by-step: ... the B key has the value Blue in the final dictionary.",
        "turn2": (
            "<test_case>assert merge_dictionaries_three({'R': 'Red', 'B': 'Black', 'P': 'Pink'}, {'G': 'Green', 'W': 'White'}, "
            "{'L': 'lavender', 'B': 'Blue'}) == {'R': 'Red', 'B': 'Blue', 'P': 'Pink', 'G': 'Green', 'W': 'White', 'L': 'lavender'}</test_case>"
        ),
        "verdict": "fail",
        "value": "{'R': 'Red', 'B': 'Blue', 'P': 'Pink', 'G': 'Green', 'W': 'White', 'L': 'lavender'}",
        "detail": "does not satisfy the assert",
    },
}


@pytest.mark.parametrize("name", list(EXAMPLES))
async def test_appendix_g_examples_get_the_papers_verdicts(name):
    ex = EXAMPLES[name]
    problem = make_problem(ex["statement"], ex["test"])
    seen: list[dict] = []

    def respond(request):
        seen.append(request)
        return ex["turn1"] if request["turn"] == 1 else ex["turn2"]

    ctx, rec = make_ctx(problem, respond)
    (result,) = await imagined_execution(ctx, ex["program"], [ex["test"]], step="program_generator", progression=0)
    assert result.value == ex["value"]
    assert result.verdict == ex["verdict"], result.detail
    # A rejection for the right reason: the value is wrong, not unusable.
    assert ex.get("detail", "") in result.detail and (ex["verdict"] == "fail") == bool(result.detail)
    # The two-turn shape of Appendix G.
    first, second = seen
    assert (
        "<function>" in first["messages"][0]["content"]
        and "Think step by step and find the output." in first["messages"][0]["content"]
    )
    assert "<function_call>" in first["messages"][0]["content"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    from qflow_tui.core.asserts import question_form

    assert question_form(ex["test"]) + "\n" in second["messages"][-1]["content"]
    assert "?" in question_form(ex["test"])
    assert "Answer in <test_case> ... </test_case> tag." in second["messages"][-1]["content"]
    check = rec.of("imagined_check")[0]
    assert (check.verdict, check.value, check.test) == (ex["verdict"], ex["value"], ex["test"])


def test_turn_two_question_for_example_3_keeps_rel_tol():
    from qflow_tui.core.asserts import question_form

    assert question_form(EXAMPLES["angle_complex"]["test"], "angle_complex") == (
        "assert math.isclose(angle_complex(0,1j), ?, rel_tol=0.001)"
    )


@pytest.mark.parametrize(
    "answer,value",
    [
        ("assert f(1) == [1, 2]", "[1, 2]"),
        ("assert f(1)==  'x'", "'x'"),
        ("assert math.isclose(f(1), 2.5, rel_tol=0.1)", "2.5"),
        ("assert g(2) == 7", "7"),  # the model renamed the function: read the right-hand side
        ("", None),
    ],
)
def test_value_parsing_is_tolerant(answer, value):
    question = "assert math.isclose(f(1), ?, rel_tol=0.1)" if "isclose" in answer else "assert f(1) == ?"
    assert parse_value(answer, question, "f") == value


# Every assert shape: the model is asked the turn-two question for that shape and
# answers it as a perfect emulator of a program would (the value that makes the
# completed assert true for that program). Imagining the checked program itself,
# the check must pass; imagining a buggy one, it must fail on the wrong value.
SHAPES = [
    # (test, the checked program's body, a buggy body whose value breaks the assert)
    ("assert f(3) == 3", "return x", "return x + 1"),
    ("assert [0, 1, 2] == f(3)", "return list(range(x))", "return list(range(x - 1))"),
    ("assert math.isclose(f(2), 1.414, rel_tol=0.01)", "return x ** 0.5", "return x / 1.3"),
    ("assert abs(f(2) - 1.414) < 0.01", "return x ** 0.5", "return x / 1.3"),
    ("assert len(f(3)) == 3", "return list(range(x))", "return list(range(x - 1))"),
    ("assert f(3)[0] == 0", "return list(range(x))", "return list(range(1, x))"),
    ("assert f(3) != 5", "return x", "return 5"),
    ("assert f(3) in (3, 4)", "return x", "return x + 2"),
    ("assert isinstance(f(3), list)", "return list(range(x))", "return tuple(range(x))"),
    ("assert f(3) is None", "return None", "return 0"),
    ("assert not f(3)", "return []", "return [x]"),
    ("assert f(3)", "return [x]", "return []"),
    ("assert set(f(3)) == {0, 1, 2}", "return list(range(x))[::-1]", "return [2, 1]"),
    ("assert sorted(f(3)) == [0, 1, 2]", "return [2, 0, 1]", "return [2, 0]"),
    ("assert 0 < f(3) < 5", "return x", "return x + 4"),
    ("assert f(3) + 1 == 4", "return x", "return x + 1"),
]


def _emulating(body: str, *, how: str = "assert"):
    """A model that imagines ``def f(x): <body>`` perfectly: asked ``assert X == ?``
    (or ``? == X``, ``isclose(X, ?)``, ``abs(X - ?) < e``), it answers with the
    value of X for that program."""
    from qflow_tui.core.asserts import HOLE

    scope: dict = {}
    exec(f"import math\ndef f(x):\n    {body}\n", scope)  # trusted test code, not model output

    def value_for(question: str) -> str | None:
        test = ast.parse(question.replace("?", HOLE)).body[0].test
        hole = lambda n: isinstance(n, ast.Name) and n.id == HOLE  # noqa: E731
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = test.left, test.comparators[0]
            if isinstance(left, ast.Call) and getattr(left.func, "id", "") == "abs" and isinstance(test.ops[0], ast.Lt):
                left, right = left.args[0].left, left.args[0].right
            elif not isinstance(test.ops[0], (ast.Eq, ast.Is)):
                return None  # "f(3) != ?", "f(3) in ?": no single right answer
            if hole(left) or hole(right):
                return repr(eval(ast.unparse(right if hole(left) else left), scope))
        if isinstance(test, ast.Call) and len(test.args) >= 2 and hole(test.args[1]):
            value = eval(ast.unparse(test.args[0]), scope)
            return type(value).__name__ if getattr(test.func, "id", "") == "isinstance" else repr(value)
        return None

    def respond(request):
        if request["turn"] == 1:
            return "Step by step, the function ..."
        question = request["messages"][-1]["content"].splitlines()[1]
        value = value_for(question)
        if value is None:
            return "I cannot complete this test case."
        if how == "assert":
            return f"<test_case>{question.replace('?', value)}</test_case>"
        if how == "tag":
            return f"<test_case>{value}</test_case>"
        return value  # the bare value, no tags, no assert

    return respond


@pytest.mark.parametrize("test,body,buggy", SHAPES)
async def test_every_assert_shape_accepts_a_perfect_answer_and_rejects_a_wrong_value(test, body, buggy):
    problem = make_problem("Do f.", test)
    program = f"def f(x):\n    {body}\n"
    ctx, rec = make_ctx(problem, _emulating(body))
    (result,) = await imagined_execution(ctx, program, [test], step="program_generator", progression=0)
    assert result.verdict == "pass", (result.question, result.answer, result.detail)
    assert rec.of("imagined_check")[0].verdict == "pass"

    ctx, _ = make_ctx(problem, _emulating(buggy))
    (result,) = await imagined_execution(ctx, program, [test], step="program_generator", progression=0)
    assert result.verdict == "fail" and "does not satisfy the assert" in result.detail, result.detail


@pytest.mark.parametrize("how", ["tag", "bare"])
async def test_a_value_only_answer_is_read(how):
    test = "assert len(f(3)) == 3"
    problem = make_problem("Do f.", test)
    ctx, _ = make_ctx(problem, _emulating("return list(range(x))", how=how))
    (result,) = await imagined_execution(
        ctx, "def f(x):\n    return list(range(x))\n", [test], step="program_generator", progression=0
    )
    assert (result.verdict, result.value) == ("pass", "[0, 1, 2]")


async def test_an_unreadable_answer_says_so_and_shows_the_answer():
    test = "assert f(3) == 3"
    reply = "I am not sure what the function does with that input."
    ctx, rec = make_ctx(make_problem("Do f.", test), lambda r: "thinking..." if r["turn"] == 1 else reply)
    await imagined_execution(ctx, "def f(x):\n    return x\n", [test], step="s", progression=0)
    check = rec.of("imagined_check")[0]
    assert check.verdict == "fail" and check.value is None
    assert check.answer == reply  # the trace shows what the model said
    assert "could not be read" in check.detail and "f(3)" in check.detail


async def test_the_same_program_and_test_are_checked_once_and_the_saved_calls_counted():
    tests = ["assert f(3) == 3", "assert f(4) == 4"]
    problem = make_problem("Do f.", "\n".join(tests))
    program = "def f(x):\n    return x\n"

    def respond(request):
        x = request["test"].split("f(")[1].split(")")[0]
        return "..." if request["turn"] == 1 else f"<test_case>assert f({x}) == {x}</test_case>"

    ctx, rec = make_ctx(problem, respond)
    from qflow_tui.core.context import gather_all

    # Two progressions check the same program at once, a third later with other whitespace.
    first, second = await gather_all(
        imagined_execution(ctx, program, tests, step="program_generator", progression=p) for p in (0, 1)
    )
    third = await imagined_execution(ctx, "\n" + program + "\n", tests, step="self_debug:1", progression=2)
    assert ctx.llm_calls == 4 and ctx.reused_calls == 8
    assert all(r.passed for r in [*first, *second, *third])
    checks = rec.of("imagined_check")
    assert len(checks) == 6
    assert sum("verdict reused" in c.detail for c in checks) == 4
    # A different program is asked about again.
    await imagined_execution(ctx, program + "# changed\n", tests, step="self_debug:1", progression=2)
    assert ctx.llm_calls == 8 and ctx.reused_calls == 8


async def test_a_failed_check_is_not_reused_and_the_waiter_asks_itself():
    from qflow_tui.core.context import gather_all
    from qflow_tui.core.llm import LLMError

    test = "assert f(3) == 3"
    problem = make_problem("Do f.", test)
    failed: list[int] = []

    def respond(request):
        if request["progression"] == 0 and not failed:
            failed.append(0)
            raise RuntimeError("provider busy")
        return "..." if request["turn"] == 1 else "<test_case>assert f(3) == 3</test_case>"

    ctx, _ = make_ctx(problem, respond)
    outcomes = await gather_all(_guarded(ctx, p, test, LLMError) for p in (0, 1))
    assert outcomes[0] == "failed" and outcomes[1] == "pass"


async def _guarded(ctx, progression, test, error):
    try:
        (r,) = await imagined_execution(ctx, "def f(x):\n    return x\n", [test], step="s", progression=progression)
    except error:
        return "failed"
    return r.verdict


async def test_mbpp_367_test_setup_is_shown_to_the_checker_and_does_not_reject_by_construction():
    """The setup builds trees with the program's own Node class; the judge loads
    no program, and the value in place of the call needs none of the setup."""
    from qflow_tui.core.bench.datasets import load_bench_problem

    problem = load_bench_problem("mbpp/367").problem
    program = (
        "class Node:\n    def __init__(self, data):\n        self.data = data\n        self.left = None\n"
        "        self.right = None\n\ndef is_tree_balanced(root):\n    return True\n"
    )
    seen: list[str] = []

    def respond(request):
        seen.append(request["messages"][0]["content"])
        if request["turn"] == 1:
            return "..."
        tree = request["test"].split("(")[1].split(")")[0]
        return f"<test_case>assert is_tree_balanced({tree}) == {tree == 'root1'}</test_case>"

    ctx, _ = make_ctx(problem, respond)
    results = await imagined_execution(ctx, program, problem.test_sources, step="s", progression=0)
    assert [r.verdict for r in results] == ["pass", "pass", "pass"], [r.detail for r in results]
    assert "root1.left.left.left = Node(7)" in seen[0]  # turn one shows the setup
