"""The scripted model behind the bundled demo session (``qflow demo``).

It plays every QualityFlow agent on MBPP No. 11, the paper's running example
("remove first and last occurrence of a given character"), and tells a story
that walks through the whole workflow with two parallel progressions:

* program generator: progression 0 removes only the *first* occurrence;
  progression 1 uses ``str.strip``, which only trims the ends;
* code quality checker (Imagined Execution, Appendix G): traces each program
  on each visible test, step by step; both programs are rejected (progression 1
  passes two of the three visible tests, so its checks disagree); one answer
  comes without the ``<test_case>`` tags, as in Appendix G example 1;
* test designer: two rounds; round 1 has two wrong tests (one removes every
  occurrence, one removes all four ``a``s), round 2 repeats a test (dropped as
  a duplicate) and adds two edge cases;
* test quality checker: reasons from the statement alone and rejects the two
  wrong tests;
* self-debugger, epoch 1: both progressions are fixed from the failing
  synthesized tests; the quality checker accepts both and progression 0 wins.

The model is honest: every value it "imagines" is what the program it is shown
really returns (the trace functions below mirror the programs line by line).
Record the demo with ``python -m qflow_tui.data.demo.record``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qflow_tui.core.llm.base import ScriptRequest

STREAM_DELAY = 0.0
#: The only function it writes: on another problem its answers are MBPP 11's
#: (the app says so before such a run).
KNOWN_ENTRY_POINTS = ("remove_Occ",)

STATEMENT = "Write a python function to remove first and last occurrence of a given character from the string."
VISIBLE_TESTS = [
    'assert remove_Occ("hello","l") == "heo"',
    'assert remove_Occ("abcda","a") == "bcd"',
    'assert remove_Occ("PHP","P") == "H"',
]

FIRST_ONLY = """def remove_Occ(s, ch):
    # Find the character and cut it out of the string.
    i = s.find(ch)
    if i == -1:
        return s
    return s[:i] + s[i + 1:]
"""

STRIP_ENDS = """def remove_Occ(s, ch):
    # Remove ch from the start and the end of the string.
    return s.strip(ch)
"""

FIXED_FIND = """def remove_Occ(s, ch):
    # Remove the first occurrence, then the last one of what is left.
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1:]
    last = s.rfind(ch)
    if last == -1:
        return s
    return s[:last] + s[last + 1:]
"""

FIXED_INDEX = """def remove_Occ(s, ch):
    # Positions of the first and the last occurrence in the original string.
    if ch not in s:
        return s
    first = s.index(ch)
    last = s.rindex(ch)
    if first == last:
        return s[:first] + s[first + 1:]
    return s[:first] + s[first + 1:last] + s[last + 1:]
