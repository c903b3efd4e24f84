"""A sandbox report as a JSON object and back (sessions, replay), in-process."""

from __future__ import annotations

import json

import pytest

from qflow_tui.core.sandbox import SandboxReport, TestOutcome


def _report() -> SandboxReport:
    return SandboxReport(
        results=[
            TestOutcome("assert f(1) == 1", "pass", actual="1", duration=0.01),
            TestOutcome("assert f(2) == 3", "fail", actual="2", error="assertion failed"),
        ],
        load_error=None,
        stdout="out",
        stderr="err",
        duration=1.5,
        isolation="bwrap+seccomp",
    )


def test_a_report_comes_back_from_its_json() -> None:
    report = _report()
    back = SandboxReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert back.results == report.results
    assert (back.stdout, back.stderr, back.duration, back.isolation) == ("out", "err", 1.5, "bwrap+seccomp")
    assert back.passed == 1 and back.total == 2


def test_missing_fields_take_their_defaults() -> None:
    back = SandboxReport.from_dict({"results": [], "stdout": None})
    assert (back.results, back.load_error, back.stdout, back.duration, back.isolation) == ([], None, "", 0.0, "")


@pytest.mark.parametrize(
    ("field", "value"),
    [("results", "x"), ("results", [1]), ("stdout", 3), ("duration", "1.5"), ("load_error", ["x"]), ("isolation", 0)],
)
def test_a_field_of_the_wrong_type_is_refused(field: str, value: object) -> None:
    data = _report().to_dict() | {field: value}
    with pytest.raises(
        ValueError, match="results must be objects" if field == "results" and value != "x" else repr(field)
    ):
        SandboxReport.from_dict(data)
