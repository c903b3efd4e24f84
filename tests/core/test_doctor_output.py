"""``qflow doctor`` as text (issue 57): each line printed as it is found, the
probes' one at a time while the next runs, and a probe's detail said whole."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from qflow_tui.commands import doctor
from qflow_tui.core.sandbox import probes

if TYPE_CHECKING:
    from collections.abc import Callable

    import pytest

    from qflow_tui.core.sandbox import Sandbox

LONG = "held 32 MB in /tmp, 32 MB unlinked of 96 MB tried (cap 32 MB) and a few words more to be said"


def test_doctor_prints_each_probe_as_it_ends_and_its_detail_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    printed: list[str] = []  # stdout so far, each time a probe starts

    def fake_probe_all(
        sb: Sandbox, on_result: Callable[[probes.ProbeResult], None] | None = None
    ) -> list[probes.ProbeResult]:
        out = []
        for n, (threat, claimed) in enumerate(sb.protects().items()):
            printed.append(capsys.readouterr().out)
            out.append(probes.ProbeResult(threat, claimed, True, LONG if n == 0 else "refused"))
            if on_result is not None:
                on_result(out[-1])
        return out

    def no_warm_pool() -> tuple[dict[str, object], None, bool]:
        printed.append(capsys.readouterr().out)  # the probes' lines are out before this slow part
        return {"on": False}, None, False

    monkeypatch.setattr(probes, "probe_all", fake_probe_all)
    monkeypatch.setattr(doctor, "warm_pool_report", no_warm_pool)
    assert doctor.run(argparse.Namespace(json=False, no_probes=False)) == 0
    rest = capsys.readouterr().out
    whole = "".join(printed) + rest
    # Before the first probe: the level, its layers and the bounds, already out.
    assert printed[0].startswith("sandbox isolation: ") and "memory and disk bounds:" in printed[0]
    assert printed[0].rstrip().endswith("protects against:")
    # Each probe's line is out before the next probe starts.
    threats = list(printed)[1:-1]
    assert len(threats) >= 5
    for before in threats:
        assert before.startswith("  [x] ") and before.count("\n") == 1, before
    assert printed[-1].startswith("  [x] ") and "memory: at most" in printed[-1]
    # A probe's detail is its own words, whole (it was cut at 60 characters: "(cap 32 M…").
    assert f"probe: stopped ({LONG})" in whole and "…" not in whole.split("protects against:")[1].split("memory:")[0]
    assert "warm sandbox children: off" in rest and "API keys (names only):" in rest
