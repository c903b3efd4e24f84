"""llama.cpp's threads for a local/ model: chosen from the cores actually free
(the cores this process may use less the load average), since spinning
threads starve each other on a busy machine (issue 46: 0.3-0.6 tokens/s at
load 15-20 on 2 cores); or set by the user (--threads, [run] threads,
QFLOW_THREADS, a [models."local/..."] table). Speeds are measured in
bench/local_model.py --speed, not here."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from qflow_tui.core.config import ConfigError
from qflow_tui.core.llm import local, make_client
from qflow_tui.core.workflows.values import load_config


@pytest.mark.parametrize(
    "cores, load, free",
    [(4, 0.0, 4), (4, 2.6, 1), (4, 1.4, 3), (2, 18.0, 1), (2, 0.4, 2), (1, 0.0, 1)],
)
def test_free_cores_leave_out_the_load(monkeypatch, cores, load, free):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert local.free_cores() == free


def test_without_a_load_average_every_usable_core_counts(monkeypatch):
    def unknown() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    monkeypatch.setattr(os, "getloadavg", unknown)
    assert local.free_cores() == 3


def test_auto_threads_stay_under_the_cap(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert local.auto_threads() == local.MAX_AUTO_THREADS


class _Seen:
    threads: list[int | None] = []

    def __init__(self, spec: str, *, prompt_cache: bool = True, threads: int | None = None) -> None:
        _Seen.threads.append(threads)


@pytest.fixture
def model_file(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 60)
    monkeypatch.setattr(local, "LocalClient", _Seen)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: object() if name == "xllamacpp" else real(name, *a)
    )
    _Seen.threads = []
    return path


def test_the_threads_setting_reaches_llama_cpp(model_file):
    make_client(f"local/{model_file}", threads=3)
    make_client(f"local/{model_file}")
    assert _Seen.threads == [3, None]  # None: chosen from the free cores when the model starts


def test_threads_come_from_the_flag_the_environment_or_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[run]\nthreads = 2\n", encoding="utf-8")
    assert load_config(path, env={}).threads == 2
    assert load_config(path, env={"QFLOW_THREADS": "1"}).threads == 1
    assert load_config(path, env={}, overrides={"threads": 4}).threads == 4
    assert load_config(tmp_path / "none.toml", env={}).threads == 0
    with pytest.raises(ConfigError, match="threads"):
        load_config(path, env={}, overrides={"threads": -1})
