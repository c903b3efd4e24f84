"""A script model for the plain-shot example workflow on MBPP No. 11: the writer
answers with the right program when it is shown the visible tests, and with one
that removes only the first occurrence when it is not."""

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


def respond(request):
    if request["agent"] != "writer":
        raise ValueError(f"the plain-shot script has no answer for agent {request['agent']}")
    shown = "(none shown)" not in request["messages"][-1]["content"]
    return "```python\n" + (FIXED if shown else BUGGY) + "```"
