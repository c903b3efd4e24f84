import pytest

from qflow_tui.core.problem import ProblemError, make_problem, parse_tests

SHAPES = [
    ("assert f(1) == 2", "f(1)"),
    ("assert f(1) != 3", "f(1)"),
    ("assert not f(0)", "f(0)"),
    ("assert f(2)", "f(2)"),
    ("assert math.isclose(f(1.0), 2.5, rel_tol=0.001)", "f(1.0)"),
    ("assert abs(f(2) - 3.14) < 1e-6", "f(2)"),
    ("assert set(f([1, 2])) == set([2, 1])", "f([1, 2])"),
    ("assert sorted(f([3, 1])) == [1, 3]", "f([3, 1])"),
]


@pytest.mark.parametrize("src,call", SHAPES)
def test_every_assert_shape_is_parsed_with_its_call(src, call):
    tests, entry, _ = parse_tests(src)
    assert entry == "f"
    assert tests[0].call == call
    assert tests[0].source == src


def test_multi_line_asserts_stay_whole_and_keep_their_line():
    text = "assert f(1) == 2\n\nassert f(\n    [1, 2,\n     3]\n) == [\n  3, 2, 1]\n# a comment\nassert f(0) == 0\n"
    tests, _entry, _ = parse_tests(text)
    assert [t.line for t in tests] == [1, 3, 9]
    assert tests[1].source.startswith("assert f(\n")
    assert tests[1].source.endswith("3, 2, 1]")


def test_entry_point_is_the_function_most_tests_call_not_a_builtin():
    _tests, entry, _ = parse_tests("assert len(g(1)) == 1\nassert g(2) == [2]\nassert sorted(g(3)) == [3]")
    assert entry == "g"


def test_imports_become_setup_and_math_is_implied():
    p = make_problem("s", "import re\nassert math.isclose(f(1), 1.0)")
    assert "import re" in p.setup and "import math" in p.setup


def test_mbpp_11_from_the_paper():
    p = make_problem(
        "Write a python function to remove first and last occurrence of a given character from the string.",
        'assert remove_Occ("hello","l") == "heo"\nassert remove_Occ("abcda","a") == "bcd"\nassert remove_Occ("PHP","P") == "H"',
    )
    assert p.entry_point == "remove_Occ" and len(p.tests) == 3


@pytest.mark.parametrize(
    "statement,tests,message",
    [
        ("s", "", "no tests given"),
        ("s", "   \n  ", "no tests given"),
        ("", "assert f(1) == 2", "statement is empty"),
        ("s", "x = 1", "line 1: not a single assert"),
        ("s", "assert f(1) == 2\nassert f(2) ==", "line 2: not valid Python"),
        ("s", "assert f(1) == 2\nprint(f(1))", "line 2"),
        ("s", "import math", "no assert found"),
        ("s", "f(1) should be 2", "line 1: not an assert"),
        ("s", "assert 1 == 1", "could not tell which function"),
    ],
)
def test_bad_input_gets_a_message_naming_the_line_and_reason(statement, tests, message):
    with pytest.raises(ProblemError) as err:
        make_problem(statement, tests)
    assert message in str(err.value)


def test_explicit_entry_point_must_be_called_by_every_test():
    with pytest.raises(ProblemError, match=r"line 2: does not call f\(\)"):
        make_problem("s", "assert f(1) == 2\nassert g(1) == 2", entry_point="f")
    with pytest.raises(ProblemError, match="not a Python function name"):
        make_problem("s", "assert f(1) == 2", entry_point="1f")


def test_problem_round_trips_through_a_dict():
    p = make_problem("Add.", "assert add(1, 2) == 3", title="Add")
    q = type(p).from_dict(p.to_dict())
    assert q.to_dict() == p.to_dict()


def test_titles_tell_problems_apart():
    from qflow_tui.core.bench.datasets import load_benchmark_problem
    from qflow_tui.core.session.fileformat import session_title

    # A benchmark problem: its id and entry point first, then the gist of its statement.
    assert load_benchmark_problem("humaneval/12").title.startswith("humaneval/12 longest: Out of list of strings")
    assert load_benchmark_problem("mbpp/11").title.startswith("mbpp/11 remove_Occ: remove first and last")
    # A pasted HumanEval-style prompt: the docstring's first line, not the import.
    prompt = 'from typing import List\n\n\ndef total(xs: List[int]) -> int:\n    """ Sum the numbers.\n    """\n'
    assert make_problem(prompt, "assert total([1]) == 1").title == "Sum the numbers."
    # An older session titled by its prompt's import line gets the title it would get now.
    header = {
        "title": "from typing import List",
        "problem": {"statement": prompt, "task_id": "humaneval/99", "entry_point": "total"},
    }
    assert session_title(header) == "humaneval/99 total: Sum the numbers."
