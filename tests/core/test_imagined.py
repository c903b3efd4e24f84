"""The four Imagined Execution examples of QualityFlow Appendix G, with a script
model that answers what the paper's model answered; the verdicts must be the
paper's."""

from __future__ import annotations

import pytest

from qflow_tui.core.imagined import imagined_execution, parse_value
from qflow_tui.core.problem import make_problem
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
    # Example 2: correct code, incorrectly rejected (the model's value is wrong,
    # and as printed in the paper not even quoted).
    "replace_char": {
        "statement": "Write a function to replace characters in a string.",
        "test": "assert replace_char(\"polygon\",'y','l')==(\"pollgon\")",
        "program": "def replace_char(string, old_char, new_char):\n    return string.replace(old_char, new_char)\n",
        "turn1": "Let me solve this step by step: ... polygon -> polgon\nTherefore, the output will be: polgon",
        "turn2": "<test_case>assert replace_char('polygon', 'y', 'l') == polgon</test_case>",
        "verdict": "fail",
        "value": "polgon",
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
