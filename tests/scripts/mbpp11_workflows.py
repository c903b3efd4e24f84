"""A script model that plays the agents of every workflow on MBPP No. 11
(remove_Occ: remove the first and last occurrence of a character).

QualityFlow, AgentCoder and zero-shot are answered by ``mbpp11.py`` beside this
file. CodeTree: the Thinker proposes two strategies; the Solver's program for
the first removes only the first occurrence and fails the visible tests; the
Critic has it refined; the Thinker's reflection says to remove the last
occurrence too; the Debugger's child passes and the Critic accepts it.
AdaCoder: the Phase 1 program is misindented and removes only the first
occurrence; the Debug Specialist fixes the indentation with no model call; the
Code Evaluator then finds the logic error; the Prompt Engineer's plan leads the
Programming Assistant to a program that passes.

Use it with ``--model script/tests/scripts/mbpp11_workflows.py``.
"""

import importlib.util
import re
from pathlib import Path

_spec = importlib.util.spec_from_file_location("qflow_script_mbpp11_base", Path(__file__).with_name("mbpp11.py"))
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

STREAM_DELAY = 0.0

MISINDENTED = """def remove_Occ(s, ch):
    # Remove the first occurrence of ch.
    i = s.find(ch)
    if i == -1:
        return s
     return s[:i] + s[i + 1:]
"""

STRATEGIES = [
    "Find the first occurrence with str.find and cut it out of the string.",
    "Find the first occurrence with str.find and cut it out; then find the last occurrence with "
    "str.rfind in what is left and cut that out too; return the string unchanged when ch is absent.",
]


def _program(text):
    found = re.search(r"```python\n(.*?)```", text, re.S)
    return found.group(1) if found else ""


def respond(request):
    agent = request["agent"]
    text = request["messages"][-1]["content"]
    # -- CodeTree ---------------------------------------------------------------
    if agent == "thinker":
        if "Propose between" in text or "Propose distinct strategies" in text:
            return "Two approaches.\n" + "".join(f"<strategy>{s}</strategy>\n" for s in STRATEGIES)
        return (
            "<reflection>The program removes only the first occurrence. After cutting it out, find the last "
            "occurrence with rfind and cut that out too.</reflection>"
        )
    if agent == "solver":
        program = base.FIXED if "rfind" in text.split("Implement this strategy:", 1)[1] else base.BUGGY
        return "```python\n" + program + "```"
    if agent == "debugger":
        return "Following the reflection:\n```python\n" + base.FIXED + "```"
    if agent == "critic":
        program = _program(text)
        if "rfind" in program:
            return (
                "<critique>Both occurrences are removed; an absent character and a single occurrence are handled."
                "</critique>\n<test_score>10</test_score>\n<strategy_score>8</strategy_score>\n<action>accept</action>"
            )
        return (
            "<critique>It removes the first occurrence but leaves the last one: remove_Occ('hello', 'l') gives "
            "'helo', not 'heo'. The strategy is sound but incomplete.</critique>\n<test_score>4</test_score>\n"
            "<strategy_score>8</strategy_score>\n"
            "<action>refine</action>"
        )
    # -- AdaCoder ---------------------------------------------------------------
    if agent == "programming_assistant":
        if request.get("attempt"):
            return "Following the plan:\n```python\n" + base.FIXED + "```"
        return "```python\n" + MISINDENTED + "```"
    if agent == "prompt_engineer":
        return (
            "<plan>1. Find the first occurrence of ch with s.find; if there is none, return s.\n"
            "2. Cut it out of s.\n3. Find the last occurrence of ch in the result with rfind; if there is none, "
            "return it.\n4. Cut that out too and return the result.</plan>"
        )
    return base.respond(request)
