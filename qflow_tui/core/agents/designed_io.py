"""Tests a model designs for a stdin/stdout problem: Input/Output blocks (the
paste format, docs/io-problems.md) read from its answer and labelled whole, so
that each label reads back as its pair (``iojudge.parse_io_source``) when the
test executor runs them. QualityFlow's and AgentCoder's test designers both
read their answers here."""

from __future__ import annotations

from collections.abc import Iterable

from ..problem import _IO_HEADER_RE, io_source, parse_io_tests


def unfenced(text: str) -> str:
    """The answer without code fences and without prose before its first Input line."""
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if not line.strip().startswith("```")]
    first = next((i for i, line in enumerate(lines) if _IO_HEADER_RE.match(line)), len(lines))
    return "\n".join(lines[first:])


def designed_io_pairs(text: str) -> list[tuple[str, str]]:
    """The Input/Output pairs of a designer's answer; :class:`ProblemError`
    (its message says what was wrong) when none can be read."""
    return parse_io_tests(unfenced(text))


def new_io_labels(pairs: Iterable[tuple[str, str]], seen: set[tuple[str, str]], most: int) -> list[str]:
    """Whole labels of the pairs not in ``seen`` (which they join), each once,
    at most ``most``; a pair with an empty expected output is dropped (no
    harness compares an empty output usefully, and a model writes one when it
    gave up)."""
    out: list[str] = []
    for pair in pairs:
        if len(out) >= most:
            break
        if pair in seen or not pair[1].strip():
            continue
        seen.add(pair)
        out.append(io_source(*pair, whole=True))
    return out
