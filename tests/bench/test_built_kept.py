"""A shipped dataset's problems, once built, are kept in the cache folder and
read back by the next bench: the same problems, field for field; anything that
changes what builds them, or a file that cannot be read back, builds them again."""

from __future__ import annotations

import re

import pytest

from qflow_tui.core.bench import datasets
from qflow_tui.locations import cache_dir


def _kept_files() -> list[str]:
    folder = cache_dir() / "problems"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize("name", list(datasets.DATASETS))
def test_kept_problems_are_the_built_ones(name, monkeypatch):
    built = datasets.load_shipped(name)
    assert [f for f in _kept_files() if re.fullmatch(re.escape(name) + r"-[0-9a-f]{24}\.json", f)]

    def no_build(rec):
        raise AssertionError("built again although kept")

    monkeypatch.setitem(datasets._BUILDERS, datasets.DATASETS[name][1], no_build)
    kept = datasets.load_shipped(name)
    assert kept == built
    assert kept is not built and kept[0] is not built[0]


def test_a_change_in_what_builds_them_builds_them_again(monkeypatch):
    datasets.load_shipped("humaneval")
    before = _kept_files()
    assert len(before) == 1
    calls = []
    real = datasets._BUILDERS["humaneval"]
    monkeypatch.setitem(datasets._BUILDERS, "humaneval", lambda rec: calls.append(1) or real(rec))
    monkeypatch.setattr(datasets.sys, "version", datasets.sys.version + " (another build)")
    again = datasets.load_shipped("humaneval")
    assert len(calls) == 164 and len(again) == 164
    after = _kept_files()
    assert len(after) == 1 and after != before  # the older one replaced, not left beside it


def test_another_datasets_kept_file_is_left_alone(monkeypatch):
    # humaneval's names start like humaneval-plus's: replacing one keeps the other.
    plus = datasets._built_path("humaneval-plus")
    plus.parent.mkdir(parents=True, exist_ok=True)
    plus.write_text("[]", encoding="utf-8")
    monkeypatch.setattr(datasets.sys, "version", datasets.sys.version + " (another build)")
    datasets.load_shipped("humaneval")
    assert plus.exists()


def test_a_broken_kept_file_builds_them_again():
    built = datasets.load_shipped("humaneval")
    path = datasets._built_path("humaneval")
    path.write_text('[{"problem": {"statement": 1}}]', encoding="utf-8")
    assert datasets.load_shipped("humaneval") == built
    path.write_bytes(b"\x00not json")
    assert datasets.load_shipped("humaneval") == built


def test_a_limit_or_ids_read_no_kept_file():
    datasets.load_shipped("mbpp", limit=3)
    datasets.load_shipped("mbpp", ids=["11"])
    assert _kept_files() == []


def test_a_write_that_fails_leaves_no_part_behind(monkeypatch):
    def fail(self, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(datasets.Path, "replace", fail)
    assert len(datasets.load_shipped("humaneval")) == 164
    assert _kept_files() == []
