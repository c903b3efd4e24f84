"""A script model that plays MapCoder's four agents offline, on the two
problems in ``examples/mapcoder/problems/``:

- ``remove-occ.json`` (MBPP No. 11, a function judged by asserts): the most
  confident plan (90, learnt from "remove the first occurrence") removes only
  the first occurrence; its program fails the samples and the debugging
  agent, holding to that plan, cannot fix it in t rounds; the next plan (80,
  learnt from "remove the last occurrence") removes both and its program
  passes: accepted at ``coding:2``.
- ``add-two.json`` (stdin/stdout): the most confident plan reads a and b on
  two lines; the program fails on the samples' one line, and the debugging
  agent, shown the input, the expected output and the error, reads one line:
  accepted at ``debugging:1``.

It answers as many recalled problems as the prompt asks for (the ``exemplars``
setting, k). A prompt of the wrong kind (a function prompt for the stdin
problem, or the reverse) or a debugging prompt without the failures raises,
so a run that shows an agent the wrong thing fails loudly.

Use it with ``--model script/qflow_mapcoder.script_model`` (the installed
module, from any folder), or with a path to this file
(``script/examples/mapcoder/qflow_mapcoder/script_model.py`` from the
repository's top).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qflow_tui.core.llm.base import ScriptRequest

STREAM_DELAY = 0.0

# -- remove_Occ (MBPP No. 11) ------------------------------------------------------------

FIRST_ONLY = """def remove_Occ(s, ch):
    i = s.find(ch)
    return s if i == -1 else s[:i] + s[i + 1:]
"""
FIRST_AND_LAST = """def remove_Occ(s, ch):
    first = s.find(ch)
    if first == -1:
        return s
    s = s[:first] + s[first + 1:]
    last = s.rfind(ch)
    return s if last == -1 else s[:last] + s[last + 1:]
"""
#: (what the recalled problem asks, its plan, the plan made from it, that plan's confidence)
OCC_RECALLED = [
    (
        "Remove the first occurrence of a given character from a string.",
        "1. Find the index of the character with str.find.\n2. Cut it out when found.",
        "1. Find the first occurrence of ch in s with s.find.\n2. Return s without that character; s when absent.",
        90,
    ),
    (
        "Reverse the order of the words in a sentence.",
        "1. Split the sentence on spaces.\n2. Reverse the list.\n3. Join it with spaces.",
        "1. Split s into characters.\n2. Drop every ch.\n3. Join what is left.",
        35,
    ),
    (
        "Remove the last occurrence of a given character from a string.",
        "1. Find the index of the character with str.rfind.\n2. Cut it out when found.",
        "1. Find the first occurrence of ch with s.find and cut it out.\n"
        "2. In what is left, find the last occurrence with s.rfind and cut it out.\n"
        "3. Return s unchanged when ch is absent.",
        80,
    ),
]

# -- add two (stdin/stdout) ----------------------------------------------------------------

TWO_LINES = "a = int(input())\nb = int(input())\nprint(a + b)\n"
ONE_LINE = "a, b = map(int, input().split())\nprint(a + b)\n"
ADD_RECALLED = [
    (
        "Read two integers, one per line, and print their sum.",
        "1. Read a from the first line.\n2. Read b from the second.\n3. Print a + b.",
        "1. Read a from the first input line and b from the second.\n2. Print a + b.",
        85,
    ),
    (
        "Read a line of integers and print their sum.",
        "1. Read the line.\n2. Split it and convert each part.\n3. Print the sum.",
        "1. Read the one input line and split it into integers.\n2. Print their sum.",
        70,
    ),
    (
        "Read two integers on one line and print their product.",
        "1. Read the line and split it.\n2. Print a * b.",
        "1. Read a and b from the one input line.\n2. Print a * b.",
        20,
    ),
]

#: Beyond the three above, a recalled problem is one of these (k goes up to 9).
FILLER = ("Count how many times a value occurs (variant {n}).", "1. Walk the input.\n2. Count.", "1. Count.", 10)


def _conversation(request: ScriptRequest) -> str:
    return "\n".join([request["system"], *(m["content"] for m in request["messages"])])


def _recalled(pool: list[tuple[str, str, str, int]], k: int) -> list[tuple[str, str, str, int]]:
    extra = [(FILLER[0].format(n=n), FILLER[1], FILLER[2] + f" (variant {n})", FILLER[3] + n) for n in range(4, 10)]
    return (pool + extra)[:k]


def _program(text: str) -> str:
    found = re.search(r"```python\n(.*?)```", text, re.S)
    return found.group(1) if found else ""


def respond(request: ScriptRequest) -> str:
    whole = _conversation(request)
    text = request["messages"][-1]["content"]
    if "remove_Occ" in whole:
        if "standard input" in whole:
            raise ValueError("mapcoder script: the function problem was sent a stdin/stdout prompt")
        return _answer(request, text, OCC_RECALLED, FIRST_ONLY, FIRST_AND_LAST, "s.rfind", "remove_Occ(")
    if "a + b" in whole:
        if "standard input" not in whole:
            raise ValueError("mapcoder script: the stdin/stdout problem was sent a function prompt")
        return _answer(request, text, ADD_RECALLED, TWO_LINES, ONE_LINE, "one input line", "Expected output")
    raise ValueError(
        "the MapCoder script model knows two problems, examples/mapcoder/problems/remove-occ.json and "
        "add-two.json; give a real model for any other"
    )


def _answer(
    request: ScriptRequest,
    text: str,
    pool: list[tuple[str, str, str, int]],
    wrong: str,
    right: str,
    right_plan: str,
    failure: str,
) -> str:
    """The answer of ``request``'s agent on one problem: ``wrong`` is the
    program of a plan without ``right_plan`` in it, ``right`` of one with it;
    a debugging prompt must show ``failure``."""
    agent = request["agent"]
    if agent == "retrieval":
        asked = re.search(r"Recall (\d+) problems", text)
        k = int(asked.group(1)) if asked else 3
        blocks = [
            f"<problem>\n<description>{what}</description>\n<code>\n# (recalled)\n</code>\n<plan>\n{plan}\n</plan>\n"
            "</problem>"
            for what, plan, _, _ in _recalled(pool, k)
        ]
        return (
            "\n".join(blocks) + "\n<algorithm>Simple string and input handling; read the format with care.</algorithm>"
        )
    if agent == "planning" and request["turn"] == 1:
        made = next((made for what, _, made, _ in _recalled(pool, 9) if what in text), None)
        if made is None:
            raise ValueError("mapcoder script: the planning agent was not shown a recalled problem")
        return made
    if agent == "planning":
        score = next((score for _, _, made, score in _recalled(pool, 9) if made in text), None)
        if score is None:
            raise ValueError("mapcoder script: the planning agent was asked to rate a plan it did not make")
        return f"<explanation>Weighed against the samples.</explanation>\n<confidence>{score}</confidence>"
    if agent == "coding":
        return "Following the plan.\n```python\n" + (right if right_plan in text else wrong) + "```"
    if agent == "debugging":
        if failure not in text or "```python" not in text:
            raise ValueError("mapcoder script: the debugging agent was not shown the program and its failures")
        if right_plan in text or "Expected output" in text:
            plan = next(made for _, _, made, _ in pool if right_plan in made)
            return f"{plan}\n```python\n{right}```"
        # Holding to the plan it was given: the same plan, the same program.
        plan = text.split("The plan the program followed:\n", 1)[1].split("\n\nThe program", 1)[0]
        return f"{plan}\n```python\n{_program(text)}```"
    raise ValueError(f"the MapCoder script model has no answer for agent {agent}")
