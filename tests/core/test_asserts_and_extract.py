import pytest

from qflow_tui.core.asserts import expected_source, find_call, question_form, replace_call, value_from_assert
from qflow_tui.core.extract import (
    extract_asserts,
    extract_program,
    extract_test_case,
    extract_value_only,
    extract_yes_no,
    extraction,
)


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
        ("assert abs(2.5 - f(2)) <= 1e-6", "assert abs(? - f(2)) <= 1e-6", "2.5"),
        ("assert [1] == f(0)", "assert ? == f(0)", "[1]"),
        # Shapes where the assert does not hold the call's value: ask for the value itself.
        ("assert not f(2)", "assert f(2) == ?", None),
        ("assert f(2)", "assert f(2) == ?", None),
        ("assert set(f(1)) == set((1, 2))", "assert f(1) == ?", None),
        ("assert len(f(1)) == 3", "assert f(1) == ?", None),
        ("assert f(1)[0] == 1", "assert f(1) == ?", None),
        ("assert f(1) != 5", "assert f(1) == ?", None),
        ("assert f(1) in (3, 4)", "assert f(1) == ?", None),
        ("assert isinstance(f(1), list)", "assert f(1) == ?", None),
        ("assert f(1) is None", "assert f(1) == ?", None),
        ("assert 0 < f(1) < 5", "assert f(1) == ?", None),
        ("assert f(1) + 1 == 3", "assert f(1) == ?", None),
        ("assert g(f(1)) == 3", "assert f(1) == ?", None),
        ("assert math.isclose(len(f(1)), 3)", "assert f(1) == ?", None),
    ],
)
def test_question_form_replaces_the_expected_value(src, question, expected):
    entry = "g" if "g(0" in src else "f"
    assert question_form(src, entry) == question
    assert expected_source(src, entry) == expected


def test_the_call_under_test_is_the_first_outermost_one_in_source_order():
    # The same call the sandbox replaces with the imagined value.
    assert find_call("assert g(f(1)) == f(2)", "f").source == "f(1)"
    assert find_call("assert f(f(1)) == 3", "f").source == "f(f(1))"


@pytest.mark.parametrize(
    "answer,question,value",
    [
        ("assert f(1) == [1, 2]", "assert f(1) == ?", "[1, 2]"),
        ("assert f(1)==  'x'", "assert f(1) == ?", "'x'"),
        ("assert math.isclose(f(1), 2.5, rel_tol=0.1)", "assert math.isclose(f(1), ?, rel_tol=0.1)", "2.5"),
        ("assert abs(f(2) - (1 + 2)) < 1e-6", "assert abs(f(2) - ?) < 1e-6", "1 + 2"),
        ("assert [3] == f(0)", "assert ? == f(0)", "[3]"),
        # The model reshaped the question but still compares the call's value directly.
        ("assert f( 1 ) == 7", "assert math.isclose(f(1), ?, rel_tol=0.1)", "7"),
        ("assert math.isclose(f(1), 7.5)", "assert f(1) == ?", "7.5"),
        # The model wrote the call differently (Appendix G example 2 lost its quotes).
        ("assert f('a', b) == 'x'", "assert f('a', 'b') == ?", "'x'"),
        ("assert g(2) == 7", "assert f(2) == ?", "7"),  # renamed the function: the right-hand side
        # Copied the original shape back: it holds no value for f(1).
        ("assert len(f(1)) == 3", "assert f(1) == ?", None),
        ("assert f(1) == ?", "assert f(1) == ?", None),
        ("not an assert", "assert f(1) == ?", None),
    ],
)
def test_the_value_is_read_where_the_question_mark_stood(answer, question, value):
    assert value_from_assert(answer, question, "f") == value


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


