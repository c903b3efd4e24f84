"""A script model that plays the agents of every workflow on the stdin/stdout
problem docs/examples/add-two.json (read a and b, print a + b).

Each workflow's first program multiplies instead of adding (it prints 2 for
``1 2``) and each finds its way to the right one as its paper tells it:

- zero-shot reports that first program unchecked (it checks nothing: that
  is its place in the papers' tables);
- QualityFlow: imagined execution rejects the first program, the test
  designer writes three pairs of which one is wrong, the Test Quality Checker
  corrects it, the self-debugger fixes the program;
- AgentCoder: the test designer writes basic, edge and large-scale pairs, the
  test executor runs them through the I/O judge, the programmer refines;
- CodeTree: the Thinker's first strategy is wrong, the Critic has its program
  refined, the Thinker's reflection and the Debugger fix it, the Critic
  verifies and accepts;
- AdaCoder: the Code Evaluator shows the first failing sample (input,
  expected output, what was printed), the Prompt Engineer plans, the
  Programming Assistant follows the plan.

Every prompt it is sent must be an I/O one (it mentions standard input or
output): a function prompt reaching it raises, so a run that fell back to a
function prompt fails loudly.

Use it with ``--model script/tests/scripts/add_two_workflows.py``.
"""

import re

STREAM_DELAY = 0.0

BUGGY = "a, b = map(int, input().split())\nprint(a * b)\n"
FIXED = "a, b = map(int, input().split())\nprint(a + b)\n"

# Designed pairs: basic, edge and large-scale (AgentCoder), all right.
DESIGNED = [
    ("2 3\n", "5\n"),
    ("0 0\n", "0\n"),
    ("-1000000000 1000000000\n", "0\n"),
    ("999999999 999999999\n", "1999999998\n"),
]
# QualityFlow's designer also writes one wrong pair, which its Test Quality Checker corrects.
WRONG = ("4 4\n", "9\n")


def _blocks(pairs):
    return "\n".join(f"Input\n{i}Output\n{o}" for i, o in pairs)


def _program(text):
    found = re.search(r"```python\n(.*?)```", text, re.S)
    return found.group(1) if found else ""


def _stdin(text):
    return text.split("<input>\n", 1)[1].split("\n</input>", 1)[0]


def _run(program, stdin):
    a, b = map(int, stdin.split())
    return a + b if "a + b" in program else a * b


def _conversation(request):
    return "\n".join([request.get("system") or ""] + [m["content"] for m in request["messages"]])


def respond(request):
    agent = request["agent"]
    text = request["messages"][-1]["content"]
    whole = _conversation(request)
    if "standard input" not in whole and "standard output" not in whole:
        raise ValueError(f"add_two_workflows: {agent} was sent a prompt that is not an I/O one")
    # -- zero-shot and QualityFlow ---------------------------------------------------
    if agent == "program_generator":
        if request.get("attempt"):  # a rewrite from the clarified statement
            return "```python\n" + FIXED + "```"
        return "Here is a program.\n```python\n" + BUGGY + "```"
    if agent == "code_quality_checker":
        first = request["messages"][0]["content"]
        printed = _run(_program(first), _stdin(first))
        if request["turn"] == 1:
            return f"The program reads a and b and prints {printed}."
        return f"<test_case>\nInput\n{_stdin(first)}\nOutput\n{printed}\n</test_case>"
    if agent == "test_designer":
        if "Large scale" in text:  # AgentCoder's test designer: basic, edge, large-scale
            return "Basic, edge and large-scale tests:\n\n" + _blocks(DESIGNED)
        if (request.get("attempt") or 1) > 1:
            return "No more tests."
        return _blocks([*DESIGNED[:2], WRONG])
    if agent == "test_quality_checker":
        stdin = _stdin(text)
        a, b = map(int, stdin.split())
        return f"<test_case>\nInput\n{stdin}\nOutput\n{a + b}\n</test_case>"
    if agent == "self_debugger":
        return "It multiplies; the statement asks for the sum.\n```python\n" + FIXED + "```"
    if agent == "clarifier":
        return "<clarified_problem>Read two integers a and b from one line; print their sum a + b.</clarified_problem>"
    if agent == "yesno_checker":
        return "Yes" if "a + b" in _program(text) else "No"
    # -- AgentCoder -------------------------------------------------------------------
    if agent == "programmer":
        if "Now write test cases" in text:  # the single agent's own tests (Table 6)
            return _blocks(DESIGNED)
        if request.get("epoch"):
            return "The tests show it multiplies.\n```python\n" + FIXED + "```"
        return "1. Read a and b. 2. Combine them. 3. Print.\n```python\n" + BUGGY + "```"
    # -- CodeTree ---------------------------------------------------------------------
    if agent == "thinker":
        if "strategies" in text and "<strategy>" in text:
            return "<strategy>Read a and b and print their product.</strategy>\n<strategy>Read a and b and print a + b.</strategy>"
        return "<reflection>The program prints a * b; the statement asks for a + b. Print the sum.</reflection>"
    if agent == "solver":
        strategy = text.split("Implement this strategy:", 1)[1]
        return "```python\n" + (FIXED if "a + b" in strategy else BUGGY) + "```"
    if agent == "debugger":
        return "Following the reflection:\n```python\n" + FIXED + "```"
    if agent == "critic":
        if "a + b" in _program(text):
            return (
                "<critique>It prints the sum for every pair of integers.</critique>\n"
                "<test_score>10</test_score>\n<strategy_score>9</strategy_score>\n<action>accept</action>"
            )
        return (
            "<critique>It prints the product: for 1 2 it prints 2, not 3.</critique>\n"
            "<test_score>2</test_score>\n<strategy_score>6</strategy_score>\n<action>refine</action>"
        )
    # -- AdaCoder ---------------------------------------------------------------------
    if agent == "programming_assistant":
        if request.get("attempt"):
            return "Following the plan:\n```python\n" + FIXED + "```"
        return "```python\n" + BUGGY + "```"
    if agent == "prompt_engineer":
        return "<plan>1. Read a and b from the one input line.\n2. Print a + b, not a * b.</plan>"
    raise ValueError(f"add_two_workflows has no answer for agent {agent}")
