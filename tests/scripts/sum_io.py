"""A script model that plays every workflow's agents on a stdin/stdout problem:
read integers on one line, print their sum (``STATEMENT`` and ``SAMPLES``).

The story: the first program reads only the first two integers, so it passes
two samples and fails the third (``1 2 3`` -> ``6``). QualityFlow's imagined
run of it prints ``3`` there and rejects it; the test designer writes four
tests, one of them wrong (``2 2`` -> ``5``), which the Test Quality Checker
rejects; the self-debugger sums every integer and the check accepts. CodeTree:
the first strategy sums two integers, the Critic has it refined, the Debugger
sums all. AdaCoder: the first program fails the samples, the Prompt Engineer's
plan fixes it. AgentCoder's test designer writes right pairs
(a large-scale one too) and its programmer sums all at once. Zero-shot keeps the
first program.

Every imagined output is what the program shown really prints (the two
programs are mirrored by ``first_two`` and ``every``). Use it with
``--model script/tests/scripts/sum_io.py``.
"""

import ast
import re

STREAM_DELAY = 0.0

STATEMENT = "Read integers on one line, separated by spaces, and print their sum."
SAMPLES = "Input\n1 2\nOutput\n3\n\nInput\n10 -4\nOutput\n6\n\nInput\n1 2 3\nOutput\n6\n"

FIRST_TWO = """a, b = map(int, input().split()[:2])
print(a + b)
"""

EVERY = """import sys

print(sum(map(int, sys.stdin.read().split())))
"""

DESIGNED = [("4 5\n", "9\n"), ("0 0 0 0\n", "0\n"), ("-3 3 7\n", "7\n"), ("2 2\n", "5\n")]  # the last is wrong


def first_two(text):
    a, b = map(int, text.split("\n", 1)[0].split()[:2])
    return f"{a + b}\n"


def every(text):
    return f"{sum(map(int, text.split()))}\n"


def _input_of(request):
    """The test's stdin: from its label (``input '1 2\\n' -> output '3\\n'``),
    else from the ``<input>`` block of the first turn."""
    label = request.get("test") or ""
    m = re.fullmatch(r"input (.*) -> output (.*)", label, re.S)
    if m and not label.endswith("…"):
        return ast.literal_eval(m.group(1))
    found = re.search(r"<input>\n(.*?)\n</input>", request["messages"][0]["content"], re.S)
    return found.group(1) + "\n" if found else ""


def _case(given, printed):
    return f"<test_case>\nInput\n{given.rstrip()}\nOutput\n{printed.rstrip()}\n</test_case>"


def _blocks(pairs):
    return "\n".join(f"Input\n{i.rstrip()}\nOutput\n{o.rstrip()}\n" for i, o in pairs)


def _code(program, before=""):
    return before + "```python\n" + program + "```"


def respond(request):
    agent = request["agent"]
    text = request["messages"][-1]["content"]
    # -- QualityFlow (and zero-shot's program generator) ------------------------
    if agent == "program_generator":
        if request.get("attempt"):
            return _code(EVERY, "Following the clarified statement, every integer is summed:\n")
        return _code(FIRST_TWO, "The line holds the integers; add them.\n")
    if agent == "code_quality_checker":
        program = request["messages"][0]["content"]
        given = _input_of(request)
        printed = (every if "sum(" in program else first_two)(given)
        if request["turn"] == 1:
            return f"The program reads the line {given.rstrip()!r} and adds its numbers.\nIt prints {printed.rstrip()}."
        return _case(given, printed)
    if agent == "test_designer":
        if "Large scale" in text:  # AgentCoder's test designer: its basic, edge and large-scale pairs
            return "Basic, edge and large-scale tests:\n\n" + _blocks(
                [*DESIGNED[:3], (" ".join(map(str, range(1, 201))) + "\n", "20100\n")]
            )
        if (request.get("attempt") or 1) > 1:
            return "No new tests."
        return _blocks(DESIGNED)
    if agent == "test_quality_checker":
        given = _input_of(request)
        return f"The sum of {given.split()} is {every(given).rstrip()}.\n" + _case(given, every(given))
    if agent == "self_debugger":
        return _code(EVERY, "The program adds only the first two integers; the statement asks for all of them.\n")
    if agent == "clarifier":
        return "<clarified_problem>Read one line of integers and print the sum of all of them.</clarified_problem>"
    if agent == "yesno_checker":
        return "Yes" if "sum(" in text else "No"
    # -- AgentCoder ----------------------------------------------------------------
    if agent == "programmer":
        return _code(EVERY, "Read every integer and print their sum.\n")
    # -- CodeTree ------------------------------------------------------------------
    if agent == "thinker":
        if "<reflection>" in text or "reflect" in text.lower():
            return "<reflection>Only two integers are summed; the line may hold more. Sum them all.</reflection>"
        return (
            "<strategy>Read the first two integers and print their sum.</strategy>\n"
            "<strategy>Read every integer on the line and print their sum.</strategy>"
        )
    if agent == "solver":
        strategy = text.split("Implement this strategy:", 1)[-1]
        return _code(EVERY if "every integer" in strategy else FIRST_TWO)
    if agent == "debugger":
        return _code(EVERY, "Following the reflection:\n")
    if agent == "critic":
        if "sum(" in text:
            return (
                "<critique>Every integer is summed.</critique>\n<test_score>10</test_score>\n"
                "<strategy_score>9</strategy_score>\n<action>accept</action>"
            )
        return (
            "<critique>Only the first two integers are summed: 1 2 3 prints 3, not 6.</critique>\n"
            "<test_score>4</test_score>\n<strategy_score>5</strategy_score>\n<action>refine</action>"
        )
    # -- AdaCoder ------------------------------------------------------------------
    if agent == "programming_assistant":
        if request.get("attempt"):
            return _code(EVERY, "Following the plan:\n")
        return _code(FIRST_TWO)
    if agent == "prompt_engineer":
        return "<plan>1. Read the whole line.\n2. Split it on spaces.\n3. Print the sum of every integer.</plan>"
    raise ValueError(f"sum_io script has no answer for agent {agent}")