def test_a_body_only_answer_keeps_its_indentation():
    # A completion model answers with the body alone, indented to sit under
    # the prompt's def: stripping the first line's indent made every such
    # answer an IndentationError once the prompt went in front.
    body = "    total = sum(xs)\n    return total\n"
    assert extract_program(body, "f") == body.rstrip()
    assert extract_program("\n\n" + body, "f") == body.rstrip()
    assert extract_program("```python\n" + body + "```", "f") == body.rstrip()
    prompt = 'def f(xs):\n    """Sum."""\n'
    namespace: dict[str, object] = {}
    exec(prompt + extract_program(body, "f"), namespace)
    assert namespace["f"]([1, 2]) == 3  # type: ignore[operator]


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c"])
def test_program_text_is_kept_byte_for_byte(sep):
    # Python breaks lines at \n, \r\n and \r only; splitlines() also at
    # these, and joining what it gave with \n changed the program (a comment's
    # tail became code: an IndentationError) and its exported text.
    program = f"def f(a):  # why:{sep}more\n    s = 'x{sep}y'\n    return a  # x{sep}    y\n"
    demo = "print(f(1))\nassert f(1) == 1\n"
    namespace: dict[str, object] = {}
    exec(program, namespace)  # the program is valid Python as it is
    assert extract_program(f"```python\n{program}{demo}```", "f") == program.rstrip()
    assert extract_program(program + demo, "f") == program.rstrip()


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_line_ends_are_kept(end):
    program = f"def f(a):{end}    return a{end}"
    demo = f"print(f(1)){end}"
    assert extract_program(f"```python\n{program}{demo}```", "f") == program.rstrip()
    assert extract_program(program + demo, "f") == program.rstrip()


def test_extraction_removes_only_what_it_says():
    text = (
        "```python\nimport math\n\nX = 2; print(X)\n\ndef f(a):\n    print(a)\n    return a * X\n\n"
        "print(f(1))\nassert f(2) == 4\nif __name__ == '__main__':\n    f(3)\nf(4)\n```"
    )
    assert extract_program(text, "f") == (
        "import math\n\nX = 2; print(X)\n\ndef f(a):\n    print(a)\n    return a * X\n\nf(4)"
    )


def test_the_raw_extraction_judges_the_answer_as_written():
    answer = "Here you go:\n```python\ndef f(a):\n    return a\n```\nprint(1)\n"
    token = extraction.set("raw")
    try:
        assert extract_program(answer, "f") == answer
    finally:
        extraction.reset(token)
    assert extract_program(answer, "f") == "def f(a):\n    return a"


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


@pytest.mark.parametrize(
    "reply,verdict",
    [
        ("Yes, it is correct.", True),
        ("No.", False),
        ("Maybe", None),
        # The final answer counts, not the first yes/no word on the way to it.
        ("Let me check: yes the loop... Final answer: No", False),
        ("No obvious bug at first sight; the loop bound is right.\n\n**Yes**", True),
        ("Is it correct? Yes for the first test, but the second fails.\nVerdict: no", False),
        ("yes, no, yes... The answer is: Yes.", True),
        ("It has no bugs, so yes", True),
    ],
)
def test_yes_no_reads_the_final_answer(reply, verdict):
    assert extract_yes_no(reply) is verdict


@pytest.mark.parametrize(
    "reply,value",
    [
        ("<test_case>1</test_case>", "1"),
        ("<test_case>\n```python\n[1, 2]\n```\n</test_case>", "[1, 2]"),
        ("[1, 2]", "[1, 2]"),
        ("```python\n{'a': 1}\n```", "{'a': 1}"),
        ("The output is: 1", "1"),
        ("first_Digit(123) returns 1", "1"),
        ("So the result is [1, 2].", "[1, 2]"),
        # Prose is not a value; a bare word is one only when it stands alone.
        ("Therefore, the output will be: polgon", None),
        ("I could not work it out.", None),
    ],
)
def test_a_value_without_an_assert_is_read(reply, value):
    assert extract_value_only(reply) == value


def test_extraction_parses_each_block_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a block parses, whether it defines the entry point and its demo
    lines all come from one parse of it (parsing was most of the extraction)."""
    from qflow_tui.core import pyparse

    parsed: list[str] = []
    real = pyparse.parse

    def counting(source: str, mode: str = "exec") -> object:
        parsed.append(source)
        return real(source, mode)

    monkeypatch.setattr(pyparse, "parse", counting)
    answer = (
        "First try:\n```python\ndef g(x):\n    return x\n```\n"
        "Then:\n```python\ndef f(x):\n    return x + 1\n\nassert f(1) == 2\nprint(f(2))\n```\n"
    )
    assert extract_program(answer, "f") == "def f(x):\n    return x + 1"
    assert len(parsed) == len(set(parsed)) == 1
    parsed.clear()
    assert extract_program(answer, "h") == "def f(x):\n    return x + 1"  # no block defines h: the last that parses
    assert len(parsed) == len(set(parsed)) == 2
