import pytest

from qflow_tui.core.asserts import expected_source, question_form, replace_call
from qflow_tui.core.extract import extract_asserts, extract_program, extract_test_case, extract_yes_no


@pytest.mark.parametrize(
    "src,question,expected",
    [
        ('assert f("a") == "b"', 'assert f("a") == ?', '"b"'),
        (
            "assert math.isclose(g(0, 1j), 1.57, rel_tol=0.001)",
            "assert math.isclose(g(0, 1j), ?, rel_tol=0.001)",
            "1.57",
        ),
        ("assert abs(f(2) - 3.0) < 1e-6", "assert abs(f(2) - ?) < 1e-6", "3.0"),
        ("assert not f(2)", "assert f(2) == ?", None),
        ("assert f(2)", "assert f(2) == ?", None),
        ("assert set(f(1)) == set((1, 2))", "assert set(f(1)) == ?", "set((1, 2))"),
        ("assert [1] == f(0)", "assert ? == f(0)", "[1]"),
    ],
)
def test_question_form_replaces_the_expected_value(src, question, expected):
    entry = "g" if "g(" in src else "f"
    assert question_form(src, entry) == question
    assert expected_source(src, entry) == expected


def test_replace_call_keeps_the_rest_of_the_assert():
    assert replace_call("assert math.isclose(g(0, 1j), 1.57, rel_tol=0.001)", "math.pi / 2", "g") == (
        "assert math.isclose((math.pi / 2), 1.57, rel_tol=0.001)"
    )


def test_program_extraction_prefers_the_block_defining_the_entry_point():
    text = "Plan...\n```python\nx = 1\n```\nFinal:\n```python\ndef f(a):\n    return a\n\nassert f(1) == 1\nprint(f(2))\n```\nDone."
    assert extract_program(text, "f") == "def f(a):\n    return a"


def test_program_extraction_handles_an_unclosed_fence_and_bare_code():
    assert extract_program("```python\ndef f():\n    return 1\n", "f") == "def f():\n    return 1"
    assert extract_program("def f():\n    return 2\n", "f") == "def f():\n    return 2"


@pytest.mark.parametrize(
    "reply,expected",
    [
        ("<test_case>assert f(1) == 2</test_case>", "assert f(1) == 2"),
        ("assert first_Digit(123) == 1", "assert first_Digit(123) == 1"),  # Appendix G example 1: no tags
        (
            "Sure!\n<test_case>\n```python\nassert f(1) == [1,\n 2]\n```\n</test_case>\nHope it helps.",
            "assert f(1) == [1,\n2]",
        ),
        ("reasoning...\nassert f(1) == 3\nSo the answer is 3.", "assert f(1) == 3"),
        ("I could not do it.", None),
    ],
)
def test_test_case_extraction_is_tolerant(reply, expected):
    assert extract_test_case(reply) == expected


def test_assert_extraction_salvages_good_lines_from_a_broken_block():
    text = "```python\nassert f(1) == 2\nassert f(2) == \nassert f(3) == 4\n```"
    assert extract_asserts(text) == ["assert f(1) == 2", "assert f(3) == 4"]


def test_yes_no():
    assert extract_yes_no("Yes, it is correct.") is True
    assert extract_yes_no("No.") is False
    assert extract_yes_no("Maybe") is None
