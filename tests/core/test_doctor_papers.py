"""``qflow doctor`` says which paper files of dataset plugins were not read,
one line each with why (issue 54): ``bench paper`` leaves them out silently."""

from __future__ import annotations

import io
from pathlib import Path

from qflow_tui.commands.doctor import plugin_report, print_plugins
from qflow_tui.core.bench import papers as papers_module
from qflow_tui.core.bench import sources


def test_doctor_lists_a_dataset_plugins_refused_paper_files(tinyset: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x"')
    missing = tmp_path / "missing.json"
    source = sources.DatasetSource("paperset", "a set with bad papers", lambda path: [], papers=(broken, missing))
    sources.SOURCES.register("paperset", source)
    papers_module.papers.cache_clear()
    try:
        report = plugin_report()
        out = io.StringIO()
        print_plugins(report, out)
    finally:
        del sources.SOURCES.extra["paperset"]
        papers_module.papers.cache_clear()
    refused = report["datasets"]["papers_refused"]
    assert len(refused) == 2 and all("paperset" in line and "\n" not in line for line in refused)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("  paper refused: ")]
    assert len(lines) == 2, out.getvalue()
    assert f"its paper file {broken} was not read (JSONDecodeError" in lines[0]
    assert f"its paper file {missing} was not read (FileNotFoundError" in lines[1]
    # The tinyset's own paper is read: nothing refused of it.
    assert not any("tinyset" in line for line in refused)