"""

PROGRAMS = {"first_only": FIRST_ONLY, "strip_ends": STRIP_ENDS, "fixed_find": FIXED_FIND, "fixed_index": FIXED_INDEX}


# -- what each program really does, told step by step -------------------------------


def reference(s: str, ch: str) -> str:
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1 :]
    last = s.rfind(ch)
    return s if last == -1 else s[:last] + s[last + 1 :]


def trace_first_only(s: str, ch: str) -> tuple[list[str], str]:
    i = s.find(ch)
    steps = [f"The function is called with s = {s!r} and ch = {ch!r}."]
    if i == -1:
        steps.append(f"s.find({ch!r}) returns -1: {ch!r} does not occur, so s is returned unchanged.")
        return steps, s
    out = s[:i] + s[i + 1 :]
    steps += [
        f"s.find({ch!r}) returns {i}, the index of the first {ch!r}.",
        f"s[:{i}] is {s[:i]!r} and s[{i + 1}:] is {s[i + 1 :]!r}.",
        f"The function returns {s[:i]!r} + {s[i + 1 :]!r} = {out!r}.",
    ]
    if out.find(ch) != -1:
        steps.append(f"Only the first {ch!r} was removed; the other {ch!r} is still there.")
    return steps, out


def trace_strip_ends(s: str, ch: str) -> tuple[list[str], str]:
    out = s.strip(ch)
    steps = [
        f"The function is called with s = {s!r} and ch = {ch!r}.",
        f"s.strip({ch!r}) removes {ch!r} characters from both ends of the string only, not from the middle.",
    ]
    if out == s:
        steps.append(f"{s!r} starts with {s[:1]!r} and ends with {s[-1:]!r}, so nothing is removed.")
    else:
        steps.append(f"Stripping {ch!r} from both ends of {s!r} leaves {out!r}.")
    steps.append(f"The function returns {out!r}.")
    return steps, out


def trace_fixed_find(s: str, ch: str) -> tuple[list[str], str]:
    steps = [f"The function is called with s = {s!r} and ch = {ch!r}."]
    first = s.find(ch)
    if first == -1:
        steps.append(f"first = s.find({ch!r}) = -1, so s is returned unchanged: {s!r}.")
        return steps, s
    t = s[:first] + s[first + 1 :]
    steps += [f"first = s.find({ch!r}) = {first}.", f"Removing index {first} gives s = {t!r}."]
    last = t.rfind(ch)
    if last == -1:
        steps.append(f"last = s.rfind({ch!r}) = -1: no other {ch!r} is left, so {t!r} is returned.")
        return steps, t
    out = t[:last] + t[last + 1 :]
    steps += [f"last = s.rfind({ch!r}) = {last} in the shortened string.", f"Removing index {last} gives {out!r}."]
    return steps, out


def trace_fixed_index(s: str, ch: str) -> tuple[list[str], str]:
    steps = [f"The function is called with s = {s!r} and ch = {ch!r}."]
    if ch not in s:
        steps.append(f"{ch!r} is not in {s!r}, so s is returned unchanged.")
        return steps, s
    first, last = s.index(ch), s.rindex(ch)
    steps.append(f"first = s.index({ch!r}) = {first} and last = s.rindex({ch!r}) = {last}.")
    if first == last:
        out = s[:first] + s[first + 1 :]
        steps.append(f"They are the same position, so only that character is removed: {out!r}.")
        return steps, out
    out = s[:first] + s[first + 1 : last] + s[last + 1 :]
    steps.append(
        f"s[:{first}] + s[{first + 1}:{last}] + s[{last + 1}:] = {s[:first]!r} + {s[first + 1 : last]!r} + {s[last + 1 :]!r} = {out!r}."
    )
    return steps, out


TRACES = {
    "first_only": trace_first_only,
    "strip_ends": trace_strip_ends,
    "fixed_find": trace_fixed_find,
    "fixed_index": trace_fixed_index,
}


def which_program(text: str) -> str:
    """Recognise which of the programs above a prompt shows."""
    if "s.strip(ch)" in text:
        return "strip_ends"
    if "s.rindex(ch)" in text:
        return "fixed_index"
    if "s.rfind(ch)" in text:
        return "fixed_find"
    return "first_only"


_CALL_RE = re.compile(r"remove_Occ\(\s*(['\"])(.*?)\1\s*,\s*(['\"])(.*?)\3\s*\)")


def call_args(text: str) -> tuple[str, str]:
    found = _CALL_RE.findall(text)
    if not found:
        raise ValueError(f"no remove_Occ call in {text!r}")
    _, s, _, ch = found[-1]
    return s, ch


def assert_for(s: str, ch: str, value: str) -> str:
    return f"assert remove_Occ({s!r}, {ch!r}) == {value!r}"


# -- the synthesized tests ----------------------------------------------------------------

ROUND_1_GOOD = [
    ("banana", "a"),
    ("mississippi", "s"),
    ("character", "c"),
    ("abracadabra", "b"),
    ("lollipop", "l"),
    ("xyzzy", "z"),
]
ROUND_1_WRONG = [
    'assert remove_Occ("hello world", "l") == "heo word"',  # removes every "l", not the first and last
    'assert remove_Occ("aaaa", "a") == ""',  # removes all four, not two
]
ROUND_2 = [("banana", "a"), ("python", "z"), ("a", "a")]  # a repeat, a missing character, a single one


def _designed(pairs: list[tuple[str, str]]) -> list[str]:
    return [f'assert remove_Occ("{s}", "{c}") == "{reference(s, c)}"' for s, c in pairs]


# -- the agents ---------------------------------------------------------------------------


def generator(request: ScriptRequest) -> str:
    if not knows(_prompt(request)):
        return f"{NOT_MINE}; this is its program for MBPP 11.\n\n```python\n" + FIRST_ONLY + "```"
    if request["progression"] == 0:
        return (
            "The function has to take a character out of the string, so I find it and cut it out.\n\n"
            "```python\n" + FIRST_ONLY + "```"
        )
    return (
        "Plan:\n"
        "1. Inputs: a string `s` and a character `ch`.\n"
        "2. Output: `s` without the occurrences of `ch` at its start and end.\n"
        '3. The tests show `ch` removed from the outside of the string: `"abcda"` -> `"bcd"`, `"PHP"` -> `"H"`.\n\n'
        "```python\n" + STRIP_ENDS + "```"
    )


# -- a problem it was not written for ----------------------------------------------------
#
# A user may run the demo model on a problem of their own (the app warns first).
# It still answers every agent, honestly and in the paper's formats, so the run
# goes through the whole workflow and each pane shows what it said: the programs
# are MBPP 11's, the checker traces them to the NameError they really raise on
# the problem's own tests, and it designs no tests for a problem it cannot read.

NOT_MINE = "This script model was written for MBPP 11 (remove_Occ) and knows no other problem"


def knows(text: str) -> bool:
    """Whether a test or a prompt is about MBPP 11: it calls remove_Occ (its own
    programs, which a prompt may show whatever the problem, left out)."""
    for program in PROGRAMS.values():
        text = text.replace(program.strip(), "")
    return "remove_Occ(" in text


def _prompt(request: ScriptRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request["messages"]) + str(request.get("system") or "")


def _test(request: ScriptRequest) -> str:
    """The test a checker's call is about (the checkers are only asked about one)."""
    test = request["test"]
    if test is None:
        raise ValueError(f"a {request['agent']} call names no test")
    return test


