"""Reading the retrieval agent's recalled problems and the planning agent's
confidence out of a model's answer. Tolerant by design: a model drops a
closing tag, adds prose around the blocks, or writes the number in words
beside it; whatever cannot be read is said, never guessed."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PROBLEM = re.compile(r"<problem>(.*?)(?=</problem>|<problem>|<algorithm>|\Z)", re.S | re.I)
_ALGORITHM = re.compile(r"<algorithm>(.*?)(?:</algorithm>|\Z)", re.S | re.I)
_CONFIDENCE_TAG = re.compile(r"<confidence>\s*(\d{1,3})(?:\.\d+)?\s*%?\s*(?:</confidence>|\Z|\s)", re.I)
_CONFIDENCE_WORDS = re.compile(r"confidence[^0-9<]{0,40}?(\d{1,3})(?:\.\d+)?\s*(?:%|/\s*100|\b)", re.I)


def _part(tag: str, text: str) -> str:
    """The text of ``<tag>...</tag>`` in ``text`` (an unclosed tag runs to the next tag or the end)."""
    found = re.search(rf"<{tag}>(.*?)(?:</{tag}>|(?=<(?:description|code|plan)>)|\Z)", text, re.S | re.I)
    return found.group(1).strip() if found else ""


@dataclass(frozen=True)
class Recalled:
    """One problem the retrieval agent recalled: what it asks, its code and the
    plan that solved it."""

    number: int
    """1 for the first recalled."""
    description: str
    code: str
    plan: str


@dataclass(frozen=True)
class Recollection:
    """Everything the retrieval agent's answer holds: its problems and its
    algorithm tutorial."""

    problems: tuple[Recalled, ...]
    algorithm: str


def read_recollection(text: str, k: int) -> Recollection:
    """The first ``k`` recalled problems of the answer (those with a
    description), and its algorithm tutorial (empty when it has none)."""
    problems: list[Recalled] = []
    for block in _PROBLEM.findall(text):
        description = _part("description", block)
        if not description:
            continue
        problems.append(Recalled(len(problems) + 1, description, _part("code", block), _part("plan", block)))
        if len(problems) == k:
            break
    algorithm = _ALGORITHM.search(text)
    return Recollection(tuple(problems), algorithm.group(1).strip() if algorithm else "")


def read_confidence(text: str) -> int | None:
    """The confidence, 0 to 100, in the planning agent's answer: the number in
    ``<confidence>``, else the first number after the word "confidence";
    None when there is none (a number above 100 is not a confidence)."""
    for pattern in (_CONFIDENCE_TAG, _CONFIDENCE_WORDS):
        for found in pattern.finditer(text):
            value = int(found.group(1))
            if value <= 100:
                return value
    return None


def one_line(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters (for a pane's row)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
