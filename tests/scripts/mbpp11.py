"""A script model that plays every QualityFlow agent on MBPP No. 11
(remove_Occ: remove the first and last occurrence of a character).

It tells the story the paper tells: the generator's first program removes only
the first occurrence, Imagined Execution rejects it, the test designer writes
ten tests of which two are wrong, the Test Quality Checker rejects those two,
the self-debugger fixes the program in epoch 1 and the Quality Checker accepts.

Use it with ``--model script/tests/scripts/mbpp11.py``. Set STREAM_DELAY to see
the text stream in the app.
"""

import re

STREAM_DELAY = 0.0

BUGGY = """def remove_Occ(s, ch):
    # Remove the first occurrence of ch.
    i = s.find(ch)
    if i == -1:
        return s
    return s[:i] + s[i + 1:]
"""

FIXED = """def remove_Occ(s, ch):
    # Remove the first occurrence, then the last one.
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1:]
    last = s.rfind(ch)
    if last == -1:
        return s
    return s[:last] + s[last + 1:]
"""


def reference(s, ch):
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1 :]
    last = s.rfind(ch)
    return s if last == -1 else s[:last] + s[last + 1 :]


def buggy(s, ch):
    i = s.find(ch)
    return s if i == -1 else s[:i] + s[i + 1 :]


GOOD_TESTS = [
    ("banana", "a"),
    ("mississippi", "s"),
    ("character", "c"),
    ("abracadabra", "b"),
    ("programming", "g"),
    ("lollipop", "l"),
    ("teeter", "t"),
    ("xyzzy", "z"),
]
WRONG_TESTS = [
    'assert remove_Occ("hello world", "o") == "hell world"',  # removes only the first
    'assert remove_Occ("aaaa", "a") == ""',
]

CALL_RE = re.compile(r"remove_Occ\((['\"])(.*?)\1,\s*(['\"])(.*?)\3\)")


def _call_args(text):
    matches = list(CALL_RE.finditer(text))
    m = matches[-1] if matches else None
    return (m.group(2), m.group(4)) if m else None


def _last_content(request):
    return request["messages"][-1]["content"]


def respond(request):
    agent = request["agent"]
    text = _last_content(request)
    if agent == "program_generator":
        if request.get("attempt"):
            return "Following the clarified statement, a different implementation:\n```python\n" + FIXED + "```"
        return "Here is a solution.\n```python\n" + BUGGY + "```"
    if agent == "programmer":  # AgentCoder's programmer: writes, then refines from test feedback
        if request.get("epoch"):
            return "The failing tests show the last occurrence stays.\n```python\n" + FIXED + "```"
        return "1. Understand ... 2. Algorithm ... 3. Pseudocode ... 4. Code:\n```python\n" + BUGGY + "```"
    if agent == "test_designer":
        if (request.get("attempt") or 1) > 1:
            return "```python\n```"  # nothing new after the first round
        lines = [f'assert remove_Occ("{s}", "{c}") == "{reference(s, c)}"' for s, c in GOOD_TESTS]
        return "```python\n" + "\n".join(lines + WRONG_TESTS) + "\n```"
    if agent == "test_quality_checker":
        args = _call_args(request["test"] or text)
        value = reference(*args)
        return f"Removing the first and the last occurrence gives {value!r}.\n<test_case>{request['test'].rsplit('==', 1)[0]}== {value!r}</test_case>"
    if agent == "self_debugger":
        return (
            "The program removes only the first occurrence; the statement asks for the first and the last.\n"
            "```python\n" + FIXED + "```"
        )
    if agent == "code_quality_checker":
        program = request["messages"][0]["content"]
        fn = reference if "rfind" in program else buggy
        args = _call_args(request["test"])
        value = fn(*args)
        if request["turn"] == 1:
            return f"Let me trace remove_Occ{args!r} step by step.\nThe function returns {value!r}.\nThe output is: {value!r}"
        return f"<test_case>assert remove_Occ({args[0]!r}, {args[1]!r}) == {value!r}</test_case>"
    if agent == "clarifier":
        return "<clarified_problem>Remove both the first and the last occurrence of ch from s.</clarified_problem>"
    if agent == "yesno_checker":
        return "Yes" if "rfind" in text else "No"
    raise ValueError(f"mbpp11 script has no answer for agent {agent}")
