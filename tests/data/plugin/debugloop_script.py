"""A script model for the debug-loop example (examples/qflow-debugloop) on MBPP
No. 11: the writer answers with a program that removes only the first
occurrence; the debugger, told which tests fail, answers with the right one.
On a problem that reads stdin it plays A + B alike."""

FIXED = """def remove_Occ(s, ch):
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1:]
    last = s.rfind(ch)
    return s if last == -1 else s[:last] + s[last + 1:]
"""

BUGGY = """def remove_Occ(s, ch):
    i = s.find(ch)
    return s if i == -1 else s[:i] + s[i + 1:]
"""


#: A problem that reads stdin (tests/data/judge/page.md, A + B): the writer's
#: program subtracts; the debugger, shown the failing inputs, adds.
IO_BUGGY = "a, b = map(int, input().split())\nprint(a - b)\n"
IO_FIXED = "a, b = map(int, input().split())\nprint(a + b)\n"


def respond(request):
    prompt = request["messages"][-1]["content"]
    if "standard input" in prompt:  # the io/ prompts
        if request["agent"] == "writer":
            return "```python\n" + IO_BUGGY + "```"
        if request["agent"] == "debugger" and "Input:" in prompt and "Expected output:" in prompt:
            return "```python\n" + IO_FIXED + "```"
        raise ValueError("the debugger was not shown the failing inputs")
    if request["agent"] == "writer":
        return "```python\n" + BUGGY + "```"
    if request["agent"] == "debugger":
        prompt = request["messages"][-1]["content"]
        if "fails when its tests run" not in prompt or "remove_Occ" not in prompt:
            raise ValueError("the debugger was not shown the failing program")
        return "```python\n" + FIXED + "```"
    raise ValueError(f"the debug-loop script has no answer for agent {request['agent']}")