_CALLED_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def foreign_check(request: ScriptRequest) -> str:
    """The check of a test that calls another function: the program shown
    defines remove_Occ only, so the call raises NameError, as it would run."""
    body = _test(request).removeprefix("assert").strip()
    called = next(
        (name for name in _CALLED_RE.findall(body) if name not in {"len", "str", "int", "list"}), "the function"
    )
    if request["turn"] == 1:
        return (
            "Let me solve this step by step:\n"
            f"1) {NOT_MINE}.\n"
            f"2) The program shown defines remove_Occ only; the test calls {called}, which it does not define.\n"
            f"3) Running the test raises NameError: name {called!r} is not defined.\n"
            "The output is: NameError"
        )
    left = body.split("==", 1)[0].strip()
    return f"<test_case>assert {left} == NameError</test_case>"


def code_quality_checker(request: ScriptRequest) -> str:
    if not knows(_test(request)):
        return foreign_check(request)
    program = which_program(request["messages"][0]["content"])
    s, ch = call_args(_test(request))
    steps, value = TRACES[program](s, ch)
    if request["turn"] == 1:
        body = "\n".join(f"{n}) {line}" for n, line in enumerate(steps, start=1))
        return f"Let me solve this step by step:\n{body}\nThe output is: {value!r}"
    completed = f"assert remove_Occ({s!r},{ch!r}) == {value!r}"
    if program == "strip_ends" and s == "PHP":
        # As in Appendix G example 1: the model forgets the tags; the parser copes.
        return completed
    return f"<test_case>{completed}</test_case>"


def test_designer(request: ScriptRequest) -> str:
    if not knows(_prompt(request)):
        return f"{NOT_MINE}: it designs no tests for this one.\n\n```python\n```"
    if request["attempt"] == 1:
        tests = _designed(ROUND_1_GOOD) + ROUND_1_WRONG
    elif request["attempt"] == 2:
        tests = _designed(ROUND_2)
    else:
        tests = []
    return "```python\n" + "\n".join(tests) + ("\n" if tests else "") + "```"


def test_quality_checker(request: ScriptRequest) -> str:
    s, ch = call_args(_test(request))
    value = reference(s, ch)
    count = s.count(ch)
    if count == 0:
        why = f"{ch!r} does not occur in {s!r}, so there is nothing to remove and the string stays {s!r}."
    elif count == 1:
        why = f"{ch!r} occurs once in {s!r}: that one occurrence is both the first and the last, so removing it gives {value!r}."
    else:
        first, last = s.find(ch), s.rfind(ch)
        why = (
            f"{ch!r} occurs {count} times in {s!r}. The statement asks to remove only the first (index {first}) "
            f"and the last (index {last}); the ones in between stay. That leaves {value!r}."
        )
    return (
        f"From the problem statement: remove the first and the last occurrence of the character.\n{why}\n"
        f"<test_case>{assert_for(s, ch, value)}</test_case>"
    )


def self_debugger(request: ScriptRequest) -> str:
    if not knows(_prompt(request)):
        return f"{NOT_MINE}; this is its fixed program for MBPP 11.\n\n```python\n" + FIXED_FIND + "```"
    if request["progression"] == 0:
        return (
            'Tracing the failing tests: for remove_Occ("banana", "a") the program finds the first \'a\' at index 1 '
            "and returns 'bnana': it removes only the first occurrence. The statement asks for the first and the "
            "last. After removing the first occurrence, the last one is found with rfind in what is left and "
            "removed too; a string with a single occurrence loses just that one.\n\n"
            "```python\n" + FIXED_FIND + "```"
        )
    return (
        "Tracing the failing tests: 'banana'.strip('a') gives 'banan': strip only trims the ends, and it would "
        "remove several characters at an end, or none in the middle. The statement asks for the first and the last "
        "occurrence wherever they are. Take their positions with index and rindex and cut both out; when they are "
        "the same position, cut out that one character.\n\n"
        "```python\n" + FIXED_INDEX + "```"
    )


def clarifier(request: ScriptRequest) -> str:
    if not knows(_prompt(request)):
        return f"<clarified_problem>{NOT_MINE}; it cannot clarify this one.</clarified_problem>"
    return (
        "<clarified_problem>Return the string with exactly two characters removed: the first occurrence of ch and "
        "the last occurrence of ch. Characters equal to ch between them stay. If ch occurs once, remove it; if it "
        "does not occur, return the string unchanged.</clarified_problem>"
    )


AGENTS = {
    "program_generator": generator,
    "code_quality_checker": code_quality_checker,
    "test_designer": test_designer,
    "test_quality_checker": test_quality_checker,
    "self_debugger": self_debugger,
    "clarifier": clarifier,
}


def respond(request: ScriptRequest) -> str:
    agent = request["agent"]
    if agent == "program_generator" and request.get("attempt") and knows(_prompt(request)):
        return "Following the clarified statement:\n```python\n" + FIXED_FIND + "```"
    if agent not in AGENTS:
        raise ValueError(f"the demo responder plays no {agent}")
    return AGENTS[agent](request)
